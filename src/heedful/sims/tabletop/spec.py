"""Symbolic scene specs for the tabletop simulator: what is on the table, before any physics.

Frame (shared with `heedful.world.objects`): meters, x to the robot's right, y away from the robot, z up;
the table top is the plane z = 0. An object's pose is its xy center and yaw; it rests on the table, or on
another object named by `on` (a stack). Sizes and colours come from the shared vocabulary; `dims`
overrides the size table for a single object.
"""

from __future__ import annotations

import hashlib
import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from heedful.errors import ConfigError
from heedful.world.footprints import SHAPE_DIMS, polygon_gap
from heedful.world.footprints import footprint_polygon as shared_footprint
from heedful.world.objects import COLORS, TABLE_X, TABLE_Y, Color, Size, TabletopState

SCENE_SCHEMA_VERSION: Literal["heedful-tabletop-scene/1"] = "heedful-tabletop-scene/1"

SimShape = Literal["cube", "block", "cylinder", "sphere", "bar", "bowl", "label"]
SimColor = Literal["red", "green", "blue", "yellow", "purple", "orange", "white", "gray", "black"]

SIM_SHAPES: tuple[SimShape, ...] = ("cube", "block", "cylinder", "sphere", "bar", "bowl", "label")
GRASPABLE_SHAPES: frozenset[str] = frozenset({"cube", "block", "cylinder", "sphere", "bar"})
STACKABLE_BASES: frozenset[str] = frozenset({"cube", "block", "cylinder"})
STATIC_SHAPES: frozenset[str] = frozenset({"label"})

RGBA: dict[str, tuple[float, float, float, float]] = {
    "red": (0.85, 0.12, 0.10, 1.0),
    "green": (0.15, 0.65, 0.20, 1.0),
    "blue": (0.12, 0.28, 0.85, 1.0),
    "yellow": (0.95, 0.82, 0.10, 1.0),
    "purple": (0.55, 0.20, 0.70, 1.0),
    "orange": (0.98, 0.50, 0.08, 1.0),
    "white": (0.95, 0.95, 0.95, 1.0),
    "gray": (0.50, 0.50, 0.50, 1.0),
    "black": (0.08, 0.08, 0.08, 1.0),
}
if not set(COLORS) <= set(RGBA):  # pragma: no cover - guards the shared vocabulary against drift
    raise RuntimeError("every shared colour needs an RGBA value")

DIMS: dict[str, dict[str, tuple[float, ...]]] = SHAPE_DIMS  # the shared size table (heedful.world.footprints)
DIM_COUNT: dict[str, int] = {"cube": 3, "block": 3, "cylinder": 2, "sphere": 1, "bar": 3, "bowl": 2, "label": 3}

_frozen = ConfigDict(frozen=True, extra="forbid")


class ObjectSpec(BaseModel):
    """One object of a scene. `name` is its stable id (also its MuJoCo body name)."""

    model_config = _frozen

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$", max_length=40)
    shape: SimShape
    color: SimColor
    size: Size = "small"
    x: float
    y: float
    yaw_deg: float = 0.0
    on: str | None = Field(default=None, description="Name of the object this one starts stacked on.")
    dims: tuple[float, ...] | None = Field(default=None, description="Overrides the size table (see DIMS).")

    @model_validator(mode="after")
    def _check(self) -> ObjectSpec:
        if self.dims is not None:
            want = DIM_COUNT[self.shape]
            if len(self.dims) != want or not all(0.001 <= d <= 0.5 for d in self.dims):
                raise ValueError(f"dims of a {self.shape} take {want} values in [0.001, 0.5] m, got {self.dims}")
        if not (math.isfinite(self.x) and math.isfinite(self.y) and math.isfinite(self.yaw_deg)):
            raise ValueError("x, y and yaw_deg must be finite")
        return self

    @property
    def params(self) -> tuple[float, ...]:
        """Shape parameters in meters (see DIMS)."""
        return self.dims if self.dims is not None else DIMS[self.shape][self.size]

    @property
    def height(self) -> float:
        """Height of the object's top above its bottom (meters)."""
        p = self.params
        if self.shape == "sphere":
            return 2 * p[0]
        if self.shape == "cylinder":
            return 2 * p[1]
        if self.shape == "bowl":
            return p[1]
        return 2 * p[2]

    @property
    def footprint_radius(self) -> float:
        """Radius of a circle around the xy center that covers the object's footprint."""
        p = self.params
        if self.shape in ("cube", "block", "bar", "label"):
            return math.hypot(p[0], p[1])
        return p[0]

    @property
    def graspable(self) -> bool:
        return self.shape in GRASPABLE_SHAPES


class SceneSpec(BaseModel):
    """A symbolic scene: the objects on the table (the robot and cameras are fixed by the simulator)."""

    model_config = _frozen

    schema_version: Literal["heedful-tabletop-scene/1"] = SCENE_SCHEMA_VERSION
    objects: tuple[ObjectSpec, ...] = ()

    @model_validator(mode="after")
    def _check_names(self) -> SceneSpec:
        names = [o.name for o in self.objects]
        if len(set(names)) != len(names):
            raise ValueError(f"object names must be unique, got {names}")
        return self

    def by_name(self, name: str) -> ObjectSpec:
        """Return the object called `name`; raise ConfigError naming the known objects otherwise."""
        for obj in self.objects:
            if obj.name == name:
                return obj
        raise ConfigError(f"no object named {name!r} in the scene; known objects: {[o.name for o in self.objects]}")

    def digest(self) -> str:
        """A stable hash of the scene (identifies which model a saved state belongs to)."""
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()[:16]


def resting_z(scene: SceneSpec, obj: ObjectSpec) -> float:
    """Height of the object's body origin when it rests on the table or on its `on` support."""
    base = 0.0
    if obj.on is not None:
        support = scene.by_name(obj.on)
        base = resting_z(scene, support) + _top_above_origin(support)
    if obj.shape in ("bowl",):
        return base
    if obj.shape == "label":
        return base + 0.0005
    return base + obj.height / 2


def top_z(scene: SceneSpec, obj: ObjectSpec) -> float:
    """Height of the object's top surface when it rests as specified."""
    return resting_z(scene, obj) + _top_above_origin(obj)


def _top_above_origin(obj: ObjectSpec) -> float:
    if obj.shape == "bowl":
        return obj.params[1]
    if obj.shape == "label":
        return obj.params[2]
    return obj.height / 2


def validate_scene(scene: SceneSpec, *, max_objects: int = 16, margin: float = 0.005) -> None:
    """Check that a scene can be built: bounds, supports and non-overlapping footprints.

    Raises:
        ConfigError: naming the offending objects and how to fix the scene.
    """
    if len(scene.objects) > max_objects:
        raise ConfigError(f"scene has {len(scene.objects)} objects; at most {max_objects} (SimConfig.max_objects)")
    lo_x, hi_x = TABLE_X[0] - 0.12, TABLE_X[1] + 0.12
    lo_y, hi_y = TABLE_Y[0] - 0.12, TABLE_Y[1] + 0.12
    for obj in scene.objects:
        if not (lo_x <= obj.x <= hi_x and lo_y <= obj.y <= hi_y):
            raise ConfigError(
                f"object {obj.name!r} at ({obj.x:.3f}, {obj.y:.3f}) is off the table; keep x in "
                f"[{lo_x:.2f}, {hi_x:.2f}] and y in [{lo_y:.2f}, {hi_y:.2f}]"
            )
        _check_support(scene, obj)
    floor = [o for o in scene.objects if o.on is None and o.shape not in STATIC_SHAPES]
    for i, a in enumerate(floor):
        for b in floor[i + 1 :]:
            gap = footprint_gap(a, b)
            if gap < margin:
                raise ConfigError(
                    f"objects {a.name!r} and {b.name!r} overlap on the table (gap {gap:.3f} m, need {margin} m); "
                    "move them apart"
                )


def footprint_polygon(obj: ObjectSpec) -> np.ndarray:
    """The object's footprint on the table as a convex polygon (k, 2); round shapes use 16 sides."""
    return shared_footprint(obj.shape, obj.params, obj.x, obj.y, obj.yaw_deg)


def footprint_gap(a: ObjectSpec, b: ObjectSpec) -> float:
    """Largest separation of two footprints along their edge normals (negative when they overlap)."""
    return polygon_gap(footprint_polygon(a), footprint_polygon(b))


def _check_support(scene: SceneSpec, obj: ObjectSpec, depth: int = 0) -> None:
    if obj.on is None:
        return
    if depth > len(scene.objects):
        raise ConfigError(f"object {obj.name!r} is part of a stacking cycle; fix the `on` fields")
    support = scene.by_name(obj.on)
    if support.shape not in STACKABLE_BASES:
        raise ConfigError(
            f"object {obj.name!r} cannot start on {support.name!r}: a {support.shape} has no flat top; "
            f"stack only on {sorted(STACKABLE_BASES)}"
        )
    if math.hypot(obj.x - support.x, obj.y - support.y) > 0.01:
        raise ConfigError(f"object {obj.name!r} must be centered on its support {support.name!r} (within 1 cm)")
    _check_support(scene, support, depth + 1)


def scene_from_tabletop_state(state: TabletopState) -> SceneSpec:
    """Build a simulator scene from a decisions-suite state (same frame, colours, shapes and sizes)."""
    objects = tuple(
        ObjectSpec(
            name=o.name,
            shape=o.shape,
            color=o.color,
            size=o.size,
            x=o.x,
            y=o.y,
            yaw_deg=o.yaw_deg,
        )
        for o in state.objects
    )
    return SceneSpec(objects=objects)


def default_scene() -> SceneSpec:
    """A small scene used when reset gets no scene: two cubes, a cylinder, a sphere and a bowl."""
    return SceneSpec(
        objects=(
            ObjectSpec(name="red_cube", shape="cube", color="red", x=-0.15, y=0.45),
            ObjectSpec(name="blue_cube", shape="cube", color="blue", size="large", x=0.12, y=0.42),
            ObjectSpec(name="green_cylinder", shape="cylinder", color="green", x=0.0, y=0.55),
            ObjectSpec(name="yellow_ball", shape="sphere", color="yellow", x=-0.10, y=0.62),
            ObjectSpec(name="purple_bowl", shape="bowl", color="purple", x=0.15, y=0.62),
        )
    )


__all__ = [
    "DIMS",
    "GRASPABLE_SHAPES",
    "RGBA",
    "SCENE_SCHEMA_VERSION",
    "SIM_SHAPES",
    "Color",
    "ObjectSpec",
    "SceneSpec",
    "SimColor",
    "SimShape",
    "default_scene",
    "resting_z",
    "scene_from_tabletop_state",
    "top_z",
    "validate_scene",
]
