"""Whether a household episode describes a world the simulator can hold: every receptacle, object, relocation,
goal and position inside the house and inside the vocabulary.

`dataset.inconsistency` runs this on every episode a dataset loads, so an edited number (an object moved off its
receptacle, a goal receptacle no house has) is refused with the field that is wrong, instead of becoming an
episode that is solved at step 0 or a parse error charged to the agent.
"""

from __future__ import annotations

from heedful.sims.household.model import HouseSpec
from heedful.sims.household.vocab import OBJECT_CATEGORIES, RECEPTACLES, ROOM_FUNCTIONS
from heedful.suites.household.model import HouseholdEpisode

ON_RECEPTACLE_TOLERANCE_M = 0.05
"""How far outside its receptacle's footprint an object may stand (rounding of the stored positions)."""


def placement_problem(ep: HouseholdEpisode) -> str | None:
    """The first thing of the episode that lies outside its house or the vocabulary, or None."""
    return _house_problem(ep.house) or _task_problem(ep)


def _house_problem(house: HouseSpec) -> str | None:
    rooms = {room.index for room in house.rooms}
    receptacles = {r.id: r for r in house.receptacles}
    for room in house.rooms:
        if room.function not in ROOM_FUNCTIONS:
            return f"room {room.index} has unknown function {room.function!r}"
    for r in house.receptacles:
        if r.category not in RECEPTACLES:
            return f"receptacle {r.id} has unknown category {r.category!r}; receptacles: {', '.join(RECEPTACLES)}"
        if r.room not in rooms:
            return f"receptacle {r.id} stands in room {r.room}, which the house lacks"
    for o in house.objects:
        if o.category not in OBJECT_CATEGORIES:
            return f"object {o.id} has unknown category {o.category!r}"
        if o.receptacle not in receptacles:
            return f"object {o.id} stands on receptacle {o.receptacle!r}, which the house lacks"
        if not receptacles[o.receptacle].rect.contains(o.x, o.y, inset=-ON_RECEPTACLE_TOLERANCE_M):
            return f"object {o.id} at ({o.x}, {o.y}) is not on its receptacle {o.receptacle}"
    return None


def _task_problem(ep: HouseholdEpisode) -> str | None:
    house = ep.house
    receptacles = {r.id: r for r in house.receptacles}
    objects = {o.id: o for o in house.objects}
    for i, moved in enumerate(ep.relocations):
        where = f"relocations[{i}]"
        if moved.object_id in objects and objects[moved.object_id].category != moved.category:
            return f"{where}: object {moved.object_id} is a {objects[moved.object_id].category}, not a {moved.category}"
        for name in (moved.from_receptacle, moved.to_receptacle):
            if name not in receptacles:
                return f"{where}: receptacle {name!r} is not in the house"
        if not receptacles[moved.to_receptacle].rect.contains(moved.x, moved.y, inset=-ON_RECEPTACLE_TOLERANCE_M):
            return f"{where}: ({moved.x}, {moved.y}) is not on receptacle {moved.to_receptacle}"
    goal = ep.goal
    if goal.kind == "receptacle":
        if goal.receptacle not in RECEPTACLES:
            return f"goal receptacle {goal.receptacle!r} is not in the vocabulary ({', '.join(RECEPTACLES)})"
        if all(r.category != goal.receptacle for r in house.receptacles):
            return f"goal receptacle {goal.receptacle!r}: the house has none"
    if goal.kind == "room":
        if goal.function not in ROOM_FUNCTIONS:
            return f"goal room {goal.function!r} is not a room function ({', '.join(ROOM_FUNCTIONS)})"
        if all(room.function != goal.function for room in house.rooms):
            return f"goal room {goal.function!r}: the house has none"
    points: dict[str, tuple[float, ...] | None] = {
        "agent_start": ep.agent_start[:2],
        "human.start": ep.human.start,
        "human.carried_from": ep.human.carried_from,
        "human.destination": ep.human.destination,
    }
    for name, point in points.items():
        if point is not None and not _inside(house, point[0], point[1]):
            return f"{name} ({point[0]}, {point[1]}) is outside every room and doorway of the house"
    return None


def _inside(house: HouseSpec, x: float, y: float) -> bool:
    return any(room.rect.contains(x, y) for room in house.rooms) or any(d.rect.contains(x, y) for d in house.doors)
