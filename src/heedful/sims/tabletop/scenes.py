"""Seeded random scenes (for tests, sweeps and benchmarks), with bounded rejection sampling."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from heedful.errors import GenerationError
from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec, SimShape, footprint_gap
from heedful.world.objects import COLORS, TABLE_X, TABLE_Y, Size

MAX_TRIES = 200


def sample_scene(
    rng: np.random.Generator,
    objects: Sequence[tuple[SimShape, Size]],
    *,
    margin: float = 0.04,
    x_range: tuple[float, float] = TABLE_X,
    y_range: tuple[float, float] = TABLE_Y,
) -> SceneSpec:
    """Place `objects` (shape, size) at random non-overlapping poses, each in its own colour.

    Names are `<colour>_<shape>`; `margin` is the least gap between footprints (meters), so that open
    fingers fit between neighbours.

    Raises:
        GenerationError: no valid placement within MAX_TRIES tries per object.
    """
    placed: list[ObjectSpec] = []
    for i, (shape, size) in enumerate(objects):
        color = COLORS[i % len(COLORS)]
        name = f"{color}_{shape}" if i < len(COLORS) else f"{color}_{shape}_{i}"
        placed.append(_place_one(rng, placed, name, shape, size, color, margin, x_range, y_range))
    return SceneSpec(objects=tuple(placed))


def _place_one(
    rng: np.random.Generator,
    placed: list[ObjectSpec],
    name: str,
    shape: SimShape,
    size: Size,
    color: str,
    margin: float,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
) -> ObjectSpec:
    for _ in range(MAX_TRIES):
        candidate = ObjectSpec(
            name=name,
            shape=shape,
            color=color,  # type: ignore[arg-type]
            size=size,
            x=round(float(rng.uniform(*x_range)), 4),
            y=round(float(rng.uniform(*y_range)), 4),
            yaw_deg=round(float(rng.uniform(0.0, 180.0)), 2),
        )
        if all(footprint_gap(candidate, other) >= margin for other in placed):
            return candidate
    raise GenerationError(f"could not place {name!r} among {len(placed)} objects in {MAX_TRIES} tries")


def free_point(
    rng: np.random.Generator,
    scene: SceneSpec,
    clearance: float,
    *,
    ignore: Sequence[str] = (),
    x_range: tuple[float, float] = TABLE_X,
    y_range: tuple[float, float] = TABLE_Y,
) -> tuple[float, float]:
    """A random table point at least `clearance` meters from every object's footprint circle.

    Raises:
        GenerationError: no such point within MAX_TRIES tries.
    """
    others = [o for o in scene.objects if o.name not in ignore]
    for _ in range(MAX_TRIES):
        x, y = float(rng.uniform(*x_range)), float(rng.uniform(*y_range))
        if all(math.hypot(x - o.x, y - o.y) - o.footprint_radius >= clearance for o in others):
            return round(x, 4), round(y, 4)
    raise GenerationError(f"no free point with {clearance} m clearance in {MAX_TRIES} tries")
