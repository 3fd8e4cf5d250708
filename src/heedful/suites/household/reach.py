"""Whether the words alone leave time to look in every room they fit (the reach rule of household/sif-v7).

An ambiguous S_obj task claims that the human's motion is needed: the words fit several rooms, and the carry walk
the agent watched tells which one the object went to. When a search that reads only the words can look in every
fitting room and still deliver within the step limit, the task does not need the motion: on sif-v6 the
`commonsense` control (the words, no motion) solved most such tasks, and whether the object's room lay within its
reach predicted its outcome (see docs/household-controls.md).

`words_only_steps` estimates from the premapped floor plan alone the steps such a search needs when the object is in
the last room it looks in: the nearest fitting room first (path distance from where it stands), the walk to the
room's viewpoint and a scan there, then the pick-up and the walk to the nearest room that has the goal. The generator
drops an ambiguous S_obj draft whose estimate fits in the step limit (`sampling.sample_s_obj`). The estimate never
looks at which room the object went to, so the goal room stays uniform among the fitting rooms.

The step costs: a walk of d metres takes `PATH_FACTOR` * d / 0.17 steps (0.17 m per forward step, plus the turns on
the way and the slower band near furniture), and each room looked in `ROOM_STEPS` more (the walk in to its viewpoint
and the scan). Both were fitted to the steps `commonsense` took on the ambiguous S_obj tasks it solved on sif-v6 seed
0 (54 tasks; 1.42 and 35.7 by least squares) and checked on seed 1, which they never saw: the estimate then said
whether the object's room was within reach in time as commonsense's outcome did in 76 of 80 tasks (the steps taken
over the estimate: median 1.03).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.sims.household.fields import Field, sample
from heedful.sims.household.grid import Grid
from heedful.sims.household.house import room_viewpoint
from heedful.sims.household.model import HouseSpec
from heedful.sims.household.sim import MAX_STEPS, STEP_M
from heedful.suites.household.executors import entry_field, view_field

PATH_FACTOR = 1.4
"""Steps per forward step of the shortest path (the turns on the way, the slower band near furniture)."""
ROOM_STEPS = 36
"""Steps for each room looked in: the walk in to its viewpoint and the scan."""


def _metres(grid: Grid, field: Field, point: tuple[float, float]) -> float:
    return float(sample(grid, field, np.array([point[0]]), np.array([point[1]]))[0])


def search_tour(
    grid: Grid, house: HouseSpec, start: tuple[float, float], rooms: Sequence[int]
) -> list[tuple[int, int]]:
    """(room, steps when its scan ends) in the order a words-only search looks in `rooms`: nearest first, from
    where it stands each time (the viewpoint of the room it scanned last)."""
    here, steps, left, tour = start, 0.0, list(rooms), []
    while left:
        costs = {room: _metres(grid, view_field(grid, house, room), here) for room in left}
        room = min(left, key=lambda r: (costs[r], r))
        steps += PATH_FACTOR * costs[room] / STEP_M + ROOM_STEPS
        tour.append((room, round(steps)))
        here = room_viewpoint(grid, house, room)
        left.remove(room)
    return tour


def delivery_steps(grid: Grid, house: HouseSpec, start: tuple[float, float], goal_rooms: Sequence[int]) -> int:
    """Steps from `start` (where the object was found) to the nearest goal room."""
    metres = min(_metres(grid, entry_field(grid, house, room), start) for room in goal_rooms)
    return round(PATH_FACTOR * metres / STEP_M)


def steps_if_found_in(
    grid: Grid, house: HouseSpec, tour: Sequence[tuple[int, int]], room: int, goal_rooms: Sequence[int]
) -> int:
    """The steps the search of `tour` needs when the object is in `room`: to the end of its scan there, then the
    delivery from that room's viewpoint."""
    scanned = dict(tour)[room]
    return scanned + delivery_steps(grid, house, room_viewpoint(grid, house, room), goal_rooms)


def words_only_steps(
    grid: Grid, house: HouseSpec, start: tuple[float, float], rooms: Sequence[int], goal_rooms: Sequence[int]
) -> int:
    """The steps a words-only search needs when the object is in the last of `rooms` it looks in."""
    tour = search_tour(grid, house, start, rooms)
    return steps_if_found_in(grid, house, tour, tour[-1][0], goal_rooms)


def words_reach_every_room(
    grid: Grid, house: HouseSpec, start: tuple[float, float], rooms: Sequence[int], goal_rooms: Sequence[int]
) -> bool:
    """Whether the words alone leave time to look in every fitting room and deliver (then the task is dropped)."""
    return words_only_steps(grid, house, start, rooms, goal_rooms) <= MAX_STEPS
