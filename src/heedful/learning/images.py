"""Camera images as an image policy reads them: the same code in training and evaluation.

A policy is trained at one square input size. Demos recorded at that size are used as they are; demos recorded
larger are reduced with PIL's box filter (each output pixel the mean of the input pixels it covers), and the
`bc` agent then renders at the demos' size and reduces its images with the same function, so the network sees
the same kind of pixels at test time as in training.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from heedful.errors import DatasetError

# Policy camera names -> HDF5 image keys (`heedful.suites.tabletop.demos.CAMERA_KEYS`) and observation keys.
CAMERAS = ("agentview", "wrist")
HDF5_KEYS = {"agentview": "agentview_rgb", "wrist": "eye_in_hand_rgb"}
OBSERVATION_KEYS = {"agentview": "image", "wrist": "wrist_image"}


def check_cameras(cameras: Sequence[str]) -> tuple[str, ...]:
    """The cameras as a tuple, in the order given.

    Raises:
        DatasetError: none, a repeat, or a name other than agentview / wrist.
    """
    chosen = tuple(cameras)
    unknown = [c for c in chosen if c not in CAMERAS]
    if not chosen or unknown or len(set(chosen)) != len(chosen):
        raise DatasetError(f"cameras must be one or both of {', '.join(CAMERAS)} without repeats, got {list(chosen)}")
    return chosen


def reduce_frames(frames: NDArray[np.uint8], size: int) -> NDArray[np.uint8]:
    """(T, H, W, 3) uint8 frames as (T, size, size, 3) uint8: unchanged at that size, box-filtered when larger.

    Raises:
        DatasetError: frames that are not (T, H, W, 3) uint8 squares, or smaller than `size`.
    """
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[3] != 3 or frames.dtype != np.uint8 or frames.shape[1] != frames.shape[2]:
        raise DatasetError(f"images must be square (T, H, W, 3) uint8 frames, got {frames.shape} {frames.dtype}")
    if frames.shape[1] == size:
        return frames
    if frames.shape[1] < size:
        raise DatasetError(
            f"images of {frames.shape[1]} px are smaller than the policy's {size} px input; record the demos with "
            f"`heedful demos tabletop --cameras --image-size {size}` or train with a smaller --image-size"
        )
    return np.stack([np.asarray(Image.fromarray(f).resize((size, size), Image.Resampling.BOX)) for f in frames])
