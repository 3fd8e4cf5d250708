"""Physical sizes of the shared shapes and their footprints on the table.

One table serves the simulator (which builds the bodies) and the generators (which must place objects so
that they do not overlap once they have real sizes).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

# Shape parameters by size (meters). Boxes: half extents (x, y, z); cylinder: (radius, half height);
# sphere: (radius,); bowl: (outer radius, height); label: half extents of a thin pad.
SHAPE_DIMS: dict[str, dict[str, tuple[float, ...]]] = {
    "cube": {"small": (0.02, 0.02, 0.02), "large": (0.03, 0.03, 0.03)},
    "block": {"small": (0.04, 0.02, 0.02), "large": (0.05, 0.025, 0.025)},
    "cylinder": {"small": (0.02, 0.03), "large": (0.03, 0.05)},
    "sphere": {"small": (0.02,), "large": (0.03,)},
    "bar": {"small": (0.08, 0.015, 0.012), "large": (0.12, 0.018, 0.014)},
    "bowl": {"small": (0.07, 0.04), "large": (0.09, 0.05)},
    "label": {"small": (0.05, 0.035, 0.001), "large": (0.07, 0.05, 0.001)},
}
BOX_SHAPES = frozenset({"cube", "block", "bar", "label"})

Polygon = NDArray[np.float64]


def footprint_polygon(shape: str, params: tuple[float, ...], x: float, y: float, yaw_deg: float) -> Polygon:
    """The footprint as a convex polygon (k, 2); round shapes use a circumscribed 16-gon that covers them."""
    if shape in BOX_SHAPES:
        local = np.array(
            [[params[0], params[1]], [-params[0], params[1]], [-params[0], -params[1]], [params[0], -params[1]]]
        )
    else:
        angles = np.arange(16) * (2 * math.pi / 16)
        radius = params[0] / math.cos(math.pi / 16)
        local = radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    yaw = math.radians(yaw_deg)
    rot = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
    return np.asarray(local @ rot.T + np.array([x, y]), dtype=np.float64)


def polygon_gap(pa: Polygon, pb: Polygon) -> float:
    """Largest separation of two convex polygons along their edge normals (negative when they overlap)."""
    best = -math.inf
    for poly in (pa, pb):
        edges = np.roll(poly, -1, axis=0) - poly
        normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        proj_a, proj_b = pa @ normals.T, pb @ normals.T
        sep = np.maximum(proj_b.min(axis=0) - proj_a.max(axis=0), proj_a.min(axis=0) - proj_b.max(axis=0))
        best = max(best, float(sep.max()))
    return best
