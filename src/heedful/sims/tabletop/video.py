"""Write an episode's frames to MP4 (imageio with imageio-ffmpeg) or GIF (Pillow, no ffmpeg needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError, MissingDependencyError

_HINT = 'pip install "heedful[tabletop]"'


def _as_frames(frames: NDArray[np.uint8] | Sequence[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    arr = np.asarray(frames)
    if arr.ndim != 4 or arr.shape[-1] != 3 or arr.shape[0] == 0:
        raise ConfigError(f"frames must be a non-empty (T, H, W, 3) array, got shape {arr.shape}")
    if arr.dtype != np.uint8:
        raise ConfigError(f"frames must be uint8 RGB, got {arr.dtype}")
    return arr


def write_video(frames: NDArray[np.uint8] | Sequence[NDArray[np.uint8]], path: str | Path, fps: float = 20.0) -> Path:
    """Write frames (T, H, W, 3) uint8 to `path`; the suffix (.mp4 or .gif) picks the format.

    Raises:
        ConfigError: bad frames, fps or suffix.
        MissingDependencyError: the writer's package is not installed.
    """
    arr = _as_frames(frames)
    if not 0 < fps <= 240:
        raise ConfigError(f"fps must be in (0, 240], got {fps}")
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".gif":
        _write_gif(arr, target, fps)
    elif suffix == ".mp4":
        _write_mp4(arr, target, fps)
    else:
        raise ConfigError(f"video path must end in .mp4 or .gif, got {target.name!r}")
    return target


def _write_gif(arr: NDArray[np.uint8], target: Path, fps: float) -> None:
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(f"GIF writing needs Pillow: {_HINT}") from exc
    images = [Image.fromarray(frame) for frame in arr]
    duration_ms = max(1, round(1000 / fps))
    images[0].save(target, save_all=True, append_images=images[1:], duration=duration_ms, loop=0)


def _write_mp4(arr: NDArray[np.uint8], target: Path, fps: float) -> None:
    if arr.shape[1] % 2 or arr.shape[2] % 2:
        raise ConfigError(f"MP4 (H.264) needs even frame sizes, got {arr.shape[2]}x{arr.shape[1]}; or write a .gif")
    try:
        import imageio.v2 as imageio
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(f"MP4 writing needs imageio and imageio-ffmpeg: {_HINT}") from exc
    try:
        # macro_block_size=1 keeps odd frame sizes instead of rescaling them.
        with imageio.get_writer(target, fps=fps, codec="libx264", macro_block_size=1) as writer:
            for frame in arr:
                writer.append_data(frame)  # type: ignore[attr-defined]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(f"MP4 writing needs ffmpeg (imageio-ffmpeg): {_HINT}; or write a .gif") from exc
