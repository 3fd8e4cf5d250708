"""Rasterize a house into an occupancy grid: walls, furniture, room labels and clearance.

Cell (row, col) has its centre at ((col + 0.5) * cell, (row + 0.5) * cell). Walls block sight and motion;
furniture blocks motion only (the camera looks over it). `clearance` is the distance in meters from a cell
centre to the nearest obstacle boundary, computed once per house by fast marching: the robot may stand
where clearance >= ROBOT_RADIUS, and the planner keeps to clearance >= PLAN_RADIUS.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError, MissingDependencyError
from heedful.sims.household.model import HouseSpec

ROBOT_RADIUS = 0.2
PLAN_RADIUS = 0.3
GRID_CACHE_SIZE = 16

BoolArray = NDArray[np.bool_]
FloatArray = NDArray[np.float64]


def import_skfmm() -> Any:
    """The scikit-fmm module, or an install hint."""
    try:
        import skfmm  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            "the household simulator plans with fast marching from scikit-fmm; install it with "
            "`pip install scikit-fmm` (or reinstall heedful: `pip install -e .`)"
        ) from exc
    return skfmm


@dataclass(eq=False)
class Grid:
    """The rasterized house. Arrays are indexed [row, col]; row grows with y, col with x."""

    house_id: str
    cell: float
    wall: BoolArray
    obstacle: BoolArray
    room: NDArray[np.int16]
    clearance: FloatArray
    fields: OrderedDict[Any, NDArray[np.float32]] = field(default_factory=OrderedDict, repr=False)

    @cached_property
    def shape(self) -> tuple[int, int]:
        return (int(self.wall.shape[0]), int(self.wall.shape[1]))

    def segment_steps(self, n: int) -> FloatArray:
        """`np.linspace(0, 1, n)`, made once per n (segment tests sample every half cell; hot path)."""
        found = self._steps.get(n)
        if found is None:
            found = self._steps[n] = np.linspace(0.0, 1.0, n)
            found.flags.writeable = False
        return found

    @cached_property
    def _steps(self) -> dict[int, FloatArray]:
        return {}

    @cached_property
    def move_free(self) -> BoolArray:
        """Cells where the robot can stand."""
        mask: BoolArray = self.clearance >= ROBOT_RADIUS
        return mask

    @cached_property
    def plan_free(self) -> BoolArray:
        """Cells the planner prefers (further from obstacles)."""
        mask: BoolArray = self.clearance >= PLAN_RADIUS
        return mask

    def index(self, x: float, y: float) -> tuple[int, int]:
        """The cell holding (x, y), clipped to the grid."""
        rows, cols = self.shape
        return (min(max(int(y / self.cell), 0), rows - 1), min(max(int(x / self.cell), 0), cols - 1))

    def indices(self, xs: FloatArray, ys: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp], BoolArray]:
        """Cells of many points, plus a mask of the points inside the grid."""
        rows, cols = self.shape
        r = np.floor(ys / self.cell).astype(np.intp)
        c = np.floor(xs / self.cell).astype(np.intp)
        inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
        # minimum / maximum instead of np.clip: the same values without np.clip's per-call overhead (hot path)
        return np.minimum(np.maximum(r, 0), rows - 1), np.minimum(np.maximum(c, 0), cols - 1), inside

    def centre(self, row: int, col: int) -> tuple[float, float]:
        return ((col + 0.5) * self.cell, (row + 0.5) * self.cell)

    def can_stand(self, x: float, y: float) -> bool:
        r, c = self.index(x, y)
        return bool(self.clearance[r, c] >= ROBOT_RADIUS)

    def room_mask(self, room: int) -> BoolArray:
        mask: BoolArray = self.room == room
        return mask

    def centres(self) -> tuple[FloatArray, FloatArray]:
        """x and y of every cell centre (arrays shaped like the grid; computed once)."""
        return self._centres

    @cached_property
    def _centres(self) -> tuple[FloatArray, FloatArray]:
        rows, cols = self.shape
        xs = (np.arange(cols) + 0.5) * self.cell
        ys = (np.arange(rows) + 0.5) * self.cell
        gx, gy = np.meshgrid(xs, ys)
        return gx, gy


def rasterize(house: HouseSpec, cell: float) -> Grid:
    """Build the occupancy grid of `house` at `cell` meters per cell."""
    if not 0.02 <= cell <= 0.25:
        raise ConfigError(f"grid cell size must be within 0.02-0.25 m, got {cell}")
    width, depth = house.extent
    rows, cols = math.ceil(depth / cell), math.ceil(width / cell)
    gx, gy = np.meshgrid((np.arange(cols) + 0.5) * cell, (np.arange(rows) + 0.5) * cell)
    half = house.wall_thickness / 2
    m = house.margin
    inside = (gx >= m - half) & (gx <= m + house.width + half) & (gy >= m - half) & (gy <= m + house.depth + half)
    wall = np.zeros((rows, cols), dtype=bool)
    room = np.full((rows, cols), -1, dtype=np.int16)
    for spec in house.rooms:
        r = spec.rect
        span_y = (gy >= r.y0 - half) & (gy <= r.y1 + half)
        span_x = (gx >= r.x0 - half) & (gx <= r.x1 + half)
        wall |= ((np.abs(gx - r.x0) <= half) | (np.abs(gx - r.x1) <= half)) & span_y
        wall |= ((np.abs(gy - r.y0) <= half) | (np.abs(gy - r.y1) <= half)) & span_x
        room[(gx > r.x0 + half) & (gx < r.x1 - half) & (gy > r.y0 + half) & (gy < r.y1 - half)] = spec.index
    for door in house.doors:
        d = door.rect
        wall[(gx >= d.x0) & (gx <= d.x1) & (gy >= d.y0) & (gy <= d.y1)] = False
    furniture = np.zeros((rows, cols), dtype=bool)
    for rec in house.receptacles:
        q = rec.rect
        furniture |= (gx >= q.x0) & (gx <= q.x1) & (gy >= q.y0) & (gy <= q.y1)
    obstacle = wall | furniture | ~inside
    wall |= ~inside  # nothing is seen beyond the outer walls
    phi = np.where(obstacle, -1.0, 1.0)
    clearance = np.asarray(import_skfmm().distance(phi, dx=cell), dtype=np.float64)
    return Grid(house_id=house.house_id, cell=cell, wall=wall, obstacle=obstacle, room=room, clearance=clearance)


_GRIDS: OrderedDict[tuple[str, float], Grid] = OrderedDict()


def clear_grid_cache() -> None:
    """Forget every cached grid (and its distance fields), e.g. to time a cold start."""
    _GRIDS.clear()


def grid_for(house: HouseSpec, cell: float) -> Grid:
    """The grid of `house` at `cell`, cached per process (with its distance fields)."""
    key = (house.digest(), cell)
    grid = _GRIDS.get(key)
    if grid is None:
        grid = rasterize(house, cell)
        _GRIDS[key] = grid
        while len(_GRIDS) > GRID_CACHE_SIZE:
            _GRIDS.popitem(last=False)
    else:
        _GRIDS.move_to_end(key)
    return grid
