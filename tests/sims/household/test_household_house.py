"""Procedural houses: room counts, functions, furniture by function, objects, determinism, PNG export."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from heedful.errors import ConfigError
from heedful.sims.household.floorplan import DOOR_END_MARGIN, shared_wall
from heedful.sims.household.grid import grid_for, rasterize
from heedful.sims.household.house import DOOR_WIDTH, generate_house, reachable_floor
from heedful.sims.household.model import HouseSpec
from heedful.sims.household.render import save_house_png
from heedful.sims.household.vocab import FURNITURE, OBJECT_CATEGORIES, ROOM_FUNCTIONS

HOUSES = [generate_house(f"house-{i:02d}", 0) for i in range(10)]


def test_room_counts_and_functions() -> None:
    for house in HOUSES:
        assert 9 <= len(house.rooms) <= 14
        functions = [room.function for room in house.rooms]
        assert set(functions) <= set(ROOM_FUNCTIONS)
        assert {"living room", "kitchen", "bedroom", "bathroom"} <= set(functions)
        assert len({room.wall_colour for room in house.rooms}) == len(house.rooms)
    most = [max(Counter(r.function for r in h.rooms).values()) for h in HOUSES]
    assert min(most) >= 2 and sum(m >= 3 for m in most) >= 7  # three or more rooms of one function, mostly


def test_required_furniture_and_objects() -> None:
    for house in HOUSES:
        for room in house.rooms:
            have = {r.category for r in house.receptacles_in(room.index)}
            assert {c for c, p in FURNITURE[room.function] if p >= 1.0} <= have
        categories = Counter(o.category for o in house.objects)
        assert set(categories) == set(OBJECT_CATEGORIES)
        assert 10 <= len(house.objects) <= 16
        for obj in house.objects:
            assert house.receptacle(obj.receptacle).rect.contains(obj.x, obj.y)


def test_every_room_and_receptacle_is_reachable() -> None:
    for house in HOUSES[:4]:
        grid = grid_for(house, 0.1)
        reach = reachable_floor(grid)
        for room in house.rooms:
            assert (reach & (grid.room == room.index)).any()


def _hops(n: int, edges: set[tuple[int, int]], start: int) -> list[int]:
    """Doors (edges) from `start` to each room by breadth-first search; -1 where none leads."""
    hops, ring = [-1] * n, [start]
    hops[start] = 0
    while ring:
        after = []
        for a in ring:
            for b in range(n):
                if hops[b] < 0 and (min(a, b), max(a, b)) in edges:
                    hops[b] = hops[a] + 1
                    after.append(b)
        ring = after
    return hops


def _walls(house: HouseSpec) -> set[tuple[int, int]]:
    """The room pairs whose shared wall a door fits in."""
    rooms, found = house.rooms, set()
    for a in rooms:
        for b in rooms[a.index + 1 :]:
            wall = shared_wall(a.rect, b.rect)
            if wall is not None and wall[3] - wall[2] >= DOOR_WIDTH + 2 * DOOR_END_MARGIN:
                found.add((a.index, b.index))
    return found


def test_doors_are_a_breadth_first_tree_from_the_hub() -> None:
    # sif-v6 (issue 40): every room hangs off the hub along the fewest doors its walls allow, without loops
    for house in HOUSES:
        n, doors = len(house.rooms), {d.rooms for d in house.doors}
        walls = _walls(house)
        assert len(doors) == n - 1 and doors <= walls
        by_doors = [_hops(n, doors, hub) for hub in range(n)]
        assert all(h >= 0 for h in by_doors[0])  # connected: a tree
        hub = max(range(n), key=lambda k: (sum(k in pair for pair in walls), house.rooms[k].rect.area))
        assert by_doors[hub] == _hops(n, walls, hub)


def test_same_seed_same_house_other_seed_other_house() -> None:
    assert generate_house("house-03", 0).model_dump_json() == HOUSES[3].model_dump_json()
    assert generate_house("house-03", 1).model_dump_json() != HOUSES[3].model_dump_json()


def test_grid_layers() -> None:
    house = HOUSES[0]
    grid = grid_for(house, 0.1)
    assert grid.shape == (int(np.ceil(house.extent[1] / 0.1)), int(np.ceil(house.extent[0] / 0.1)))
    for rec in house.receptacles:
        cx, cy = rec.rect.center
        assert grid.obstacle[grid.index(cx, cy)] and not grid.wall[grid.index(cx, cy)]
    with pytest.raises(ConfigError, match="cell size"):
        rasterize(house, 1.0)


def test_top_down_png(tmp_path: Path) -> None:
    from PIL import Image

    out = save_house_png(HOUSES[1], tmp_path / "house.png")
    with Image.open(out) as image:
        assert image.format == "PNG"
        assert image.size == (int(np.ceil(HOUSES[1].extent[0] * 48)), int(np.ceil(HOUSES[1].extent[1] * 48)))
