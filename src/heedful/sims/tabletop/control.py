"""Action spaces: validation of raw actions and their conversion to actuator targets.

`delta_eef` (LIBERO-like): 7 numbers in [-1, 1] (larger values are clipped): dx, dy, dz scaled by
`pos_scale` meters, droll, dpitch, dyaw (a world-frame axis-angle rotation) scaled by `rot_scale` radians,
and the gripper (-1 open, +1 closed). Targets are relative to the current tool pose, as in robosuite's OSC.

`abs_eef`: 7 numbers: tool center point x, y, z (meters, table frame), the tool frame's axis-angle
(same convention as the `state` observation), and the gripper in [-1, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from heedful.errors import InvalidActionError
from heedful.sims.tabletop.config import MAX_TILT, WORKSPACE_HIGH, WORKSPACE_LOW, SimConfig
from heedful.sims.tabletop.mjcf import FINGER_MAX
from heedful.sims.tabletop.rotations import (
    TOOL_FROM_BODY,
    TOOL_FROM_BODY_QUAT,
    axis_angle_to_mat,
    euler_zyx_from_quat,
    euler_zyx_to_mat,
    mat_to_axis_angle,
    quat_from_axis_angle,
    quat_from_euler_zyx,
    quat_mul,
    wrap_angle,
)

Array = NDArray[np.float64]
ACTION_DIM = 7


def validate_action(action: object, config: SimConfig) -> Array:
    """Return the action as a finite float64 vector of length 7, or raise / repair per `config.bad_action`.

    Wrong shapes and non-numeric input always raise. Under `bad_action="clip"`, NaN and inf entries are
    replaced: NaN by 0 (no motion for delta_eef), +-inf by the action bound; for `abs_eef` NaN entries are
    rejected even then, because no neutral absolute pose exists.

    Raises:
        InvalidActionError: naming the problem and the expected form.
    """
    try:
        arr = np.asarray(action, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidActionError(
            f"action must be 7 numbers ({config.action_space}), got {type(action).__name__}: {exc}"
        ) from exc
    if arr.shape != (ACTION_DIM,):
        raise InvalidActionError(
            f"action must have shape (7,) for {config.action_space} "
            f"(dx, dy, dz, droll, dpitch, dyaw, gripper), got shape {arr.shape}"
        )
    if math.isfinite(float(arr.sum())):  # one reduction on the hot path
        return arr
    finite = np.isfinite(arr)
    if finite.all():  # finite entries whose sum overflowed
        return arr
    bad = [int(i) for i in np.flatnonzero(~finite)]
    if config.bad_action == "raise":
        raise InvalidActionError(
            f"action has non-finite entries at indices {bad}: {arr.tolist()}; send finite numbers "
            "(or set SimConfig.bad_action='clip' to repair them)"
        )
    if config.action_space == "abs_eef" and np.isnan(arr).any():
        raise InvalidActionError(f"abs_eef action has NaN entries at indices {bad}; no neutral absolute pose exists")
    repaired = np.where(np.isnan(arr), 0.0, arr)
    return np.asarray(np.clip(repaired, -1e6, 1e6), dtype=np.float64)


def gripper_target(command: float) -> float:
    """Finger travel (meters from center) for a gripper command in [-1, 1] (-1 open, +1 closed)."""
    c = min(1.0, max(-1.0, command))
    return FINGER_MAX * (1.0 - c) / 2.0


def action_to_ctrl(action: Array, config: SimConfig, arm: Sequence[float]) -> list[float]:
    """Actuator targets (x, y, z, yaw, pitch, roll, finger) for a validated action.

    Plain float arithmetic: this runs every control step, where numpy's per-call cost would dominate.

    Args:
        action: Output of `validate_action`.
        config: Selects the action space and its scales.
        arm: Current gripper joint positions: TCP x, y, z, then the yaw, pitch and roll hinges.
    """
    x0, y0, z0, yaw0, pitch0, roll0 = arm
    a = action.tolist()
    if config.action_space == "delta_eef":
        a = [min(1.0, max(-1.0, v)) for v in a]
        s, r = config.pos_scale, config.rot_scale
        pos = [x0 + a[0] * s, y0 + a[1] * s, z0 + a[2] * s]
        body = quat_mul(quat_from_axis_angle(a[3] * r, a[4] * r, a[5] * r), quat_from_euler_zyx(yaw0, pitch0, roll0))
    else:
        pos = a[:3]
        # tool = body * TOOL_FROM_BODY, and TOOL_FROM_BODY is its own inverse up to sign
        body = quat_mul(quat_from_axis_angle(a[3], a[4], a[5]), TOOL_FROM_BODY_QUAT)
    yaw, pitch, roll = euler_zyx_from_quat(body)
    return [
        *(min(hi, max(lo, p)) for p, lo, hi in zip(pos, WORKSPACE_LOW, WORKSPACE_HIGH, strict=True)),
        # Keep the yaw hinge on the nearest equivalent angle, so it never spins the long way round.
        yaw0 + wrap_angle(yaw - yaw0),
        min(MAX_TILT, max(-MAX_TILT, pitch)),
        min(MAX_TILT, max(-MAX_TILT, roll)),
        gripper_target(a[6]),
    ]


def pose_to_action(
    config: SimConfig,
    tcp_pos: Array,
    tool_mat: Array,
    target_pos: Array,
    target_tool_mat: Array,
    gripper: float,
    max_speed: float = 1.0,
) -> Array:
    """The action that moves the tool toward a target pose, in the configured action space.

    For `delta_eef` the step is limited to `max_speed` (a fraction of the full action range), as a
    proportional controller a scripted expert would use; `abs_eef` targets move at most `max_speed *
    pos_scale` meters per step as well, so both spaces produce the same motion.
    """
    dpos = np.asarray(target_pos, dtype=np.float64) - tcp_pos
    step = np.clip(dpos / config.pos_scale, -max_speed, max_speed)
    rot = target_tool_mat @ tool_mat.T
    drot = mat_to_axis_angle(rot)
    angle = float(np.linalg.norm(drot))
    limit = max_speed * config.rot_scale
    if angle > limit:
        drot = drot * (limit / angle)
    if config.action_space == "delta_eef":
        return np.concatenate([step, drot / config.rot_scale, [gripper]])
    pos = tcp_pos + step * config.pos_scale
    tool = axis_angle_to_mat(drot) @ tool_mat
    return np.concatenate([pos, mat_to_axis_angle(tool), [gripper]])


def tool_yaw_mat(yaw: float) -> Array:
    """Tool frame pointing straight down with the fingers' closing axis at `yaw` radians."""
    return np.asarray(euler_zyx_to_mat(yaw, 0.0, 0.0) @ TOOL_FROM_BODY, dtype=np.float64)
