"""Hand-made houses with known geometry for the household simulator tests."""

from __future__ import annotations

from heedful.sims.household.grid import Grid, grid_for
from heedful.sims.household.human import HumanPath, standing
from heedful.sims.household.model import DoorSpec, HouseSpec, ObjectSpec, ReceptacleSpec, Rect, RoomSpec
from heedful.sims.household.sim import HouseSim, ObjectState, Pose

CELL = 0.1


def row_house(
    n_rooms: int = 2,
    room_width: float = 4.0,
    receptacles: tuple[ReceptacleSpec, ...] = (),
    objects: tuple[ObjectSpec, ...] = (),
) -> HouseSpec:
    """Rooms in a row along x, each `room_width` x 4 m, doors (y 2.0-3.0) in every inner wall.

    Room k spans x in [0.5 + k w, 0.5 + (k + 1) w], y in [0.5, 4.5]; the wall between rooms k and k+1
    stands at x = 0.5 + (k + 1) w, 0.15 m thick.
    """
    rooms = []
    for k in range(n_rooms):
        x0 = 0.5 + k * room_width
        rect = Rect(x0=x0, y0=0.5, x1=x0 + room_width, y1=4.5)
        rooms.append(RoomSpec(index=k, rect=rect, function="living room", wall_colour=f"c{k}"))
    doors = []
    for k in range(n_rooms - 1):
        x = 0.5 + (k + 1) * room_width
        doors.append(DoorSpec(rooms=(k, k + 1), rect=Rect(x0=x - 0.125, y0=2.0, x1=x + 0.125, y1=3.0)))
    return HouseSpec(
        house_id="row",
        seed=0,
        margin=0.5,
        width=n_rooms * room_width,
        depth=4.0,
        wall_thickness=0.15,
        door_width=1.0,
        rooms=tuple(rooms),
        doors=tuple(doors),
        receptacles=receptacles,
        objects=objects,
    )


def table_house() -> HouseSpec:
    """Two rooms; a table in room 0 with a cup on it, a bench in room 1 with a book against the wall."""
    table = ReceptacleSpec(id="r0", category="table", room=0, rect=Rect(x0=3.0, y0=3.6, x1=4.0, y1=4.3))
    bench = ReceptacleSpec(id="r1", category="bench", room=1, rect=Rect(x0=4.6, y0=0.6, x1=5.0, y1=1.8))
    cup = ObjectSpec(id="o0", category="cup", receptacle="r0", x=3.5, y=4.0)
    book = ObjectSpec(id="o1", category="book", receptacle="r1", x=4.8, y=1.0)
    return row_house(receptacles=(table, bench), objects=(cup, book))


def grid_of(house: HouseSpec) -> Grid:
    return grid_for(house, CELL)


def sim_in(house: HouseSpec, x: float, y: float, heading: int, human: HumanPath | None = None) -> HouseSim:
    objects = [ObjectState(o.id, o.category, o.x, o.y, o.receptacle) for o in house.objects]
    return HouseSim(house, grid_of(house), objects, Pose(x, y, heading), human or standing(-5.0, -5.0))
