"""The human walker: 0.08 m per step along a shortest path, deterministic, stopping at the destination."""

from __future__ import annotations

import math

import pytest
from household_world import grid_of, row_house

from heedful.errors import GenerationError
from heedful.sims.household.human import HUMAN_SPEED, HumanPath, plan_walk, standing


def test_position_along_a_straight_path() -> None:
    path = HumanPath(points=((0.0, 0.0), (1.0, 0.0)))
    assert HUMAN_SPEED == 0.08
    assert path.position(0) == (0.0, 0.0)
    assert path.position(5) == pytest.approx((0.4, 0.0))
    assert path.arrival_step == 13  # 1.0 m / 0.08 m per step = 12.5
    assert path.position(12) == pytest.approx((0.96, 0.0))
    assert path.position(13) == (1.0, 0.0)
    assert path.position(500) == (1.0, 0.0)


def test_position_turns_corners_at_constant_speed() -> None:
    path = HumanPath(points=((0.0, 0.0), (0.1, 0.0), (0.1, 1.0)))
    assert path.position(2) == pytest.approx((0.1, 0.06))
    assert path.length == pytest.approx(1.1)


def test_walk_through_a_door_is_straight_and_deterministic() -> None:
    grid = grid_of(row_house())
    walk = plan_walk(grid, (1.5, 2.5), (7.5, 2.5))
    assert walk == plan_walk(grid, (1.5, 2.5), (7.5, 2.5))
    assert walk.length == pytest.approx(6.0, abs=0.15)
    x, y = walk.position(25)
    assert x == pytest.approx(1.5 + 25 * 0.08, abs=0.05) and y == pytest.approx(2.5, abs=0.1)
    assert walk.destination == (7.5, 2.5)


def test_walk_around_a_wall_goes_through_the_door() -> None:
    grid = grid_of(row_house())
    walk = plan_walk(grid, (2.5, 1.0), (6.5, 1.0))
    assert walk.length > 4.0 + 0.5
    assert all(not grid.wall[grid.index(*walk.position(t))] for t in range(walk.arrival_step + 1))
    crossing = [walk.position(t) for t in range(walk.arrival_step + 1) if 4.4 < walk.position(t)[0] < 4.6]
    assert crossing and all(2.0 <= y <= 3.0 for _, y in crossing)


def test_standing_human_never_moves() -> None:
    human = standing(3.0, 2.0)
    assert human.position(0) == human.position(400) == (3.0, 2.0)
    assert human.arrival_step == 0


def test_unreachable_destination_is_an_error() -> None:
    with pytest.raises(GenerationError, match="cannot walk"):
        plan_walk(grid_of(row_house()), (1.5, 2.5), (0.0, 0.0))
    assert math.isfinite(HUMAN_SPEED)
