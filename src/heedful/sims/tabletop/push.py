"""The push skill: slide an object along a direction with the fingers as a flat pusher.

Boxes are pushed on the face most opposed to the direction, with both finger pads flush against it;
friction at the pads (coefficient 1.5, a friction cone of about 56 degrees) keeps the box moving with
the pusher even when the face is up to 45 degrees oblique. Round objects (cylinder, sphere, bowl) sit
in the notch between the two fingers, which keeps them centered. A stroke stops once the object has
moved the commanded distance (closed loop on its measured position); if it drifted sideways, up to two
more strokes push it from its new place toward the goal point, as a person would.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.config import HOME_YAW
from heedful.sims.tabletop.control import pose_to_action, tool_yaw_mat
from heedful.sims.tabletop.geometry import direction_vector, footprint_at, spec_of, travel_height, xy_of
from heedful.sims.tabletop.mjcf import FINGER_HALF, FINGER_MAX
from heedful.sims.tabletop.motion import (
    SkillGen,
    actuate_gripper,
    go_above,
    grip_for_width,
    move_to,
    nearest_equivalent_yaw,
)
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.spec import ObjectSpec

Array = NDArray[np.float64]

PUSH_ANGLE_TOL = 20.0  # degrees between the commanded and the achieved displacement
PUSH_DISTANCE_TOL = 0.25  # fraction of the commanded distance (at least 1 cm)
MAX_DISTANCE = 0.3
STANDOFF = 0.03  # meters between the pads and the pushed face before the push starts
PUSH_STEP = 0.008  # meters the pusher advances per control step
MAX_STROKES = 3  # a push that drifts sideways is corrected by further strokes toward the goal point
STROKE_DONE = 0.008  # meters from the goal point at which no further stroke is made
_PAD = 2 * FINGER_HALF[0]  # finger thickness along the closing axis


@dataclass(frozen=True)
class PushPlan:
    """Where the pads meet the object: the pushed face's outward normal, the pads' offset along the face
    from the object's center, the finger opening and the face's distance from the center."""

    normal: Array
    lateral: float
    gap: float
    face: float

    @property
    def tangent(self) -> Array:
        return np.array([-self.normal[1], self.normal[0]])

    @property
    def yaw(self) -> float:
        """Gripper yaw whose closing axis runs along the face."""
        t = self.tangent
        return math.atan2(t[1], t[0])

    def contact_tcp(self, center: Array) -> Array:
        """TCP xy at which the pads touch the face of an object centered at `center`."""
        return center + self.normal * (self.face + FINGER_HALF[1]) + self.tangent * self.lateral


def plan_push(obj: ObjectSpec, d: Array) -> PushPlan:
    """Choose the face, pad offset and opening for pushing `obj` (at its pose in the spec) along `d`."""
    p = obj.params
    if obj.shape in ("cube", "block", "bar"):
        yaw = math.radians(obj.yaw_deg)
        ax, ay = np.array([math.cos(yaw), math.sin(yaw)]), np.array([-math.sin(yaw), math.cos(yaw)])
        faces = [(ax, p[0], p[1]), (-ax, p[0], p[1]), (ay, p[1], p[0]), (-ay, p[1], p[0])]
        normal, face, half_len = min(faces, key=lambda f: float(f[0] @ d))
        tangent = np.array([-normal[1], normal[0]])
        # Where the line through the center along d crosses the face, kept away from the face's ends.
        s = face / max(1e-9, float(-(d @ normal)))
        lateral = float(np.clip(float((-s * d) @ tangent), -0.5 * half_len, 0.5 * half_len))
        gap = 2 * (half_len - abs(lateral)) - 2 * _PAD - 0.004
        return PushPlan(normal, lateral, float(np.clip(gap, 0.0, 2 * FINGER_MAX - 0.01)), face)
    radius = p[0]
    gap = min(0.9 * radius, 2 * FINGER_MAX - 0.01)
    # The pads touch a round object off its center line, where its back is nearer than its radius.
    touch = gap / 2 + _PAD / 2
    face = math.sqrt(max(radius**2 - touch**2, 0.0))
    return PushPlan(-d, 0.0, gap, face)


def push(sim: TabletopSim, name: str, direction: str | float, distance: float) -> SkillGen:
    """Push `name` along `direction` (left, right, forward, backward, or degrees from +x) by `distance` m."""
    obj = spec_of(sim, name)
    d = direction_vector(direction)
    if obj.shape == "label":
        return False, "a label is painted on the table and cannot be pushed"
    if not 0.0 < distance <= MAX_DISTANCE:
        return False, f"push distance must be in (0, {MAX_DISTANCE}] m, got {distance}"
    held = sim.held_object()
    if held is not None:
        return False, f"holding {held!r}; place it before pushing"
    start = xy_of(sim, name)
    goal = start + d * distance
    for stroke in range(MAX_STROKES):
        left = goal - xy_of(sim, name)
        # A stroke overshooting along d is not undone; only sideways drift or a shortfall earns another stroke.
        if float(np.linalg.norm(left)) < STROKE_DONE or (stroke > 0 and float(left @ d) < -STROKE_DONE):
            break
        if not (yield from _stroke(sim, name, left / float(np.linalg.norm(left)), float(np.linalg.norm(left)))):
            return False, "could not get behind the object"
    return check_push(sim, name, start, d, distance)


def _stroke(sim: TabletopSim, name: str, d: Array, distance: float) -> Generator[Array, None, bool]:
    """One straight push of `distance` along `d`: approach from above, push, open, back off and rise."""
    obj = spec_of(sim, name)
    start = xy_of(sim, name)
    plan = plan_push(footprint_at(sim, name), d)
    grip = grip_for_width(plan.gap)
    yaw = nearest_equivalent_yaw(plan.yaw, HOME_YAW)
    approach = STANDOFF / max(0.5, float(-(d @ plan.normal)))
    pre = plan.contact_tcp(start) - d * approach
    z = max(0.012, min(float(sim.object_pose(name)[2]) if obj.shape != "bowl" else 0.02, 0.02))
    if not (yield from go_above(sim, pre, travel_height(sim), yaw, grip)):
        return False
    if not (yield from move_to(sim, (pre[0], pre[1], z), yaw, grip, speed=0.3)):
        return False
    yield from _advance(sim, name, start, d, distance, z, yaw, grip)
    end = sim.tcp_pos()
    # Open wider than the object before backing off, so a round object in the notch is not dragged back.
    grip = grip_for_width(2 * obj.footprint_radius + 0.02)
    yield from actuate_gripper(sim, grip, steps=6, hold_yaw=yaw)
    back = end[:2] - d * 0.02
    yield from move_to(sim, (back[0], back[1], z), yaw, grip, speed=0.2, tol=0.006)
    yield from move_to(sim, (back[0], back[1], z + 0.08), yaw, grip, speed=0.3, tol=0.01)
    return True


def _advance(
    sim: TabletopSim, name: str, start: Array, d: Array, distance: float, z: float, yaw: float, grip: float
) -> Generator[Array, None, bool]:
    """Move the pusher along `d` until the object has moved `distance` along `d` (or stops following)."""
    target = tool_yaw_mat(yaw)
    stalled = 0
    last = 0.0
    limit = int((distance + 2 * STANDOFF + 0.05) / PUSH_STEP) + 20
    for _ in range(limit):
        progress = float((xy_of(sim, name) - start) @ d)
        if progress >= distance - 0.002:
            return True
        stalled = stalled + 1 if progress > 0.002 and progress - last < 1e-4 else 0
        if stalled > 15:
            return False
        last = progress
        # Slow down near the goal, so a ball does not roll on past it.
        step = min(PUSH_STEP, max(0.002, 0.5 * (distance - progress)))
        tcp = sim.tcp_pos()
        goal = np.array([tcp[0] + d[0] * step, tcp[1] + d[1] * step, z])
        yield pose_to_action(sim.config, tcp, sim.tool_mat(), goal, target, grip, max_speed=1.0)
    return False


def check_push(sim: TabletopSim, name: str, start: Array, d: Array, distance: float) -> tuple[bool, str]:
    """Success when the object moved `distance` along `d` within the distance and angle tolerances."""
    disp = xy_of(sim, name) - start
    moved = float(np.linalg.norm(disp))
    if moved < 1e-4:
        return False, f"{name!r} did not move"
    along = float(disp @ d)
    angle = math.degrees(math.acos(max(-1.0, min(1.0, along / moved))))
    if angle > PUSH_ANGLE_TOL or abs(along - distance) > max(0.01, PUSH_DISTANCE_TOL * distance):
        return False, f"{name!r} moved {along:.3f} m along the push, {angle:.0f} deg off (asked {distance:.3f} m)"
    return True, f"pushed {name!r} {along:.3f} m, {angle:.0f} deg off the direction"
