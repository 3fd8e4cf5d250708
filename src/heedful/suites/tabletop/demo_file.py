"""The HDF5 layout of tabletop demonstrations, compatible with LIBERO / robomimic loaders.

One file per training task, `<label>_demo.hdf5` (LIBERO's naming), holding:

    data/                       attrs: total (control steps over all demos), env_args (JSON: env_name,
                                type, env_kwargs), problem_info (JSON: language_instruction, task label,
                                scene, config), paraphrases (JSON list), heedful_format
    data/demo_<i>/              attrs: num_samples (T), instruction (the paraphrase sampled for this demo),
                                seed, layout (JSON of the perturbed initial scene), init_state
        actions                 (T, 7) float64: delta_eef actions (dx, dy, dz, droll, dpitch, dyaw, gripper)
        states                  (T, D) float64: the full MuJoCo integration state before each action
        rewards                 (T,) float64: 1 at the last step (every stored demo completes its task)
        dones                   (T,) uint8: 1 at the last step
        robot_states            (T, 8) float64: TCP position, tool axis-angle, gripper finger positions
        obs/ee_pos              (T, 3)   obs/ee_ori (T, 3) axis-angle   obs/ee_states (T, 6)
        obs/gripper_states      (T, 2)   obs/object (T, N * 7): every object's pose (x, y, z, qw, qx, qy, qz)
        obs/agentview_rgb       (T, H, W, 3) uint8, with --cameras (upright images, no flip needed)
        obs/eye_in_hand_rgb     (T, H, W, 3) uint8, with --cameras

Row t of every array is the state before action t, as robomimic's `SequenceDataset` expects. A demo group
gets its `num_samples` attribute last: a group without it was cut off and is rewritten on resume.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import MissingDependencyError

DEMO_FORMAT = "heedful-tabletop-demos/1"
ENV_NAME = "heedful/Tabletop-v0"


def require_h5py() -> Any:
    try:
        import h5py  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError('demonstrations are written with h5py: pip install "heedful[tabletop]"') from exc
    return h5py


@dataclass(frozen=True)
class Demo:
    """One recorded demonstration, aligned: T actions and T observations (the state before each action)."""

    instruction: str
    seed: int
    layout_json: str
    actions: NDArray[np.float64]
    states: NDArray[np.float64]
    robot_states: NDArray[np.float64]
    object_poses: NDArray[np.float64]  # (T, N, 7)
    images: dict[str, NDArray[np.uint8]]  # key -> (T, H, W, 3)

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def open_task_file(path: Path, meta: dict[str, Any]) -> Any:
    """Open (or create) a task's file; drop demo groups that were cut off; return the h5py File."""
    h5py = require_h5py()
    handle = h5py.File(path, "a")
    data = handle.require_group("data")
    for key, value in meta.items():
        data.attrs[key] = value
    for name in list(data.keys()):
        if "num_samples" not in data[name].attrs:
            del data[name]
    return handle


def completed(handle: Any) -> int:
    """How many consecutive demos (demo_0, demo_1, ...) the file holds."""
    data = handle["data"]
    n = 0
    while f"demo_{n}" in data:
        n += 1
    return n


def write_demo(handle: Any, index: int, demo: Demo) -> None:
    """Append `demo` as data/demo_<index>, then update the file's total and flush."""
    data = handle["data"]
    group = data.create_group(f"demo_{index}")
    t = len(demo)
    group.create_dataset("actions", data=demo.actions)
    # Physics states are mostly zeros (warm starts, unused slots): gzip shrinks them about tenfold.
    group.create_dataset("states", data=demo.states, compression="gzip", compression_opts=4)
    done = np.zeros(t, dtype=np.uint8)
    done[-1] = 1
    group.create_dataset("rewards", data=done.astype(np.float64))
    group.create_dataset("dones", data=done)
    group.create_dataset("robot_states", data=demo.robot_states)
    obs = group.create_group("obs")
    rs = demo.robot_states
    obs.create_dataset("ee_pos", data=rs[:, :3])
    obs.create_dataset("ee_ori", data=rs[:, 3:6])
    obs.create_dataset("ee_states", data=rs[:, :6])
    obs.create_dataset("gripper_states", data=rs[:, 6:8])
    obs.create_dataset("object", data=demo.object_poses.reshape(t, -1), compression="gzip", compression_opts=4)
    for key, frames in demo.images.items():
        obs.create_dataset(key, data=frames, compression="gzip", compression_opts=4, chunks=(1, *frames.shape[1:]))
    group.attrs["instruction"] = demo.instruction
    group.attrs["seed"] = demo.seed
    group.attrs["layout"] = demo.layout_json
    group.attrs["init_state"] = demo.states[0]
    group.attrs["num_samples"] = t  # last: marks the group complete
    data.attrs["total"] = int(sum(int(data[k].attrs["num_samples"]) for k in data if k.startswith("demo_")))
    handle.flush()


def env_args(render_size: int, cameras: bool) -> str:
    """robomimic's env_args for these demonstrations."""
    return json.dumps(
        {
            "env_name": ENV_NAME,
            "type": "heedful",
            "env_kwargs": {
                "action_space": "delta_eef",
                "control_hz": 20,
                "cameras": ["agentview", "wrist"] if cameras else [],
                "image_size": render_size if cameras else None,
            },
        }
    )
