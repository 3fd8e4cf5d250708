"""Geodesic navigation with the robot's own actions (forward 0.17 m, turn 10 deg).

At every step the controller looks one forward step ahead in each of the 36 headings and takes the
heading that lowers the goal's distance field most (the field comes from fast marching, so this follows
the geodesic). It moves forward when the current heading is as good as the best within a small
hysteresis, and otherwise turns towards the best heading. Each forward step must lower the field, so the
agent never circles; when no heading makes progress it reports `stuck`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np

from heedful.sims.household.fields import Field, sample, sample_point, segment_free, shortest_polyline
from heedful.sims.household.sim import STEP_M, HouseSim
from heedful.sims.household.vision import HEADINGS

NavStatus = Literal["reached", "stopped", "stuck", "unreachable"]

MIN_PROGRESS = 0.01
HYSTERESIS = 0.012
TURN_COST = 0.004
AIM_TOLERANCE_DEG = 7.5
VERTEX_REACHED = 0.2
GREEDY_MOVES = 2
GOAL_TOLERANCE = 0.02
_ANGLES = np.radians(np.arange(HEADINGS) * 360.0 / HEADINGS)
_COS, _SIN = np.cos(_ANGLES), np.sin(_ANGLES)


def at_goal(sim: HouseSim, field: Field) -> bool:
    """In a goal cell, or within GOAL_TOLERANCE of the goal set."""
    r, c = sim.grid.index(sim.pose.x, sim.pose.y)
    return bool(field[r, c] == 0.0) or field_here(sim, field) <= GOAL_TOLERANCE


def field_here(sim: HouseSim, field: Field) -> float:
    p = sim.pose
    return sample_point(sim.grid, field, p.x, p.y)


def next_action(sim: HouseSim, field: Field) -> int | None:
    """0 for forward, +1 / -1 for a left / right turn, None when no heading makes progress."""
    p = sim.pose
    grid = sim.grid
    here = field_here(sim, field)
    cx, cy = p.x + STEP_M * _COS, p.y + STEP_M * _SIN
    mx, my = p.x + 0.5 * STEP_M * _COS, p.y + 0.5 * STEP_M * _SIN
    r1, c1, in1 = grid.indices(cx, cy)
    r2, c2, in2 = grid.indices(mx, my)
    ok = in1 & in2 & (grid.clearance[r1, c1] >= 0.2) & (grid.clearance[r2, c2] >= 0.2)
    values = np.where(ok, sample(grid, field, cx, cy), np.inf)
    if not np.isfinite(here):
        here = float(np.min(values)) + 1.0 if np.isfinite(values).any() else np.inf
    delta = (np.arange(HEADINGS) - p.heading) % HEADINGS
    turns = np.minimum(delta, HEADINGS - delta)
    best = int(np.argmin(values + TURN_COST * turns))
    if not np.isfinite(values[best]) or (values[best] > here - MIN_PROGRESS and values[best] > 0.0):
        return None
    current = values[p.heading]
    if best == p.heading or (current <= here - MIN_PROGRESS and current <= values[best] + HYSTERESIS):
        return 0
    return 1 if delta[best] <= HEADINGS // 2 else -1


class Pursuit:
    """Follows the taut shortest polyline to the goal, re-planned whenever the agent strays from it."""

    def __init__(self, sim: HouseSim, field: Field) -> None:
        self.sim = sim
        self.field = field
        self.path: list[tuple[float, float]] = []
        self.greedy_moves = 0
        """Forward moves still to make greedily (after the pursuit was blocked at a door jamb or a corner)."""

    def _greedy(self) -> int | None:
        action = next_action(self.sim, self.field)
        if action == 0:
            self.greedy_moves -= 1
        return action

    def _replan(self) -> None:
        p = self.sim.pose
        self.path = shortest_polyline(self.sim.grid, self.field, p.x, p.y)[1:]

    def _target(self) -> tuple[float, float] | None:
        p = self.sim.pose
        while len(self.path) > 1 and math.dist(self.path[0], (p.x, p.y)) < VERTEX_REACHED:
            self.path.pop(0)
        if not self.path:
            return None
        tx, ty = self.path[0]
        clear = segment_free(self.sim.grid, self.sim.grid.move_free, p.x, p.y, np.array([tx]), np.array([ty]))
        return (tx, ty) if clear[0] else None

    def action(self) -> int | None:
        """0 for forward, +1 / -1 for a left / right turn, None when stuck."""
        if self.greedy_moves > 0:
            return self._greedy()
        target = self._target()
        if target is None:
            self._replan()
            target = self._target()
        p = self.sim.pose
        if target is None or math.dist(target, (p.x, p.y)) < VERTEX_REACHED:
            return next_action(self.sim, self.field)
        error = (math.atan2(target[1] - p.y, target[0] - p.x) - p.yaw + math.pi) % (2 * math.pi) - math.pi
        if abs(error) > math.radians(AIM_TOLERANCE_DEG):
            return 1 if error > 0 else -1
        nx, ny = p.x + STEP_M * math.cos(p.yaw), p.y + STEP_M * math.sin(p.yaw)
        mx, my = (p.x + nx) / 2, (p.y + ny) / 2
        if self.sim.grid.can_stand(nx, ny) and self.sim.grid.can_stand(mx, my):
            return 0
        self.path = []
        self.greedy_moves = GREEDY_MOVES
        return self._greedy()


def navigate(
    sim: HouseSim,
    field: Field,
    *,
    stop: Callable[[], bool] | None = None,
    max_steps: int | None = None,
) -> NavStatus:
    """Drive the agent to the goal of `field` (a cell where the field is 0).

    The agent aims at the next vertex of the taut shortest path (pure pursuit with 10 deg headings,
    turning only when the aim is off by more than AIM_TOLERANCE_DEG); where the path is blocked or
    lost, it falls back to one greedy step down the field.

    Args:
        sim: The simulator; every action counts one step (StepLimitError propagates).
        field: Distance field of the goal.
        stop: Checked before each action; navigation ends with `stopped` when it returns True.
        max_steps: Give up (as `stuck`) after this many actions; default: generous for the distance.
    """
    here = field_here(sim, field)
    if not np.isfinite(here):
        return "unreachable"
    limit = max_steps if max_steps is not None else int(3 * here / STEP_M) + 2 * HEADINGS + 20
    pursuit = Pursuit(sim, field)
    taken = 0
    while not at_goal(sim, field):
        if stop is not None and stop():
            return "stopped"
        if taken >= limit:
            return "stuck"
        action = pursuit.action()
        if action is None:
            return "stuck"
        act(sim, action)
        taken += 1
    return "reached"


def act(sim: HouseSim, action: int) -> None:
    """Carry out a navigation action (0 forward, +1 left, -1 right)."""
    if action == 0:
        sim.forward()
    else:
        sim.turn(action)


def turn_towards(sim: HouseSim, x: float, y: float) -> int:
    """Turn (one step) towards the point; returns the direction turned, 0 when already facing it."""
    p = sim.pose
    want = round(math.degrees(math.atan2(y - p.y, x - p.x)) / 10.0) % HEADINGS
    delta = (want - p.heading) % HEADINGS
    if delta == 0:
        return 0
    direction = 1 if delta <= HEADINGS // 2 else -1
    sim.turn(direction)
    return direction
