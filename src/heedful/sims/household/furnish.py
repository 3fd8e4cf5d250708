"""Furniture (receptacles) placed by room function, and graspable objects placed on receptacles.

Pieces stand against a wall (tables stand free), keep a passage to each other and never block a doorway.
Objects rest on receptacles, with light category affinities (plates on counters and tables, shoes near
benches and beds, ...) so that common sense about where things are is informative but not decisive.
"""

from __future__ import annotations

import numpy as np

from heedful.sims.household.model import DoorSpec, ObjectSpec, ReceptacleSpec, Rect, RoomSpec
from heedful.sims.household.vocab import FREESTANDING, FURNITURE, OBJECT_CATEGORIES, SIZES

PASSAGE = 0.75
"""Minimum gap between two pieces of furniture (the robot plans with a 0.3 m radius)."""

DOOR_KEEPOUT = 1.1
"""Depth of the area in front of a door (on both sides) kept free of furniture."""

WALL_GAP = 0.02
PLACEMENT_TRIES = 40
OBJECT_INSET = 0.1
OBJECT_SPACING = 0.25

AFFINITY: dict[str, frozenset[str]] = {
    "basket": frozenset({"shelves", "bench", "counter", "cabinet"}),
    "book": frozenset({"shelves", "table", "bed", "couch"}),
    "bowl": frozenset({"counter", "table", "fridge", "cabinet"}),
    "cup": frozenset({"counter", "table", "cabinet"}),
    "hat": frozenset({"shelves", "bench", "bed", "chair"}),
    "plate": frozenset({"counter", "table", "cabinet"}),
    "shoe": frozenset({"bench", "bed", "chair", "shelves"}),
    "stuffed_toy": frozenset({"bed", "couch", "chair", "shelves"}),
}


def _keepouts(room: RoomSpec, doors: tuple[DoorSpec, ...] | list[DoorSpec]) -> list[Rect]:
    zones = []
    for door in doors:
        if room.index not in door.rooms:
            continue
        r = door.rect
        if r.width < r.height:  # door in a vertical wall
            zones.append(Rect(x0=r.x0 - DOOR_KEEPOUT, y0=r.y0 - 0.3, x1=r.x1 + DOOR_KEEPOUT, y1=r.y1 + 0.3))
        else:
            zones.append(Rect(x0=r.x0 - 0.3, y0=r.y0 - DOOR_KEEPOUT, x1=r.x1 + 0.3, y1=r.y1 + DOOR_KEEPOUT))
    return zones


def _candidate(rng: np.random.Generator, category: str, inner: Rect) -> Rect | None:
    length, depth = SIZES[category]
    if category in FREESTANDING:
        w, h = (length, depth) if rng.random() < 0.5 else (depth, length)
        lo_x, hi_x = inner.x0 + PASSAGE, inner.x1 - PASSAGE - w
        lo_y, hi_y = inner.y0 + PASSAGE, inner.y1 - PASSAGE - h
        if hi_x < lo_x or hi_y < lo_y:
            return None
        x, y = float(rng.uniform(lo_x, hi_x)), float(rng.uniform(lo_y, hi_y))
        return Rect(x0=x, y0=y, x1=x + w, y1=y + h)
    side = int(rng.integers(4))
    w, h = (length, depth) if side in (0, 1) else (depth, length)
    if w > inner.width or h > inner.height:
        return None
    if side in (0, 1):  # against the south (0) or north (1) wall
        x = float(rng.uniform(inner.x0, inner.x1 - w))
        y = inner.y0 + WALL_GAP if side == 0 else inner.y1 - WALL_GAP - h
    else:  # against the west (2) or east (3) wall
        y = float(rng.uniform(inner.y0, inner.y1 - h))
        x = inner.x0 + WALL_GAP if side == 2 else inner.x1 - WALL_GAP - w
    return Rect(x0=x, y0=y, x1=x + w, y1=y + h)


def furnish_room(
    rng: np.random.Generator,
    room: RoomSpec,
    doors: tuple[DoorSpec, ...] | list[DoorSpec],
    thickness: float,
    first_id: int,
) -> list[ReceptacleSpec]:
    """Receptacles of one room, drawn from the function's priors; required pieces get more tries."""
    half = thickness / 2
    r = room.rect
    inner = Rect(x0=r.x0 + half, y0=r.y0 + half, x1=r.x1 - half, y1=r.y1 - half)
    keepouts = _keepouts(room, doors)
    placed: list[ReceptacleSpec] = []
    for category, probability in FURNITURE[room.function]:
        if probability < 1.0 and rng.random() >= probability:
            continue
        for _ in range(PLACEMENT_TRIES * (3 if probability >= 1.0 else 1)):
            rect = _candidate(rng, category, inner)
            if rect is None:
                break
            if any(rect.overlaps(z) for z in keepouts) or any(rect.overlaps(p.rect, PASSAGE) for p in placed):
                continue
            rid = f"r{first_id + len(placed)}"
            placed.append(ReceptacleSpec(id=rid, category=category, room=room.index, rect=_rounded(rect)))
            break
    return placed


def _rounded(rect: Rect) -> Rect:
    return Rect(x0=round(rect.x0, 3), y0=round(rect.y0, 3), x1=round(rect.x1, 3), y1=round(rect.y1, 3))


def object_categories(rng: np.random.Generator, n_objects: int) -> list[str]:
    """Every category once, the rest drawn at random: some categories are unique, some repeat."""
    extra = [OBJECT_CATEGORIES[int(k)] for k in rng.integers(len(OBJECT_CATEGORIES), size=n_objects - 8)]
    return [*OBJECT_CATEGORIES, *extra]


def place_objects(
    rng: np.random.Generator, receptacles: list[ReceptacleSpec], categories: list[str]
) -> list[ObjectSpec]:
    """Put each object on a receptacle chosen with category affinities."""
    objects: list[ObjectSpec] = []
    for k, category in enumerate(categories):
        weights = np.array([3.0 if rec.category in AFFINITY[category] else 1.0 for rec in receptacles])
        for _ in range(PLACEMENT_TRIES):
            rec = receptacles[int(rng.choice(len(receptacles), p=weights / weights.sum()))]
            point = random_point_on(rng, rec.rect)
            if all((o.x - point[0]) ** 2 + (o.y - point[1]) ** 2 >= OBJECT_SPACING**2 for o in objects):
                objects.append(ObjectSpec(id=f"o{k}", category=category, receptacle=rec.id, x=point[0], y=point[1]))
                break
    return objects


def random_point_on(rng: np.random.Generator, rect: Rect) -> tuple[float, float]:
    """A point on the receptacle's surface, `OBJECT_INSET` from its edges."""
    inset = min(OBJECT_INSET, rect.width / 2 - 0.01, rect.height / 2 - 0.01)
    x = float(rng.uniform(rect.x0 + inset, rect.x1 - inset))
    y = float(rng.uniform(rect.y0 + inset, rect.y1 - inset))
    return (round(x, 3), round(y, 3))
