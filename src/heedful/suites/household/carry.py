"""S_obj's observable action: just before the task phase, the agent watches the human carry the object away.

The paper's S_obj human says "I took the cup and moved it with me"; it relocates the object between the
exploration and the task phase and then stands still. We let the agent see the start of that walk (the
mission's "their actions complete the meaning"): the human picks the object up next to its old receptacle,
in the agent's view, and walks at 0.08 m per step along a shortest path to its new place, where it stands
during the task phase. The agent, at its start pose, sees whatever of the walk is in its view; those
sightings enter the agent's track of the human with negative time steps (the walk ends at step 0), so the
walking-towards rule of Appendix 0.C.3 applies to them exactly as to a walking S_hum human.
"""

from __future__ import annotations

import numpy as np

from heedful.sims.household.grid import Grid
from heedful.sims.household.human import HumanPath, plan_walk
from heedful.sims.household.vision import RANGE_M, in_view
from heedful.suites.household.model import HumanSpec

Sighting = list[tuple[int, float, float]]
"""(time step, x, y) of each step at which the agent saw the human; steps before the task are negative."""


def carry_walk(grid: Grid, human: HumanSpec) -> HumanPath | None:
    """The walk that carried the object to where the human stands, or None when the human carried nothing."""
    if human.carried_from is None:
        return None
    return plan_walk(grid, human.carried_from, human.start)


def carry_sighting(grid: Grid, walk: HumanPath, pose: tuple[float, float, int], range_m: float = RANGE_M) -> Sighting:
    """What the agent at `pose` saw of `walk`, timed so that the walk ends at step 0."""
    arrival = walk.arrival_step
    points = walk.positions(range(arrival + 1))
    x, y, heading = pose
    seen = in_view(grid, x, y, heading, points[:, 0], points[:, 1], range_m)
    return [
        (k - arrival, round(float(points[k, 0]), 4), round(float(points[k, 1]), 4))
        for k in np.nonzero(seen)[0].tolist()
    ]


def seen_span(sighting: Sighting) -> int:
    """Steps between the first and the last sighting (0 when seen at most once)."""
    return sighting[-1][0] - sighting[0][0] if sighting else 0
