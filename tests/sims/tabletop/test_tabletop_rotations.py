"""Rotation helpers: round trips and the conventions the state vector relies on."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.sims.tabletop.rotations import (
    TOOL_FROM_BODY,
    axis_angle_to_mat,
    euler_zyx_to_mat,
    mat_to_axis_angle,
    mat_to_euler_zyx,
    mat_to_quat,
    quat_to_mat,
    tilt_of_quat,
    wrap_angle,
    yaw_error,
    yaw_of_quat,
)

angles = st.floats(-3.0, 3.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(angles, st.floats(-1.4, 1.4), angles)
def test_euler_and_quaternion_round_trips(yaw: float, pitch: float, roll: float) -> None:
    m = euler_zyx_to_mat(yaw, pitch, roll)
    assert np.allclose(m @ m.T, np.eye(3), atol=1e-12)
    assert np.allclose(euler_zyx_to_mat(*mat_to_euler_zyx(m)), m, atol=1e-9)
    q = mat_to_quat(m)
    assert q[0] >= 0 and math.isclose(float(np.linalg.norm(q)), 1.0, rel_tol=1e-12)
    assert np.allclose(quat_to_mat(q), m, atol=1e-9)
    assert np.allclose(axis_angle_to_mat(mat_to_axis_angle(m)), m, atol=1e-7)


def test_pointing_down_tool_has_the_libero_like_axis_angle() -> None:
    aa = mat_to_axis_angle(euler_zyx_to_mat(0.0, 0.0, 0.0) @ TOOL_FROM_BODY)
    assert np.allclose(aa, [math.pi, 0.0, 0.0])


def test_yaw_helpers() -> None:
    q = mat_to_quat(euler_zyx_to_mat(0.7, 0.0, 0.0))
    assert math.isclose(yaw_of_quat(q), 0.7, abs_tol=1e-12)
    assert math.isclose(tilt_of_quat(q), 0.0, abs_tol=1e-7)
    assert math.isclose(tilt_of_quat(mat_to_quat(euler_zyx_to_mat(0, 0.3, 0))), 0.3, abs_tol=1e-9)
    assert math.isclose(wrap_angle(2.5 * math.pi), 0.5 * math.pi)
    assert math.isclose(yaw_error(math.radians(170), math.radians(-170)), math.radians(-20))
    assert math.isclose(yaw_error(math.radians(100), 0.0, period=math.pi), math.radians(-80))
