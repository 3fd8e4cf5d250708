"""The object-centric state of a tabletop step, as a fixed-size vector: the same code in training and evaluation.

Each object of the scene fills one slot, in scene order (the order of the trial's layout), with: a presence
flag, its position, its position relative to the tool centre point, its orientation quaternion (sign chosen so
that qw >= 0), and one-hot shape, colour and size. Unused slots are zeros. The 8-D proprioceptive state (TCP
position, tool axis-angle, finger positions) follows the slots. Slot order is the scene's, so a policy can learn
which slot a training task acts on: exactly the shortcut that RoboFollow's new layouts (L1, L3) expose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.errors import DatasetError

FEATURES_VERSION = "heedful-bc-features/1"
MAX_SLOTS = 8  # the largest tabletop scene has 7 objects
SHAPES = ("cube", "block", "cylinder", "sphere", "bar", "bowl", "label")
COLORS = ("red", "green", "blue", "yellow", "purple", "orange", "white", "gray", "black")
SIZES = ("small", "large")
PROPRIO = 8
SLOT_WIDTH = 1 + 3 + 3 + 4 + len(SHAPES) + len(COLORS) + len(SIZES)
STATE_WIDTH = MAX_SLOTS * SLOT_WIDTH + PROPRIO


@dataclass(frozen=True)
class ObjectAttributes:
    """What does not move: an object's shape, colour and size."""

    shape: str
    color: str
    size: str


def attribute_block(objects: Sequence[ObjectAttributes]) -> NDArray[np.float64]:
    """The constant part of the slots (presence and one-hots), shape (MAX_SLOTS, SLOT_WIDTH - 10).

    Raises:
        DatasetError: more objects than slots, or a shape, colour or size outside the vocabulary.
    """
    if len(objects) > MAX_SLOTS:
        raise DatasetError(f"a scene of {len(objects)} objects does not fit the policy's {MAX_SLOTS} object slots")
    block = np.zeros((MAX_SLOTS, 1 + len(SHAPES) + len(COLORS) + len(SIZES)))
    for i, obj in enumerate(objects):
        for vocabulary, value, offset in (
            (SHAPES, obj.shape, 1),
            (COLORS, obj.color, 1 + len(SHAPES)),
            (SIZES, obj.size, 1 + len(SHAPES) + len(COLORS)),
        ):
            if value not in vocabulary:
                raise DatasetError(f"object {i} has {value!r}, not one of {', '.join(vocabulary)}")
            block[i, offset + vocabulary.index(value)] = 1.0
        block[i, 0] = 1.0
    return block


def state_features(
    poses: NDArray[np.float64], proprio: NDArray[np.float64], attributes: NDArray[np.float64]
) -> NDArray[np.float32]:
    """Feature rows for T steps: `poses` (T, N, 7) object poses, `proprio` (T, 8), `attributes` from
    `attribute_block`. Returns (T, STATE_WIDTH) float32.

    Raises:
        DatasetError: mismatched shapes or non-finite values (a policy must never see NaN).
    """
    poses = np.asarray(poses, dtype=np.float64)
    proprio = np.asarray(proprio, dtype=np.float64)
    if poses.ndim != 3 or poses.shape[2] != 7 or proprio.shape != (poses.shape[0], PROPRIO):
        raise DatasetError(f"object poses {poses.shape} and proprio {proprio.shape} do not align as (T, N, 7), (T, 8)")
    steps, count = poses.shape[:2]
    if count > MAX_SLOTS:
        raise DatasetError(f"{count} objects do not fit the policy's {MAX_SLOTS} object slots")
    if not (np.isfinite(poses).all() and np.isfinite(proprio).all()):
        raise DatasetError("object poses or proprioceptive state hold NaN or inf")
    quats = poses[:, :, 3:7] * np.where(poses[:, :, 3:4] < 0, -1.0, 1.0)
    slots = np.zeros((steps, MAX_SLOTS, SLOT_WIDTH))
    slots[:, :, 0] = attributes[:, 0]
    slots[:, :count, 1:4] = poses[:, :, :3]
    slots[:, :count, 4:7] = poses[:, :, :3] - proprio[:, None, :3]
    slots[:, :count, 7:11] = quats
    slots[:, :, 11:] = attributes[:, 1:]
    return np.concatenate([slots.reshape(steps, -1), proprio], axis=1).astype(np.float32)
