"""Frontier-based exploration of a whole house (the exploration phase that builds the premap).

The explorer spins once in place, then repeatedly drives to the nearest frontier (a seen floor cell next
to an unseen one) and spins there, until no reachable frontier is left. The number of steps this takes
is S; the exploration phase of the protocol grants N = ceil(1.5 S) steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from heedful.errors import GenerationError
from heedful.sims.household.fields import Field, disk, distance_field
from heedful.sims.household.grid import BoolArray
from heedful.sims.household.navigate import field_here, navigate
from heedful.sims.household.sim import HouseSim
from heedful.sims.household.vision import HEADINGS, view_cells

BUDGET_FACTOR = 1.5
FRONTIER_REACH = 2
"""Planner-free cells within this many cells of an unseen cell are frontier targets."""

REPLAN_EVERY = 12
FRONTIER_REACH_M = 8.0
"""Fast marching to the frontier stops at this travel cost unless the agent is further away."""
EXHAUSTED_RADIUS = 0.5
MAX_EXPLORE_STEPS = 6000


@dataclass(frozen=True)
class ExplorationResult:
    steps: int
    budget: int
    coverage: float
    """Share of the house's floor cells (inside rooms and doorways) seen."""


class CoverageTracker:
    """Accumulates the cells the agent has seen (floor and the walls bounding it)."""

    def __init__(self, sim: HouseSim) -> None:
        self.grid = sim.grid
        self.seen = np.zeros(sim.grid.shape, dtype=bool)
        self.floor = ~sim.grid.wall
        sim.listeners.append(self.on_step)
        self.look(sim)

    def on_step(self, sim: HouseSim, action: str, result: object) -> None:
        self.look(sim)

    def look(self, sim: HouseSim) -> None:
        p = sim.pose
        flat = view_cells(self.grid, p.x, p.y, p.heading, sim.range_m)
        self.seen.ravel()[flat] = True

    def frontier_targets(self) -> BoolArray:
        unseen = self.floor & ~self.seen
        near = unseen.copy()
        for _ in range(FRONTIER_REACH):
            grown = near.copy()
            grown[1:, :] |= near[:-1, :]
            grown[:-1, :] |= near[1:, :]
            grown[:, 1:] |= near[:, :-1]
            grown[:, :-1] |= near[:, 1:]
            near = grown
        targets: BoolArray = near & self.seen & self.grid.plan_free
        return targets

    def coverage(self) -> float:
        return float((self.seen & self.floor).sum() / max(1, self.floor.sum()))


def spin(sim: HouseSim) -> None:
    for _ in range(HEADINGS):
        sim.turn(1)


def _frontier_field(sim: HouseSim, targets: BoolArray) -> Field:
    """The field to the frontier, solved only as far as needed: where the agent stands well inside
    FRONTIER_REACH, every value the next REPLAN_EVERY steps read equals the full solution's."""
    near = distance_field(sim.grid, targets, reach=FRONTIER_REACH_M)
    if field_here(sim, near) <= FRONTIER_REACH_M - 1.5:
        return near
    return distance_field(sim.grid, targets)


def explore(sim: HouseSim) -> ExplorationResult:
    """Explore until no reachable frontier is left; returns the steps used and the coverage.

    Raises:
        GenerationError: Exploration did not finish within MAX_EXPLORE_STEPS.
    """
    tracker = CoverageTracker(sim)
    spin(sim)
    exhausted = np.zeros(sim.grid.shape, dtype=bool)
    while sim.step < MAX_EXPLORE_STEPS:
        targets = tracker.frontier_targets() & ~exhausted
        if not targets.any():
            break
        field = _frontier_field(sim, targets)
        r, c = sim.grid.index(sim.pose.x, sim.pose.y)
        if not np.isfinite(field[r, c]):
            break
        start = sim.step
        status = navigate(sim, field, max_steps=REPLAN_EVERY)
        if status == "reached":
            spin(sim)
            # a target that a full turn on the spot did not reveal is given up
            exhausted |= disk(sim.grid, sim.pose.x, sim.pose.y, EXHAUSTED_RADIUS)
        elif status == "stuck" and sim.step == start:
            break
    else:
        raise GenerationError(f"exploration of {sim.house.house_id} did not finish in {MAX_EXPLORE_STEPS} steps")
    return ExplorationResult(
        steps=sim.step, budget=math.ceil(BUDGET_FACTOR * sim.step), coverage=round(tracker.coverage(), 4)
    )
