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
from heedful.sims.household.vision import RANGE_M
from heedful.sims.household.vocab import FURNITURE

MARGIN = 0.5
WALL_THICKNESS = 0.15
DOOR_WIDTH = 1.0
REACH_NAV = 1.3
"""Planner-free cells this close to a receptacle count as places to reach it from (grab / put reach 2 m)."""

VIEW_REACH = RANGE_M - 0.2
"""Every receptacle lies this close to its room's viewpoint, so one look around sees all of it."""

MIN_ROOMS, MAX_ROOMS = 9, 14
"""Rooms per house: the paper's larger example houses (8 and 9 rooms, Listings 2 and 4) and more, so that
functions repeat three or four times beside the four base functions (see `floorplan`); at most as many
rooms as there are wall colours."""
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


def room_viewpoint(grid: Grid, house: HouseSpec, room: int) -> tuple[float, float]:
    """The planner-free cell of `room` nearest to its centre (where Explore Room looks around).

    Raises:
        GenerationError: The room has no planner-free cell.
    """
    rows, cols = np.nonzero(grid.room_mask(room) & grid.plan_free)
    if rows.size == 0:
        raise GenerationError(f"room {room} has no free floor")
    cx, cy = house.rooms[room].rect.center
    xs, ys = (cols + 0.5) * grid.cell, (rows + 0.5) * grid.cell
    k = int(np.argmin((xs - cx) ** 2 + (ys - cy) ** 2))
    return (float(xs[k]), float(ys[k]))


def _farthest_corner(rect: Rect, x: float, y: float) -> float:
    return max(float(np.hypot(px - x, py - y)) for px in (rect.x0, rect.x1) for py in (rect.y0, rect.y1))


def _check_rooms(house: HouseSpec, grid: Grid, reachable: BoolArray, kept: list[ReceptacleSpec]) -> None:
    for room in house.rooms:
        in_room = grid.room == room.index
        free = (in_room & grid.plan_free).sum()
        if free == 0 or (in_room & reachable).sum() < 0.7 * free:
            raise GenerationError(f"room {room.index} ({room.function}) is mostly unreachable")
        # Explore Room looks around from the viewpoint: every piece of furniture must lie within sight range
        vx, vy = room_viewpoint(grid, house, room.index)
        if any(_farthest_corner(rec.rect, vx, vy) > VIEW_REACH for rec in kept if rec.room == room.index):
            raise GenerationError(f"room {room.index} ({room.function}) is too long to scan from its middle")
        have = {rec.category for rec in kept if rec.room == room.index}
        required = {cat for cat, p in FURNITURE[room.function] if p >= 1.0}
        if not required <= have:
            raise GenerationError(f"room {room.index} ({room.function}) lacks {sorted(required - have)}")
