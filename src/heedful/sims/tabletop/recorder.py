"""Trajectory recording: per control step, the tool pose, the gripper, its open / close events and every
object's pose, as compact numpy arrays that stage scorers read (and optional camera frames for video).

Row t of every per-step array is the state after t control steps (row 0: right after reset);
`actions[t]` is the action that led from row t to row t + 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from heedful.errors import DatasetError
from heedful.sims.tabletop.sim import TabletopSim

TRAJECTORY_SCHEMA_VERSION = "heedful-tabletop-trajectory/2"  # /2: held and touched added
CLOSE_EVENT = 1
OPEN_EVENT = -1

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Trajectory:
    """A recorded episode. Shapes: T rows of states, T - 1 actions, N objects (in scene order)."""

    object_names: tuple[str, ...]
    time: F64  # (T,) seconds since reset
    tcp_pos: F64  # (T, 3) tool center point
    tcp_quat: F64  # (T, 4) tool frame (w, x, y, z), z pointing out of the fingers
    gripper_opening: F64  # (T,) distance between the finger pads (m)
    gripper_command: F64  # (T,) last gripper command (-1 open .. +1 closed); row 0 is the reset state (open)
    events: NDArray[np.int8]  # (T,) +1 where the command turned to close, -1 where it turned to open, else 0
    object_poses: F64  # (T, N, 7) x, y, z, qw, qx, qy, qz
    actions: F64  # (T - 1, 7)
    held: NDArray[np.int16]  # (T,) index of the object both fingers touch, -1 when none
    touched: NDArray[np.bool_]  # (T, N) whether any gripper body (fingers, palm) touches each object
    frames: Mapping[str, NDArray[np.uint8]] = field(default_factory=dict)  # camera -> (T, H, W, 3)

    def __len__(self) -> int:
        return int(self.time.shape[0])

    def event_steps(self, kind: Literal["close", "open"]) -> list[int]:
        """Rows at which the gripper command turned to `kind`."""
        code = CLOSE_EVENT if kind == "close" else OPEN_EVENT
        return [int(i) for i in np.flatnonzero(self.events == code)]

    def object_track(self, name: str) -> F64:
        """(T, 7) poses of one object."""
        if name not in self.object_names:
            raise KeyError(f"no object {name!r} in this trajectory; known: {list(self.object_names)}")
        return np.asarray(self.object_poses[:, self.object_names.index(name)], dtype=np.float64)

    def arrays(self) -> dict[str, NDArray[np.generic]]:
        """Every array by name (frames as `frames_<camera>`)."""
        out: dict[str, NDArray[np.generic]] = {
            "time": self.time,
            "tcp_pos": self.tcp_pos,
            "tcp_quat": self.tcp_quat,
            "gripper_opening": self.gripper_opening,
            "gripper_command": self.gripper_command,
            "events": self.events,
            "object_poses": self.object_poses,
            "actions": self.actions,
            "held": self.held,
            "touched": self.touched,
        }
        for cam, frames in self.frames.items():
            out[f"frames_{cam}"] = frames
        return out

    def save(self, path: str | Path) -> Path:
        """Write a compressed .npz file; returns its path."""
        target = Path(path)
        meta = np.array([TRAJECTORY_SCHEMA_VERSION, *self.object_names])
        np.savez_compressed(target, _meta=meta, **self.arrays())  # type: ignore[arg-type]
        return target if target.suffix == ".npz" else target.with_suffix(target.suffix + ".npz")

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """Read a file written by `save`.

        Raises:
            DatasetError: the file is not a trajectory of this schema version.
        """
        with np.load(Path(path), allow_pickle=False) as data:
            meta = [str(v) for v in data["_meta"]] if "_meta" in data.files else []
            if not meta or meta[0] != TRAJECTORY_SCHEMA_VERSION:
                raise DatasetError(f"{path} is not a {TRAJECTORY_SCHEMA_VERSION} file")
            frames = {k[len("frames_") :]: np.asarray(data[k]) for k in data.files if k.startswith("frames_")}
            return cls(
                object_names=tuple(meta[1:]),
                time=np.asarray(data["time"]),
                tcp_pos=np.asarray(data["tcp_pos"]),
                tcp_quat=np.asarray(data["tcp_quat"]),
                gripper_opening=np.asarray(data["gripper_opening"]),
                gripper_command=np.asarray(data["gripper_command"]),
                events=np.asarray(data["events"]),
                object_poses=np.asarray(data["object_poses"]),
                actions=np.asarray(data["actions"]),
                held=np.asarray(data["held"]),
                touched=np.asarray(data["touched"]),
                frames=frames,
            )


class TrajectoryRecorder:
    """Collects a `Trajectory` from a simulation; call `reset` after the sim resets and `record` after each step.

    Args:
        sim: The simulation to read.
        cameras: Cameras whose frames to keep (none by default; frames cost memory).
    """

    def __init__(self, sim: TabletopSim, cameras: Sequence[str] = ()) -> None:
        self.sim = sim
        self.cameras = tuple(cameras)
        self._rows: dict[str, list[Any]] = {}
        self._actions: list[F64] = []
        self._frames: dict[str, list[NDArray[np.uint8]]] = {}
        self.reset()

    def reset(self) -> None:
        """Forget everything and record the current state as row 0."""
        self._rows = {k: [] for k in ("time", "tcp_pos", "tcp_quat", "opening", "command", "poses", "held", "touched")}
        self._actions = []
        self._frames = {cam: [] for cam in self.cameras}
        self._append(None)

    def record(self, images: Mapping[str, NDArray[np.uint8]] | None = None) -> None:
        """Record the state after a control step, with the (validated) action that drove it.

        `images` may pass frames already rendered for the observation (by camera name) to avoid rendering twice.
        """
        self._actions.append(self.sim.last_action.copy())
        self._append(images)

    def _append(self, images: Mapping[str, NDArray[np.uint8]] | None) -> None:
        sim, rows = self.sim, self._rows
        # Plain floats and tuples here; the arrays are built once, in `trajectory`.
        rows["time"].append(float(sim.data.time))
        rows["tcp_pos"].append(sim.tcp_pos().tolist())
        rows["tcp_quat"].append(sim.tool_quat_tuple())
        rows["opening"].append(sim.gripper_opening())
        rows["command"].append(sim.gripper_command)
        rows["poses"].append(sim.object_poses())
        held, touched = sim.gripper_contacts()
        rows["held"].append(held)
        rows["touched"].append(touched)
        for cam in self.cameras:
            frame = images.get(cam) if images is not None else None
            self._frames[cam].append(np.array(frame if frame is not None else sim.render(cam), dtype=np.uint8))

    def first_held_row(self) -> int | None:
        """The first row at which both fingers touched an object, or None."""
        return next((row for row, held in enumerate(self._rows["held"]) if held >= 0), None)

    def trajectory(self) -> Trajectory:
        """The arrays recorded so far."""
        rows = self._rows
        command = np.array(rows["command"], dtype=np.float64)
        closed = command > 0
        events = np.zeros(command.shape[0], dtype=np.int8)
        events[1:][closed[1:] & ~closed[:-1]] = CLOSE_EVENT
        events[1:][~closed[1:] & closed[:-1]] = OPEN_EVENT
        n = len(self.sim.object_names)
        return Trajectory(
            object_names=self.sim.object_names,
            time=np.array(rows["time"], dtype=np.float64),
            tcp_pos=np.array(rows["tcp_pos"], dtype=np.float64),
            tcp_quat=np.array(rows["tcp_quat"], dtype=np.float64),
            gripper_opening=np.array(rows["opening"], dtype=np.float64),
            gripper_command=command,
            events=events,
            object_poses=np.array(rows["poses"], dtype=np.float64).reshape(-1, n, 7),
            actions=np.array(self._actions, dtype=np.float64).reshape(-1, 7),
            held=np.array(rows["held"], dtype=np.int16),
            touched=np.array(rows["touched"], dtype=bool).reshape(-1, n),
            frames={cam: np.stack(f) for cam, f in self._frames.items() if f},
        )
