"""Hand-built household episodes in which the human's behaviour decides where to go (for the situated control).

A row of 3.5 m square rooms joined by doors on the centre line (y = 2.25 m), furniture against the north and
south walls so that the line of doors stays free. The premap comes from the real frontier explorer and L_oracle
from the real oracle (`generate.explore_house`, `generate.with_oracle`), as for generated episodes.

- `s_hum_two_bathrooms`: the agent and the cup are in the kitchen (room 2); bathrooms are room 0 (two rooms
  west) and room 6 (four rooms east). The human starts in view and walks east to room 6 saying "I will be taking
  a bath": the words fit both bathrooms, the nearer is the wrong one, the walk shows the right one.
- `s_obj_human_in_view`: the agent starts in the living room (room 1) facing east; the human said it took the cup
  with it and is washing its hands (bathrooms 0 and 2, room 0 the nearer). Through the doorway the agent sees the
  human standing in room 2, but not the cup, which lies on the bathtub in room 2's far corner.
"""

from __future__ import annotations

from functools import lru_cache

from heedful.sims.household.model import DoorSpec, HouseSpec, ObjectSpec, ReceptacleSpec, Rect, RoomSpec
from heedful.suites.household import language as lang
from heedful.suites.household.generate import explore_house, with_oracle
from heedful.suites.household.model import Goal, HouseholdEpisode, HumanSpec, Relocation
from heedful.suites.household.tasks import room_facts, spec_of

SIDE = 3.5
MARGIN = 0.5
CENTRE_Y = MARGIN + SIDE / 2
CELL = 0.1

Furniture = tuple[tuple[str, str], ...]
"""(category, "north" or "south") pieces of one room, placed from the room's west side eastwards."""


def _room_x0(index: int) -> float:
    return MARGIN + SIDE * index


def _receptacles(rooms: tuple[tuple[str, Furniture], ...]) -> tuple[ReceptacleSpec, ...]:
    out: list[ReceptacleSpec] = []
    for index, (_, furniture) in enumerate(rooms):
        placed = {"north": 0, "south": 0}
        for category, wall in furniture:
            x0 = _room_x0(index) + 0.3 + 1.1 * placed[wall]  # 0.9 m pieces side by side along the wall
            placed[wall] += 1
            y0 = MARGIN + 0.15 if wall == "south" else MARGIN + SIDE - 0.75
            rect = Rect(x0=round(x0, 3), y0=y0, x1=round(x0 + 0.9, 3), y1=round(y0 + 0.6, 3))
            out.append(ReceptacleSpec(id=f"r{len(out)}", category=category, room=index, rect=rect))
    return tuple(out)


def row_house(house_id: str, rooms: tuple[tuple[str, Furniture], ...], objects: tuple[ObjectSpec, ...]) -> HouseSpec:
    """A row of rooms (function, furniture) with the given objects (ids o0, o1, ... on receptacles r0, r1, ...)."""
    specs = tuple(
        RoomSpec(
            index=k,
            rect=Rect(x0=_room_x0(k), y0=MARGIN, x1=_room_x0(k) + SIDE, y1=MARGIN + SIDE),
            function=function,
            wall_colour=("yellow", "blue", "green", "white", "grey", "red", "beige")[k],
        )
        for k, (function, _) in enumerate(rooms)
    )
    doors = tuple(
        DoorSpec(
            rooms=(k, k + 1),
            rect=Rect(x0=_room_x0(k + 1) - 0.125, y0=CENTRE_Y - 0.5, x1=_room_x0(k + 1) + 0.125, y1=CENTRE_Y + 0.5),
        )
        for k in range(len(rooms) - 1)
    )
    return HouseSpec(
        house_id=house_id,
        seed=0,
        margin=MARGIN,
        width=SIDE * len(rooms),
        depth=SIDE,
        wall_thickness=0.15,
        door_width=1.0,
        rooms=specs,
        doors=doors,
        receptacles=_receptacles(rooms),
        objects=objects,
    )


def _on(house_rooms: tuple[tuple[str, Furniture], ...], oid: str, category: str, rid: str) -> ObjectSpec:
    rec = _receptacles(house_rooms)[int(rid[1:])]
    x, y = rec.rect.center
    return ObjectSpec(id=oid, category=category, receptacle=rid, x=round(x, 3), y=round(y, 3))


def _episode(house: HouseSpec, episode_id: str, **fields: object) -> HouseholdEpisode:
    _, premap = explore_house(house, CELL, seed=0)
    draft = HouseholdEpisode(
        episode_id=episode_id,
        split="test_unseen",
        house_id=house.house_id,
        premap=premap,
        cell_m=CELL,
        oracle_steps=0,
        oracle_actions=(),
        house=house,
        **fields,  # type: ignore[arg-type]
    )
    return with_oracle(draft)


S_HUM_ROOMS: tuple[tuple[str, Furniture], ...] = (
    ("bathroom", (("toilet", "north"), ("bathtub", "south"))),
    ("living room", (("couch", "north"), ("table", "south"))),
    ("kitchen", (("counter", "north"), ("fridge", "south"))),
    ("bedroom", (("bed", "north"), ("cabinet", "south"))),
    ("dining room", (("table", "north"), ("chair", "south"))),
    ("garage", (("shelves", "north"), ("bench", "south"))),
    ("bathroom", (("toilet", "north"), ("bathtub", "south"))),
)


@lru_cache(maxsize=1)
def s_hum_two_bathrooms() -> HouseholdEpisode:
    """Bring the cup to a human who walks to the farther of two bathrooms (see the module docstring)."""
    cup = _on(S_HUM_ROOMS, "o0", "cup", "r4")  # on the kitchen counter
    house = row_house("row-s_hum", S_HUM_ROOMS, (cup,))
    place = lang.Place("doing", function="bathroom", activity="taking a bath")
    destination = (_room_x0(6) + SIDE / 2, CENTRE_Y)
    return _episode(
        house,
        "row-s_hum-ambiguous",
        task_type="s_hum",
        ambiguous=True,
        instruction=lang.bring_instruction("cup"),
        communication=(),
        target_category="cup",
        goal=Goal(kind="human"),
        candidate_rooms=lang.rooms_fitting(place, room_facts(house)),
        relocations=(),
        agent_start=(_room_x0(2) + 1.0, CENTRE_Y, 0),
        human=HumanSpec(
            start=(_room_x0(2) + 3.0, CENTRE_Y),
            destination=destination,
            destination_room=6,
            place=spec_of(place),
            statement=lang.will_be_statement(place),
        ),
    )


S_OBJ_ROOMS: tuple[tuple[str, Furniture], ...] = (
    ("bathroom", (("toilet", "north"), ("counter", "south"))),
    ("living room", (("couch", "north"), ("table", "south"))),
    ("bathroom", (("toilet", "north"), ("counter", "south"), ("cabinet", "north"), ("bathtub", "south"))),
    ("bedroom", (("bed", "north"), ("cabinet", "south"))),
    ("kitchen", (("counter", "north"), ("fridge", "south"))),
)


@lru_cache(maxsize=1)
def s_obj_human_in_view() -> HouseholdEpisode:
    """Find the cup the human took with it into the farther of two bathrooms (see the module docstring)."""
    cup = _on(S_OBJ_ROOMS, "o0", "cup", "r8")  # on the bed, where exploration saw it
    house = row_house("row-s_obj", S_OBJ_ROOMS, (cup,))
    bathtub = house.receptacle("r7")
    place = lang.Place("doing", function="bathroom", activity="washing my hands")
    x, y = round(bathtub.rect.x1 - 0.2, 3), round(bathtub.rect.center[1], 3)
    moved = Relocation(
        object_id="o0",
        category="cup",
        from_receptacle="r8",
        to_receptacle=bathtub.id,
        x=x,
        y=y,
        place=spec_of(place),
        statement=lang.moved_statement("cup", place),
        candidate_rooms=lang.rooms_fitting(place, room_facts(house)),
    )
    return _episode(
        house,
        "row-s_obj-ambiguous",
        task_type="s_obj",
        ambiguous=True,
        instruction=lang.put_on_instruction("cup", "couch"),
        communication=(moved.statement,),
        target_category="cup",
        goal=Goal(kind="receptacle", receptacle="couch"),
        candidate_rooms=moved.candidate_rooms,
        relocations=(moved,),
        agent_start=(_room_x0(1) + 0.5, CENTRE_Y, 0),
        human=HumanSpec(start=(_room_x0(2) + 0.6, CENTRE_Y)),
    )
