"""Small rotation helpers (numpy only). Quaternions are (w, x, y, z), as in MuJoCo."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

# The tool frame points its z axis down: it is the gripper body frame turned by pi about x.
TOOL_FROM_BODY: Array = np.diag([1.0, -1.0, -1.0])


def wrap_angle(angle: float) -> float:
    """Wrap an angle to [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def quat_to_mat(q: Array) -> Array:
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def mat_to_quat(m: Array) -> Array:
    """Unit quaternion (w, x, y, z) of a rotation matrix, with w >= 0."""
    tr = float(np.trace(m))
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = np.array([0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s])
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = np.array([(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s])
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = np.array([(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s])
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = np.array([(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s])
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def quat_to_axis_angle(q: Array) -> Array:
    """Axis-angle vector (axis times angle, angle in [0, pi]) of a quaternion (w, x, y, z)."""
    w = float(q[0])
    v = np.asarray(q[1:], dtype=np.float64)
    if w < 0:
        w, v = -w, -v
    w = min(w, 1.0)
    s = math.sqrt(max(0.0, 1.0 - w * w))
    if s < 1e-12:
        return np.zeros(3)
    return np.asarray(v * (2.0 * math.acos(w) / s), dtype=np.float64)


def axis_angle_to_mat(v: Array) -> Array:
    """Rotation matrix of an axis-angle vector (Rodrigues' formula)."""
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        return np.eye(3)
    k = np.asarray(v, dtype=np.float64) / angle
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.asarray(np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * (kx @ kx), dtype=np.float64)


def mat_to_axis_angle(m: Array) -> Array:
    """Axis-angle vector of a rotation matrix."""
    return quat_to_axis_angle(mat_to_quat(m))


def euler_zyx_to_mat(yaw: float, pitch: float, roll: float) -> Array:
    """R = Rz(yaw) @ Ry(pitch) @ Rx(roll): the gripper's hinge chain."""
    cz, sz = math.cos(yaw), math.sin(yaw)
    cy, sy = math.cos(pitch), math.sin(pitch)
    cx, sx = math.cos(roll), math.sin(roll)
    rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    return np.asarray(rz @ ry @ rx, dtype=np.float64)


def mat_to_euler_zyx(m: Array) -> tuple[float, float, float]:
    """(yaw, pitch, roll) with R = Rz(yaw) Ry(pitch) Rx(roll); pitch in [-pi/2, pi/2]."""
    pitch = -math.asin(max(-1.0, min(1.0, float(m[2, 0]))))
    if abs(math.cos(pitch)) < 1e-9:  # gimbal lock: put everything into yaw
        return math.atan2(-float(m[0, 1]), float(m[1, 1])), pitch, 0.0
    yaw = math.atan2(float(m[1, 0]), float(m[0, 0]))
    roll = math.atan2(float(m[2, 1]), float(m[2, 2]))
    return yaw, pitch, roll


def yaw_of_quat(q: Array) -> float:
    """Heading of a body's x axis in the table plane (radians), from its quaternion (w, x, y, z)."""
    w, x, y, z = (float(v) for v in q)
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def tilt_of_quat(q: Array) -> float:
    """Angle between a body's z axis and the world's z axis (radians)."""
    x, y = float(q[1]), float(q[2])
    cos_tilt = 1 - 2 * (x * x + y * y)
    return math.acos(max(-1.0, min(1.0, cos_tilt)))


def yaw_error(target: float, current: float, period: float = 2 * math.pi) -> float:
    """Signed smallest rotation from `current` to `target`, modulo `period` (pi for two-fold symmetric objects)."""
    err = (target - current) % period
    return err - period if err > period / 2 else err


# Plain-float quaternion helpers for the per-step hot path (numpy's per-call cost dominates 3x3 math).
Quat = tuple[float, float, float, float]
TOOL_FROM_BODY_QUAT: Quat = (0.0, 1.0, 0.0, 0.0)  # a half turn about x


def quat_mul(a: Quat, b: Quat) -> Quat:
    """Hamilton product a * b of quaternions (w, x, y, z)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def quat_from_axis_angle(x: float, y: float, z: float) -> Quat:
    """Quaternion of the rotation vector (x, y, z) (axis times angle)."""
    angle = math.sqrt(x * x + y * y + z * z)
    if angle < 1e-12:
        return (1.0, 0.0, 0.0, 0.0)
    s = math.sin(angle / 2) / angle
    return (math.cos(angle / 2), x * s, y * s, z * s)


def quat_from_euler_zyx(yaw: float, pitch: float, roll: float) -> Quat:
    """Quaternion of Rz(yaw) Ry(pitch) Rx(roll)."""
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    return (
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    )


def euler_zyx_from_quat(q: Quat) -> tuple[float, float, float]:
    """(yaw, pitch, roll) of a unit quaternion, with R = Rz(yaw) Ry(pitch) Rx(roll)."""
    w, x, y, z = q
    sin_pitch = max(-1.0, min(1.0, 2.0 * (w * y - z * x)))
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    return yaw, math.asin(sin_pitch), roll


def quat_axis_angle(q: Quat) -> tuple[float, float, float]:
    """Axis-angle vector of a quaternion (angle in [0, pi])."""
    w, x, y, z = q
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    s = math.sqrt(max(0.0, 1.0 - min(w, 1.0) ** 2))
    if s < 1e-12:
        return (0.0, 0.0, 0.0)
    k = 2.0 * math.acos(min(w, 1.0)) / s
    return (x * k, y * k, z * k)
