"""The object-centric features a bc policy reads: slots, one-hots, relative positions, and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from heedful.errors import DatasetError
from heedful.learning.demo_reader import action_chunks
from heedful.learning.features import (
    COLORS,
    MAX_SLOTS,
    SHAPES,
    SLOT_WIDTH,
    STATE_WIDTH,
    ObjectAttributes,
    attribute_block,
    state_features,
)

CUBE = ObjectAttributes("cube", "red", "small")
BOWL = ObjectAttributes("bowl", "blue", "large")


def test_slots_hold_pose_relative_position_and_one_hots() -> None:
    poses = np.array([[[0.1, 0.5, 0.02, -1.0, 0.0, 0.0, 0.0], [-0.2, 0.4, 0.01, 1.0, 0.0, 0.0, 0.0]]])
    proprio = np.array([[0.0, 0.5, 0.2, 0.0, 0.0, 0.0, 0.04, 0.04]])
    row = state_features(poses, proprio, attribute_block([CUBE, BOWL]))[0]
    assert row.shape == (STATE_WIDTH,) and row.dtype == np.float32
    slots = row[: MAX_SLOTS * SLOT_WIDTH].reshape(MAX_SLOTS, SLOT_WIDTH)
    assert slots[0, 0] == 1 and slots[1, 0] == 1 and not slots[2:].any()  # unused slots are zeros
    np.testing.assert_allclose(slots[0, 1:4], [0.1, 0.5, 0.02])
    np.testing.assert_allclose(slots[0, 4:7], [0.1, 0.0, -0.18], atol=1e-7)  # object minus tool centre point
    np.testing.assert_allclose(slots[0, 7:11], [1.0, 0.0, 0.0, 0.0])  # q and -q are one rotation: qw >= 0
    assert slots[0, 11 + SHAPES.index("cube")] == 1 and slots[1, 11 + SHAPES.index("bowl")] == 1
    assert slots[0, 11 + len(SHAPES) + COLORS.index("red")] == 1
    assert slots[1, -1] == 1 and slots[0, -2] == 1  # large, small
    np.testing.assert_allclose(row[-8:], proprio[0])


def test_features_refuse_what_a_policy_must_not_see() -> None:
    with pytest.raises(DatasetError, match="9 objects"):
        attribute_block([CUBE] * (MAX_SLOTS + 1))
    with pytest.raises(DatasetError, match="'pink'"):
        attribute_block([ObjectAttributes("cube", "pink", "small")])
    poses = np.zeros((1, 1, 7))
    poses[0, 0, 0] = np.nan
    with pytest.raises(DatasetError, match="NaN"):
        state_features(poses, np.zeros((1, 8)), attribute_block([CUBE]))
    with pytest.raises(DatasetError, match="do not align"):
        state_features(np.zeros((2, 1, 7)), np.zeros((1, 8)), attribute_block([CUBE]))


def test_chunks_continue_with_the_idle_action_past_the_demo() -> None:
    actions = np.arange(3 * 7, dtype=float).reshape(3, 7)
    chunks = action_chunks(actions, 4)
    assert chunks.shape == (3, 4, 7)
    np.testing.assert_array_equal(chunks[0, :3], actions)
    idle = np.zeros(7)
    idle[-1] = actions[-1, -1]  # no motion, the gripper kept as the last action left it
    np.testing.assert_array_equal(chunks[2, 1], idle)
    np.testing.assert_array_equal(chunks[1, 2], idle)
