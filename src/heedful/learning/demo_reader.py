"""Read `heedful demos tabletop` HDF5 files into aligned training samples.

Each control step of each demo becomes one sample: its state features (`heedful.learning.features`), the index
of its demo's instruction, the chunk of the next `horizon` expert actions and, for an image policy, its camera
frames at the policy's input size (`heedful.learning.images`). Past a demo's last action the
chunk continues with the idle action (no motion, the gripper as the last action left it): the expert's task is
done there, and the policy sees the same idle target that evaluation wants of it until the horizon.

Frames can be memory-mapped (`frames_dir`): they are written demo by demo to a file there and read back as a
memory map, so a camera set larger than the machine's memory trains (the full 3,750-demo set at 64 px is about
9.3 GB of frames); the operating system keeps the pages it can in its cache and drops the others.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from heedful.errors import DatasetError
from heedful.learning.features import PROPRIO, ObjectAttributes, attribute_block, state_features
from heedful.learning.images import HDF5_KEYS, reduce_frames
from heedful.suites.tabletop.demo_file import DEMO_FORMAT, require_h5py

ACTION_DIM = 7


@dataclass(frozen=True)
class DemoSamples:
    """Every control step of a set of demos, aligned."""

    states: NDArray[np.float32]  # (S, STATE_WIDTH)
    chunks: NDArray[np.float32]  # (S, horizon, 7)
    instruction_ids: NDArray[np.int64]  # (S,) into `instructions`
    demo_ids: NDArray[np.int64]  # (S,) which demo (0..demos-1)
    instructions: tuple[str, ...]
    tasks: tuple[str, ...]  # the training task label of each demo
    files: int
    images: NDArray[np.uint8] | None = None  # (S, cameras, size, size, 3) when cameras were asked for
    recorded_size: int | None = None  # the demos' own image size (before any reduction)

    @property
    def demos(self) -> int:
        return len(self.tasks)

    def __len__(self) -> int:
        return int(self.states.shape[0])


def action_chunks(actions: NDArray[np.float64], horizon: int) -> NDArray[np.float64]:
    """(T, horizon, 7): row t holds actions t .. t + horizon - 1, padded with the idle action."""
    steps = actions.shape[0]
    idle = np.zeros(ACTION_DIM)
    idle[-1] = actions[-1, -1]
    padded = np.concatenate([actions, np.repeat(idle[None], horizon - 1, axis=0)])
    index = np.arange(steps)[:, None] + np.arange(horizon)[None, :]
    chunks: NDArray[np.float64] = padded[index]
    return chunks


def demo_files(root: Path) -> list[Path]:
    """The `*_demo.hdf5` files under `root`, sorted by name.

    Raises:
        DatasetError: none there.
    """
    root = Path(root)
    files = sorted(root.glob("*_demo.hdf5")) if root.is_dir() else []
    if not files:
        raise DatasetError(f"no *_demo.hdf5 files in {root}; record them with `heedful demos tabletop --out {root}`")
    return files


def _attributes(layout_json: str, where: str) -> list[ObjectAttributes]:
    try:
        objects = json.loads(layout_json)["objects"]
        return [ObjectAttributes(str(o["shape"]), str(o["color"]), str(o.get("size", "small"))) for o in objects]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DatasetError(f"{where}: its layout attribute is not a heedful layout ({exc})") from None


def _read_demo(group: Any, where: str, horizon: int) -> tuple[NDArray[np.float32], NDArray[np.float64], str]:
    try:
        actions = np.asarray(group["actions"], dtype=np.float64)
        proprio = np.asarray(group["robot_states"], dtype=np.float64)
        flat = np.asarray(group["obs/object"], dtype=np.float64)
        instruction = str(group.attrs["instruction"])
        layout = str(group.attrs["layout"])
    except KeyError as exc:
        raise DatasetError(f"{where} lacks {exc}: not a heedful demo; record it again with `heedful demos`") from None
    attributes = _attributes(layout, where)
    steps = actions.shape[0]
    if actions.ndim != 2 or actions.shape[1] != ACTION_DIM or steps == 0:
        raise DatasetError(f"{where}: actions have shape {actions.shape}, not (T, 7)")
    if proprio.shape != (steps, PROPRIO) or flat.shape != (steps, 7 * len(attributes)):
        raise DatasetError(
            f"{where}: robot_states {proprio.shape} and obs/object {flat.shape} do not align with {steps} actions "
            f"and {len(attributes)} objects"
        )
    if not np.isfinite(actions).all():
        raise DatasetError(f"{where}: actions hold NaN or inf")
    try:
        states = state_features(flat.reshape(steps, len(attributes), 7), proprio, attribute_block(attributes))
    except DatasetError as exc:
        raise DatasetError(f"{where}: {exc}") from None
    return states, action_chunks(actions, horizon), instruction


def _read_frames(group: Any, where: str, cameras: tuple[str, ...], size: int) -> tuple[NDArray[np.uint8], int]:
    """(T, cameras, size, size, 3) frames of one demo, and the size they were recorded at."""
    frames, recorded = [], 0
    for camera in cameras:
        key = f"obs/{HDF5_KEYS[camera]}"
        if key not in group:
            raise DatasetError(
                f"{where} has no {camera} images; an image policy needs demos recorded with "
                "`heedful demos tabletop --cameras`"
            )
        raw = np.asarray(group[key])
        recorded = int(raw.shape[1]) if raw.ndim == 4 else 0
        try:
            frames.append(reduce_frames(raw, size))
        except DatasetError as exc:
            raise DatasetError(f"{where}: {exc}") from None
    return np.stack(frames, axis=1), recorded


def read_demos(
    root: Path,
    horizon: int,
    *,
    tasks: set[str] | None = None,
    per_task: int | None = None,
    cameras: tuple[str, ...] = (),
    image_size: int = 64,
    progress: Callable[[int, int], None] | None = None,
    frames_dir: Path | None = None,
) -> DemoSamples:
    """All samples of the demos under `root` (only `tasks`, and the first `per_task` demos of each, if given),
    with the frames of `cameras` at `image_size` pixels when cameras are named: in memory, or with `frames_dir`
    memory-mapped from a file there (removed from the directory at once: it lives as long as the array does).

    Raises:
        DatasetError: no files, a file that is not a heedful demo file, or a malformed demo (named).
    """
    files = demo_files(root)
    if tasks is not None:
        files = [f for f in files if f.name.removesuffix("_demo.hdf5") in tasks]
        if not files:
            raise DatasetError(f"none of the tasks {sorted(tasks)} has a demo file in {root}")
    images = _Frames(frames_dir if cameras else None)
    recorded: set[int] = set()
    try:
        found = _read_files(files, horizon, per_task, cameras, image_size, progress, images, recorded)
        states, chunks, instruction_ids, demo_ids, labels, instructions = found
        if not states:
            raise DatasetError(f"the demo files in {root} hold no complete demo")
        if len(recorded) > 1:
            raise DatasetError(f"the demos in {root} mix image sizes {sorted(recorded)}; record them all at one size")
        frames = images.array() if cameras else None
    finally:
        images.close()  # on an error too: no file is left behind
    return DemoSamples(
        states=np.concatenate(states),
        chunks=np.concatenate(chunks),
        instruction_ids=np.concatenate(instruction_ids).astype(np.int64),
        demo_ids=np.concatenate(demo_ids).astype(np.int64),
        instructions=tuple(instructions),
        tasks=tuple(labels),
        files=len(files),
        images=frames,
        recorded_size=recorded.pop() if recorded else None,
    )


def _read_files(
    files: list[Path],
    horizon: int,
    per_task: int | None,
    cameras: tuple[str, ...],
    image_size: int,
    progress: Callable[[int, int], None] | None,
    images: _Frames,
    recorded: set[int],
) -> tuple[
    list[NDArray[np.float32]],
    list[NDArray[np.float32]],
    list[NDArray[np.int64]],
    list[NDArray[np.int64]],
    list[str],
    dict[str, int],
]:
    h5py = require_h5py()
    states: list[NDArray[np.float32]] = []
    chunks: list[NDArray[np.float32]] = []
    instruction_ids: list[NDArray[np.int64]] = []
    demo_ids: list[NDArray[np.int64]] = []
    labels: list[str] = []
    instructions: dict[str, int] = {}
    for path in files:
        try:
            handle = h5py.File(path, "r")
        except OSError as exc:
            raise DatasetError(f"{path} is not a readable HDF5 file ({exc})") from None
        with handle:
            data = handle.get("data")
            if data is None or data.attrs.get("heedful_format") != DEMO_FORMAT:
                raise DatasetError(f"{path} is not a {DEMO_FORMAT} file (written by `heedful demos tabletop`)")
            names = sorted((k for k in data if "num_samples" in data[k].attrs), key=lambda k: int(k.split("_")[1]))
            for name in names[:per_task]:
                s, c, text = _read_demo(data[name], f"{path}:{name}", horizon)
                if cameras:
                    frames, size = _read_frames(data[name], f"{path}:{name}", cameras, image_size)
                    images.add(frames)
                    recorded.add(size)
                index = instructions.setdefault(text, len(instructions))
                states.append(s)
                chunks.append(c.astype(np.float32))
                instruction_ids.append(np.full(len(s), index))
                demo_ids.append(np.full(len(s), len(labels)))
                labels.append(path.name.removesuffix("_demo.hdf5"))
        if progress is not None:
            progress(1, len(files))
    return states, chunks, instruction_ids, demo_ids, labels, instructions


class _Frames:
    """The frames of the demos read so far, in order: a list in memory, or a file in `directory` that `array`
    maps (the file's name is removed at once; its pages stay until the map is dropped)."""

    def __init__(self, directory: Path | None) -> None:
        self._parts: list[NDArray[np.uint8]] = []
        self._shape: tuple[int, ...] | None = None
        self._steps = 0
        self._file: BinaryIO | None = None
        self._path: str | None = None
        if directory is not None:
            Path(directory).mkdir(parents=True, exist_ok=True)
            fd, self._path = tempfile.mkstemp(dir=directory, prefix=".frames-", suffix=".u8")
            self._file = os.fdopen(fd, "wb")

    def add(self, frames: NDArray[np.uint8]) -> None:
        self._shape = frames.shape[1:]
        self._steps += len(frames)
        if self._file is None:
            self._parts.append(frames)
        else:
            self._file.write(np.ascontiguousarray(frames).tobytes())

    def array(self) -> NDArray[np.uint8]:
        if self._file is None:
            return np.concatenate(self._parts)
        assert self._path is not None and self._shape is not None  # a file, and at least one demo read into it
        self._file.close()
        mapped = np.memmap(self._path, dtype=np.uint8, mode="r+", shape=(self._steps, *self._shape))
        self.close()
        return mapped

    def close(self) -> None:
        """Remove the file's name (idempotent): a map made of it keeps its pages; without one, the file is gone."""
        if self._file is not None:
            self._file.close()
        if self._path is not None:
            Path(self._path).unlink(missing_ok=True)
            self._path = None
