"""Known answers for "walking towards" (Appendix 0.C.3) in a row of four 3 m rooms."""

from __future__ import annotations

import pytest

from heedful.sims.household.fields import distance_field
from heedful.sims.household.grid import grid_for
from heedful.sims.household.model import DoorSpec, HouseSpec, Rect, RoomSpec
from heedful.suites.household.towards import expected_position, heading_for, walking_towards


def row_of_rooms() -> HouseSpec:
    rooms = tuple(
        RoomSpec(
            index=k, rect=Rect(x0=0.5 + 3 * k, y0=0.5, x1=3.5 + 3 * k, y1=3.5), function="bedroom", wall_colour=str(k)
        )
        for k in range(4)
    )
    doors = tuple(
        DoorSpec(rooms=(k, k + 1), rect=Rect(x0=3.4 + 3 * k, y0=1.5, x1=3.6 + 3 * k, y1=2.5)) for k in range(3)
    )
    return HouseSpec(
        house_id="row4",
        seed=0,
        margin=0.5,
        width=12.0,
        depth=3.0,
        wall_thickness=0.15,
        door_width=1.0,
        rooms=rooms,
        doors=doors,
        receptacles=(),
        objects=(),
    )


GRID = grid_for(row_of_rooms(), 0.1)


def eastward(steps: int, start: float = 2.0) -> list[tuple[int, float, float]]:
    return [(t, start + 0.1 * t, 2.0) for t in range(steps + 1)]


def test_walking_east_points_at_the_rooms_beyond_the_expected_position() -> None:
    track = eastward(30)  # from x = 2.0 to 5.0 in 30 steps
    point, direction = expected_position(track) or ((0.0, 0.0), (0.0, 0.0))
    assert point == pytest.approx((6.0, 2.0))  # 3 m over 30 steps, extended by 10 steps
    assert direction == pytest.approx((3.0, 0.0))
    # room 1 spans x 3.5-6.5: only its last sixth lies beyond x = 6.0
    assert walking_towards(GRID, track, 4) == (2, 3)


def test_walking_west_from_the_far_end() -> None:
    track = [(t, 12.0 - 0.1 * t, 2.0) for t in range(31)]  # x from 12.0 to 9.0; expected at 8.0
    assert walking_towards(GRID, track, 4) == (0, 1)


def test_walking_north_inside_one_room_lists_no_room() -> None:
    track = [(t, 5.0, 0.8 + 0.06 * t) for t in range(31)]  # 1.8 m north; the plane y = 3.2 cuts no room in half
    assert walking_towards(GRID, track, 4) == ()


def test_too_short_or_too_still_a_track_says_nothing() -> None:
    assert walking_towards(GRID, eastward(29), 4) == ()  # seen for fewer than 30 steps
    assert walking_towards(GRID, [(t, 5.0 + 0.01 * t, 2.0) for t in range(40)], 4) == ()  # moved 0.3 m
    assert walking_towards(GRID, [], 4) == ()


def test_uses_the_sighting_30_steps_before_the_last() -> None:
    # seen at 0-10 walking east, then again at 40-50 walking west: the direction is 10 -> 50
    track = [(t, 2.0 + 0.1 * t, 2.0) for t in range(11)] + [(t, 9.0 - 0.1 * (t - 40), 2.0) for t in range(40, 51)]
    point, direction = expected_position(track) or ((0.0, 0.0), (0.0, 0.0))
    assert direction == pytest.approx((8.0 - 3.0, 0.0))
    assert point == pytest.approx((8.0 + 5.0 * 10 / 40, 2.0))


def _room_fields() -> list:
    return [distance_field(GRID, GRID.room == k) for k in range(4)]


def test_heading_for_lists_the_rooms_whose_path_distance_shrank_by_most_of_the_walk() -> None:
    fields = _room_fields()
    # 3 m east from room 0 into room 1: rooms 2 and 3 came 3 m nearer; room 1 only ~1.5 m (the walk entered it)
    assert heading_for(GRID, eastward(30), fields) == (2, 3)
    # 3 m west from x = 12 to 9, out of room 3 into room 2, whose edge (x = 9.5) was 2.5 m away: >= 0.8 x 3 m
    assert heading_for(GRID, [(t, 12.0 - 0.1 * t, 2.0) for t in range(31)], fields) == (0, 1, 2)
    # a walk that turned back points at nothing, however long it was
    there_and_back = eastward(20) + [(20 + t, 4.0 - 0.1 * t, 2.0) for t in range(1, 21)]
    assert heading_for(GRID, there_and_back, fields) == ()


def test_heading_for_needs_half_a_metre_of_walk() -> None:
    fields = _room_fields()
    assert heading_for(GRID, [(t, 5.0 + 0.01 * t, 2.0) for t in range(40)], fields) == ()  # 0.39 m
    assert heading_for(GRID, [(0, 2.0, 2.0)], fields) == ()
    assert heading_for(GRID, [], fields) == ()
    # unlike walking_towards, it does not need 30 steps of track: 1 m in 10 steps is enough
    assert heading_for(GRID, eastward(10), fields) == (1, 2, 3)
