"""The geodesic planner: known distances and step counts, and a property test that no path crosses a wall."""

from __future__ import annotations

import itertools
import math

import numpy as np
from household_world import grid_of, row_house, sim_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heedful.sims.household.fields import disk, distance_field, sample, sample_point
from heedful.sims.household.grid import ROBOT_RADIUS, grid_for
from heedful.sims.household.house import generate_house, reachable_floor
from heedful.sims.household.human import standing
from heedful.sims.household.navigate import navigate
from heedful.sims.household.sim import STEP_M, HouseSim, Pose


def test_straight_distance_through_a_door() -> None:
    grid = grid_of(row_house())
    field = distance_field(grid, disk(grid, 7.5, 2.5, 0.15))
    value = float(sample(grid, field, np.array([1.5]), np.array([2.5]))[0])
    assert abs(value - (6.0 - 0.15)) < 0.12  # a straight line through the door's middle


def test_distance_around_a_wall_is_longer_than_the_straight_line() -> None:
    grid = grid_of(row_house())
    field = distance_field(grid, disk(grid, 6.5, 1.0, 0.15))
    value = float(sample(grid, field, np.array([2.5]), np.array([1.0]))[0])
    # the shortest way passes the door's lower jamb, kept 0.3 m away: about (4.2, 2.3) then down to the goal
    detour = math.dist((2.5, 1.0), (4.2, 2.3)) + math.dist((4.2, 2.3), (4.8, 2.3)) + math.dist((4.8, 2.3), (6.5, 1.0))
    assert 4.0 + 0.5 < value < detour + 0.3


def test_unreachable_goal_gives_an_infinite_field() -> None:
    grid = grid_of(row_house())
    field = distance_field(grid, disk(grid, 0.0, 0.0, 0.1))  # outside the house
    assert not np.isfinite(field).any()


def test_navigate_straight_takes_the_expected_steps() -> None:
    sim = sim_in(row_house(), 1.5, 2.5, 0)
    field = distance_field(sim.grid, disk(sim.grid, 7.5, 2.5, 0.15))
    assert navigate(sim, field) == "reached"
    ideal = (6.0 - 0.15) / STEP_M  # 34.4 forward steps; at most a small correction at the end
    assert math.ceil(ideal) - 1 <= sim.step <= math.ceil(ideal) + 2
    assert abs(sim.pose.y - 2.5) < 0.1


def test_navigate_turns_first_when_facing_away() -> None:
    sim = sim_in(row_house(), 1.5, 2.5, 18)  # facing west, the goal is east
    field = distance_field(sim.grid, disk(sim.grid, 3.5, 2.5, 0.15))
    assert navigate(sim, field) == "reached"
    assert 18 + math.ceil(1.85 / STEP_M) - 1 <= sim.step <= 18 + math.ceil(1.85 / STEP_M) + 2


def test_forward_into_a_wall_does_not_move() -> None:
    sim = sim_in(row_house(), 4.2, 1.0, 0)  # facing the wall at x = 4.5, 0.3 m away
    assert not sim.forward()
    assert (sim.pose.x, sim.pose.y, sim.step) == (4.2, 1.0, 1)


def _crosses_wall(sim: HouseSim, a: tuple[float, float], b: tuple[float, float]) -> bool:
    n = max(2, math.ceil(math.dist(a, b) / 0.01))
    t = np.linspace(0.0, 1.0, n)
    rr, cc, inside = sim.grid.indices(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
    return bool((~inside).any() or sim.grid.wall[rr, cc].any())


HOUSE = generate_house("house-prop", 7)
GRID = grid_for(HOUSE, 0.1)
CELLS = np.argwhere(reachable_floor(GRID) & (GRID.clearance >= 0.4))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.integers(0, len(CELLS) - 1),
    goal=st.integers(0, len(CELLS) - 1),
    heading=st.integers(0, 35),
)
def test_planner_paths_never_cross_a_wall(start: int, goal: int, heading: int) -> None:
    sx, sy = GRID.centre(*map(int, CELLS[start]))
    gx, gy = GRID.centre(*map(int, CELLS[goal]))
    sim = HouseSim(HOUSE, GRID, [], Pose(sx, sy, heading), standing(-5.0, -5.0), max_steps=2000)
    trail = [(sx, sy)]
    sim.listeners.append(lambda s, action, result: trail.append((s.pose.x, s.pose.y)))
    status = navigate(sim, distance_field(GRID, disk(GRID, gx, gy, 0.15)))
    assert status == "reached"
    assert math.dist((sim.pose.x, sim.pose.y), (gx, gy)) <= 0.15 + 0.1
    for a, b in itertools.pairwise(trail):
        assert not _crosses_wall(sim, a, b)
        assert GRID.clearance[GRID.index(*b)] >= ROBOT_RADIUS


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(x=st.floats(-1.0, 10.0), y=st.floats(-1.0, 6.0))
def test_sampling_one_point_equals_the_vector_sample_to_the_last_bit(x: float, y: float) -> None:
    # sample_point is the navigation loop's fast path: any difference would change generated datasets
    grid = grid_of(row_house())
    field = distance_field(grid, disk(grid, 7.5, 2.5, 0.15))
    vector = float(sample(grid, field, np.array([x]), np.array([y]))[0])
    point = sample_point(grid, field, x, y)
    assert point == vector or (math.isinf(point) and math.isinf(vector))
