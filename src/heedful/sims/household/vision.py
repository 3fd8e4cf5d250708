"""What the agent sees: a 79 deg horizontal field of view, a range limit, and occlusion by walls.

Furniture does not occlude (the camera sits at 0.73 m and looks over it). Points (objects, receptacles,
the human) are tested exactly: inside the view cone and range, with no wall cell on the segment from the
camera. `view_cells` casts a fan of rays (every 0.5 deg, sampled every half cell) for map coverage.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from heedful.sims.household.grid import BoolArray, FloatArray, Grid

FOV_DEG = 79.0
RANGE_M = 5.0
RAY_SPACING_DEG = 0.5
HEADINGS = 36
"""Headings are multiples of 10 degrees (the turn action), counter-clockwise from +x."""


def heading_yaw(heading: int) -> float:
    return math.radians((heading % HEADINGS) * 360.0 / HEADINGS)


def line_of_sight(grid: Grid, x0: float, y0: float, xs: FloatArray, ys: FloatArray) -> BoolArray:
    """For each point, whether the segment from (x0, y0) crosses no wall cell."""
    if xs.size == 0:
        return np.zeros(0, dtype=bool)
    lengths = np.hypot(xs - x0, ys - y0)
    n = max(2, int(np.ceil(float(lengths.max()) / (grid.cell / 2))) + 1)
    t = grid.segment_steps(n)
    px = x0 + t[None, :] * (xs - x0)[:, None]
    py = y0 + t[None, :] * (ys - y0)[:, None]
    rr, cc, inside = grid.indices(px, py)
    blocked = grid.wall[rr, cc] | ~inside
    clear: BoolArray = ~np.any(blocked, axis=1)
    return clear


def in_view(
    grid: Grid, x: float, y: float, heading: int, xs: FloatArray, ys: FloatArray, range_m: float = RANGE_M
) -> BoolArray:
    """For each point, whether the agent at (x, y) facing `heading` sees it."""
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    dx, dy = xs - x, ys - y
    dist = np.hypot(dx, dy)
    yaw = heading_yaw(heading)
    off = np.abs((np.arctan2(dy, dx) - yaw + math.pi) % (2 * math.pi) - math.pi)
    cone = (dist <= range_m) & ((off <= math.radians(FOV_DEG / 2)) | (dist < 1e-9))
    seen = np.zeros(xs.shape, dtype=bool)
    if cone.any():
        seen[cone] = line_of_sight(grid, x, y, xs[cone], ys[cone])
    return seen


@lru_cache(maxsize=256)
def _fan(cell: float, heading: int, range_m: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n_rays = round(FOV_DEG / RAY_SPACING_DEG) + 1
    yaw = heading_yaw(heading)
    angles = yaw + np.radians(np.linspace(-FOV_DEG / 2, FOV_DEG / 2, n_rays))
    dists = np.arange(cell / 2, range_m + 1e-9, cell / 2)
    return np.cos(angles)[:, None] * dists[None, :], np.sin(angles)[:, None] * dists[None, :]


def view_cells(grid: Grid, x: float, y: float, heading: int, range_m: float = RANGE_M) -> NDArray[np.intp]:
    """Flat indices of the cells the agent sees: floor up to the first wall on each ray, and that wall."""
    ox, oy = _fan(grid.cell, heading % HEADINGS, range_m)
    rr, cc, inside = grid.indices(x + ox, y + oy)
    blocked = grid.wall[rr, cc] | ~inside
    first = np.where(blocked.any(axis=1), blocked.argmax(axis=1), blocked.shape[1])
    keep = np.arange(blocked.shape[1])[None, :] <= first[:, None]
    keep &= inside
    flat: NDArray[np.intp] = rr[keep] * grid.shape[1] + cc[keep]
    return flat
