"""Known answers for the field of view (79 deg), the range limit (5 m) and occlusion by walls."""

from __future__ import annotations

import math

import numpy as np
from household_world import grid_of, row_house

from heedful.sims.household.vision import FOV_DEG, RANGE_M, in_view, view_cells


def sees(x: float, y: float, heading: int, px: float, py: float) -> bool:
    grid = grid_of(row_house())
    return bool(in_view(grid, x, y, heading, np.array([px]), np.array([py]))[0])


def test_point_ahead_is_seen_and_point_to_the_side_is_not() -> None:
    assert sees(2.5, 2.5, 0, 4.0, 2.5)
    assert not sees(2.5, 2.5, 0, 2.5, 4.0)  # 90 deg to the left
    assert not sees(2.5, 2.5, 0, 1.0, 2.5)  # behind
    assert sees(2.5, 2.5, 9, 2.5, 4.0)  # after turning 90 deg left


def test_field_of_view_edges() -> None:
    inside, outside = math.radians(FOV_DEG / 2 - 1), math.radians(FOV_DEG / 2 + 1)
    assert sees(2.5, 2.5, 0, 2.5 + 1.5 * math.cos(inside), 2.5 + 1.5 * math.sin(inside))
    assert sees(2.5, 2.5, 0, 2.5 + 1.5 * math.cos(-inside), 2.5 + 1.5 * math.sin(-inside))
    assert not sees(2.5, 2.5, 0, 2.5 + 1.5 * math.cos(outside), 2.5 + 1.5 * math.sin(outside))


def test_walls_occlude_and_doors_do_not() -> None:
    # the wall between the rooms stands at x = 4.5 with a door for y in [2.0, 3.0]
    assert sees(2.5, 2.5, 0, 6.5, 2.5)  # through the door
    assert not sees(2.5, 2.5, 0, 6.5, 1.2)  # the line crosses x = 4.5 at y = 1.85: wall
    assert not sees(2.5, 2.5, 0, 6.5, 4.0)  # crosses at y = 3.25: wall


def test_range_limit() -> None:
    assert RANGE_M == 5.0
    assert sees(0.8, 2.5, 0, 5.7, 2.5)  # 4.9 m
    assert not sees(0.8, 2.5, 0, 6.0, 2.5)  # 5.2 m


def test_view_cells_stop_at_walls() -> None:
    grid = grid_of(row_house())
    seen = np.zeros(grid.shape, dtype=bool)
    seen.ravel()[view_cells(grid, 2.5, 2.5, 0)] = True
    ahead, behind_wall, behind_agent = grid.index(4.0, 2.5), grid.index(6.0, 1.0), grid.index(1.0, 2.5)
    through_door = grid.index(6.0, 2.5)
    assert seen[ahead] and seen[through_door]
    assert not seen[behind_wall] and not seen[behind_agent]
    near_face, far_face = grid.index(4.44, 1.5), grid.index(4.56, 1.5)
    assert grid.wall[near_face] and grid.wall[far_face]
    assert seen[near_face] and not seen[far_face]  # the wall's near face is seen, not its far face
