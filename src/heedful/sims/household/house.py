"""Generate a whole house: floor plan, furniture, objects, checked for reachability on the grid."""

from __future__ import annotations

import numpy as np

from heedful.errors import GenerationError
from heedful.seeding import derive_rng
from heedful.sims.household.fields import distance_field
from heedful.sims.household.floorplan import assign_rooms, choose_functions, place_doors, split_footprint
from heedful.sims.household.furnish import furnish_room, object_categories, place_objects
from heedful.sims.household.grid import BoolArray, Grid, rasterize
from heedful.sims.household.model import HouseSpec, ReceptacleSpec, Rect
from heedful.sims.household.vocab import FURNITURE

MARGIN = 0.5
WALL_THICKNESS = 0.15
DOOR_WIDTH = 1.0
REACH_NAV = 1.3
"""Planner-free cells this close to a receptacle count as places to reach it from (grab / put reach 2 m)."""

MIN_ROOMS, MAX_ROOMS = 5, 10
HOUSE_TRIES = 30


def generate_house(house_id: str, seed: int, cell: float = 0.1, n_rooms: int | None = None) -> HouseSpec:
    """A valid house for `seed`: every room and receptacle reachable by the robot.

    Raises:
        GenerationError: No valid house was found in HOUSE_TRIES attempts.
    """
    problems: list[str] = []
    for attempt in range(HOUSE_TRIES):
        rng = derive_rng(seed, "house", house_id, attempt)
        rooms_wanted = n_rooms if n_rooms is not None else int(rng.integers(MIN_ROOMS, MAX_ROOMS + 1))
        try:
            return _attempt(rng, house_id, seed, rooms_wanted, cell)
        except GenerationError as exc:
            problems.append(str(exc))
    raise GenerationError(
        f"no valid house {house_id} for seed {seed} in {HOUSE_TRIES} tries; last problems: {problems[-3:]}"
    )


def _attempt(rng: np.random.Generator, house_id: str, seed: int, n_rooms: int, cell: float) -> HouseSpec:
    width, depth, rects = split_footprint(rng, n_rooms)
    rooms = assign_rooms(rng, rects, choose_functions(rng, n_rooms), MARGIN)
    doors = place_doors(rng, [r.rect for r in rooms], DOOR_WIDTH, WALL_THICKNESS)
    receptacles: list[ReceptacleSpec] = []
    for room in rooms:
        receptacles.extend(furnish_room(rng, room, doors, WALL_THICKNESS, len(receptacles)))
    draft = HouseSpec(
        house_id=house_id,
        seed=seed,
        margin=MARGIN,
        width=width,
        depth=depth,
        wall_thickness=WALL_THICKNESS,
        door_width=DOOR_WIDTH,
        rooms=tuple(rooms),
        doors=tuple(doors),
        receptacles=tuple(receptacles),
        objects=(),
    )
    grid = rasterize(draft, cell)
    reachable = reachable_floor(grid)
    kept = [rec for rec in receptacles if reach_cells(grid, rec.rect, rec.room, reachable).any()]
    _check_rooms(draft, grid, reachable, kept)
    kept = [rec.model_copy(update={"id": f"r{k}"}) for k, rec in enumerate(kept)]
    draft = draft.model_copy(update={"receptacles": tuple(kept)})
    objects = place_objects(rng, kept, object_categories(rng, int(rng.integers(10, 17))))
    return draft.model_copy(update={"objects": tuple(objects)})


def reachable_floor(grid: Grid) -> BoolArray:
    """Planner-free room cells connected to the first one (all of them in a valid house)."""
    free = grid.plan_free & (grid.room >= 0)
    if not free.any():
        raise GenerationError("the house has no free floor")
    rows, cols = np.nonzero(free)
    seed_mask = np.zeros(grid.shape, dtype=bool)
    seed_mask[rows[0], cols[0]] = True
    reach: BoolArray = np.isfinite(distance_field(grid, seed_mask))
    return reach


def reach_cells(grid: Grid, rect: Rect, room: int, reachable: BoolArray, radius: float = REACH_NAV) -> BoolArray:
    """Reachable planner-free cells of `room` within `radius` of the rectangle."""
    gx, gy = grid.centres()
    dx = np.maximum(np.maximum(rect.x0 - gx, 0.0), gx - rect.x1)
    dy = np.maximum(np.maximum(rect.y0 - gy, 0.0), gy - rect.y1)
    mask: BoolArray = (dx * dx + dy * dy <= radius * radius) & (grid.room == room) & reachable
    return mask


def _check_rooms(house: HouseSpec, grid: Grid, reachable: BoolArray, kept: list[ReceptacleSpec]) -> None:
    for room in house.rooms:
        in_room = grid.room == room.index
        free = (in_room & grid.plan_free).sum()
        if free == 0 or (in_room & reachable).sum() < 0.7 * free:
            raise GenerationError(f"room {room.index} ({room.function}) is mostly unreachable")
        have = {rec.category for rec in kept if rec.room == room.index}
        required = {cat for cat, p in FURNITURE[room.function] if p >= 1.0}
        if not required <= have:
            raise GenerationError(f"room {room.index} ({room.function}) lacks {sorted(required - have)}")
