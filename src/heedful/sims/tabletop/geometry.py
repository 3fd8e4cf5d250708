"""Where objects are and how to grasp them, read from the simulation (privileged state for the skills)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError
from heedful.sims.tabletop.mjcf import FINGER_MAX
from heedful.sims.tabletop.rotations import tilt_of_quat
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.spec import ObjectSpec

Array = NDArray[np.float64]

MIN_GRASP_Z = 0.012  # TCP height that keeps the fingertips 2 mm above the table
GRASP_BELOW_TOP = 0.015  # tall objects are grasped this far below their top
CLEARANCE = 0.05  # meters between the lowest point of the gripper (or held object) and anything it passes over
FINGERTIP_BELOW_TCP = 0.01


def spec_of(sim: TabletopSim, name: str) -> ObjectSpec:
    """The scene spec of object `name` (ConfigError if unknown)."""
    return sim.scene.by_name(name)


def half_height(obj: ObjectSpec) -> float:
    """Distance from the body origin to the bottom of an upright object."""
    return 0.0 if obj.shape in ("bowl", "label") else obj.height / 2


def top_of(sim: TabletopSim, name: str) -> float:
    """Current height of the object's top (assumes it is upright)."""
    obj = spec_of(sim, name)
    z = float(sim.object_pose(name)[2])
    return z + (obj.height if obj.shape in ("bowl", "label") else obj.height / 2)


def bottom_of(sim: TabletopSim, name: str) -> float:
    """Current height of the object's bottom (assumes it is upright)."""
    return float(sim.object_pose(name)[2]) - half_height(spec_of(sim, name))


def xy_of(sim: TabletopSim, name: str) -> Array:
    return np.array(sim.object_pose(name)[:2], dtype=np.float64)


def highest_top(sim: TabletopSim, exclude: tuple[str, ...] = ()) -> float:
    """Height of the tallest object top, ignoring `exclude` (0 for an empty table)."""
    tops = [top_of(sim, n) for n in sim.object_names if n not in exclude]
    return max(tops, default=0.0)


def travel_height(sim: TabletopSim, hanging: float = 0.0, exclude: tuple[str, ...] = ()) -> float:
    """TCP height that clears every object: `hanging` is how far a held object reaches below the TCP."""
    below = max(FINGERTIP_BELOW_TCP, hanging)
    return max(0.12, highest_top(sim, exclude) + below + CLEARANCE)


def grasp_height(sim: TabletopSim, name: str) -> float:
    """TCP height for grasping: the object's center, lower for tall objects, never into the table."""
    z = float(sim.object_pose(name)[2])
    return max(MIN_GRASP_Z, min(z, top_of(sim, name) - GRASP_BELOW_TOP))


def grasp_width(obj: ObjectSpec, closing_across_long_side: bool = False) -> float:
    """Width the fingers close across (meters)."""
    p = obj.params
    if obj.shape in ("cube", "block", "bar"):
        return 2 * (p[0] if closing_across_long_side else p[1])
    return 2 * p[0]


def grasp_yaw(sim: TabletopSim, name: str, current_yaw: float) -> float:
    """Yaw of the fingers' closing axis for grasping `name`, the equivalent nearest `current_yaw`.

    Boxes are grasped across their short horizontal side (the closing axis along the body's y axis);
    cubes across whichever face pair is nearest; round objects at the current yaw.
    """
    obj = spec_of(sim, name)
    if obj.shape in ("cylinder", "sphere"):
        return current_yaw
    yaw = sim.object_yaw(name)
    if obj.shape == "cube":
        return current_yaw + _wrap_period(yaw - current_yaw, math.pi / 2)
    return current_yaw + _wrap_period(yaw + math.pi / 2 - current_yaw, math.pi)


def _wrap_period(angle: float, period: float) -> float:
    a = angle % period
    return a - period if a > period / 2 else a


def check_graspable(sim: TabletopSim, name: str) -> str | None:
    """Why `name` cannot be grasped now, or None."""
    obj = spec_of(sim, name)
    if not obj.graspable:
        return f"a {obj.shape} is not graspable"
    if grasp_width(obj) > 2 * FINGER_MAX - 0.005:
        return f"{name!r} is {grasp_width(obj):.3f} m wide; the gripper opens to {2 * FINGER_MAX:.3f} m"
    if obj.shape != "sphere" and tilt_of_quat(sim.object_pose(name)[3:]) > math.radians(20):
        return f"{name!r} has tipped over"
    return None


def relation_vector(relation: str) -> Array:
    """Unit xy vector of a spatial relation in the table frame (seen from the robot)."""
    vectors = {
        "left_of": (-1.0, 0.0),
        "right_of": (1.0, 0.0),
        "behind": (0.0, 1.0),
        "in_front_of": (0.0, -1.0),
    }
    if relation not in vectors:
        raise ConfigError(f"unknown relation {relation!r}; choose one of {sorted(vectors)}")
    return np.array(vectors[relation])


def direction_vector(direction: str | float) -> Array:
    """Unit xy vector of a push direction: a name (left, right, forward, backward) or an angle in degrees.

    Angles are measured from +x (the robot's right) toward +y (away from the robot).
    """
    names = {"right": 0.0, "forward": 90.0, "left": 180.0, "backward": 270.0}
    if isinstance(direction, str):
        if direction not in names:
            raise ConfigError(f"unknown direction {direction!r}; choose one of {sorted(names)} or an angle in degrees")
        direction = names[direction]
    if not math.isfinite(direction):
        raise ConfigError(f"direction must be finite, got {direction}")
    rad = math.radians(direction)
    return np.array([math.cos(rad), math.sin(rad)])


def footprint_at(sim: TabletopSim, name: str) -> ObjectSpec:
    """The object's spec moved to its current xy and yaw (for footprint geometry)."""
    pose = sim.object_pose(name)
    return spec_of(sim, name).model_copy(
        update={"x": float(pose[0]), "y": float(pose[1]), "yaw_deg": math.degrees(sim.object_yaw(name))}
    )
