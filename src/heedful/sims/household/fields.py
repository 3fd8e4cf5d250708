"""Geodesic distance fields by fast marching (scikit-fmm), cached per grid, and paths along them.

A field holds, for every cell where the robot can stand (clearance >= ROBOT_RADIUS), the travel cost in
meters to a goal set; unreachable cells hold +inf. Travel is at full speed where the planner likes to be
(clearance >= PLAN_RADIUS) and at BAND_SPEED in the band near obstacles, so shortest paths keep their
distance from walls and furniture while an agent that strayed into the band still has a way out. Fields
are cached on their grid under a key chosen by the caller, so each house / target pair is solved once
per process.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable

import numpy as np
from numpy.typing import NDArray

from heedful.sims.household.grid import BoolArray, FloatArray, Grid, import_skfmm

FIELD_CACHE_SIZE = 160
BAND_SPEED = 0.25
Field = NDArray[np.float32]


def distance_field(grid: Grid, goal: BoolArray, reach: float | None = None) -> Field:
    """Travel cost (meters) to the goal's planner-free cells (its standable cells if it has none).

    A goal where the robot cannot stand at all gives a field that is +inf everywhere. With `reach`, fast
    marching stops at that cost and cells beyond it are +inf; the cells within it get exactly the values
    of the full solution (fast marching fixes values in increasing order), at a fraction of the cost.
    """
    free = grid.move_free
    target = goal & grid.plan_free
    if not target.any():
        target = goal & free
    out = np.full(grid.shape, np.inf, dtype=np.float32)
    if not target.any():
        return out
    phi = np.where(target, -1.0, 1.0)
    speed = np.where(grid.plan_free, 1.0, BAND_SPEED)
    narrow = {} if reach is None else {"narrow": float(reach)}
    solved = import_skfmm().travel_time(np.ma.MaskedArray(phi, ~free), speed, dx=grid.cell, **narrow)
    values = np.ma.filled(solved, np.inf)
    out[:] = np.maximum(values, 0.0)
    out[target] = 0.0
    out[~free] = np.inf
    return out


def cached_field(grid: Grid, key: Hashable, goal: Callable[[], BoolArray]) -> Field:
    """The field for `key`, solved from `goal()` on first use."""
    cache = grid.fields
    found = cache.get(key)
    if found is not None:
        cache.move_to_end(key)
        return found
    made = distance_field(grid, goal())
    cache[key] = made
    while len(cache) > FIELD_CACHE_SIZE:
        cache.popitem(last=False)
    return made


def disk(grid: Grid, x: float, y: float, radius: float) -> BoolArray:
    """Cells whose centres lie within `radius` of (x, y)."""
    gx, gy = grid.centres()
    mask: BoolArray = (gx - x) ** 2 + (gy - y) ** 2 <= radius * radius
    return mask


def sample(grid: Grid, field: Field, xs: FloatArray, ys: FloatArray) -> FloatArray:
    """Field values at points: bilinear between cell centres, the nearest cell where a corner is +inf."""
    rows, cols = grid.shape
    fx = xs / grid.cell - 0.5
    fy = ys / grid.cell - 0.5
    # minimum / maximum rather than np.clip (same values, far less overhead on these small arrays)
    c0 = np.minimum(np.maximum(np.floor(fx).astype(np.intp), 0), cols - 2)
    r0 = np.minimum(np.maximum(np.floor(fy).astype(np.intp), 0), rows - 2)
    tx = np.minimum(np.maximum(fx - c0, 0.0), 1.0)
    ty = np.minimum(np.maximum(fy - r0, 0.0), 1.0)
    v00, v01 = field[r0, c0], field[r0, c0 + 1]
    v10, v11 = field[r0 + 1, c0], field[r0 + 1, c0 + 1]
    with np.errstate(invalid="ignore"):
        bilinear = (1 - ty) * ((1 - tx) * v00 + tx * v01) + ty * ((1 - tx) * v10 + tx * v11)
    rr, cc, inside = grid.indices(xs, ys)
    nearest = np.where(inside, field[rr, cc], np.inf)
    finite = np.isfinite(v00) & np.isfinite(v01) & np.isfinite(v10) & np.isfinite(v11)
    return np.where(finite & inside, bilinear, nearest).astype(np.float64)


def sample_point(grid: Grid, field: Field, x: float, y: float) -> float:
    """`sample` at one point, in plain floats: the same arithmetic in the same order, so the same value to
    the last bit, without the dozen numpy calls (the navigation loop asks this several times a step)."""
    rows, cols = grid.shape
    cell = grid.cell
    fx = x / cell - 0.5
    fy = y / cell - 0.5
    c0 = min(max(math.floor(fx), 0), cols - 2)
    r0 = min(max(math.floor(fy), 0), rows - 2)
    r, c = math.floor(y / cell), math.floor(x / cell)
    if not (0 <= r < rows and 0 <= c < cols):
        return math.inf
    v00, v01 = float(field[r0, c0]), float(field[r0, c0 + 1])
    v10, v11 = float(field[r0 + 1, c0]), float(field[r0 + 1, c0 + 1])
    if not (math.isfinite(v00) and math.isfinite(v01) and math.isfinite(v10) and math.isfinite(v11)):
        return float(field[r, c])
    tx = min(max(fx - c0, 0.0), 1.0)
    ty = min(max(fy - r0, 0.0), 1.0)
    return (1 - ty) * ((1 - tx) * v00 + tx * v01) + ty * ((1 - tx) * v10 + tx * v11)


_NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def descent_cells(grid: Grid, field: Field, x: float, y: float, max_cells: int = 20_000) -> list[tuple[int, int]]:
    """Cells from (x, y) down the field to the goal (steepest 8-neighbour descent); [] when unreachable."""
    rows, cols = grid.shape
    r, c = grid.index(x, y)
    if not np.isfinite(field[r, c]):
        return []
    path = [(r, c)]
    while field[r, c] > 0.0 and len(path) < max_cells:
        best, best_value = (r, c), field[r, c]
        for dr, dc in _NEIGHBOURS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols and field[rr, cc] < best_value:
                best, best_value = (rr, cc), field[rr, cc]
        if best == (r, c):
            break
        r, c = best
        path.append(best)
    return path


def segment_free(grid: Grid, free: BoolArray, x0: float, y0: float, xs: FloatArray, ys: FloatArray) -> BoolArray:
    """For each end point, whether the straight segment from (x0, y0) stays inside `free`."""
    lengths = np.hypot(xs - x0, ys - y0)
    n = max(2, int(np.ceil(float(lengths.max(initial=0.0)) / (grid.cell / 2))) + 1)
    t = grid.segment_steps(n)
    px = x0 + t[None, :] * (xs - x0)[:, None]
    py = y0 + t[None, :] * (ys - y0)[:, None]
    rr, cc, inside = grid.indices(px, py)
    ok: BoolArray = np.all(free[rr, cc] & inside, axis=1)
    return ok


def shortest_polyline(grid: Grid, field: Field, x: float, y: float) -> list[tuple[float, float]]:
    """A short path from (x, y) to the goal: the descent path, pulled taut inside planner-free space."""
    cells = descent_cells(grid, field, x, y)
    if not cells:
        return []
    pts = np.array([grid.centre(r, c) for r, c in cells])
    free = grid.plan_free
    polyline = [(x, y)]
    anchor = (x, y)
    i = 0
    while i < len(pts) - 1:
        rest = pts[i + 1 :]
        ok = segment_free(grid, free, anchor[0], anchor[1], rest[:, 0], rest[:, 1])
        j = i + 1 + (int(np.flatnonzero(ok)[-1]) if ok.any() else 0)
        anchor = (float(pts[j, 0]), float(pts[j, 1]))
        polyline.append(anchor)
        i = j
    return polyline
