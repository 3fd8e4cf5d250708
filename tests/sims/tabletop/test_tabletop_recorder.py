"""Trajectory recorder: shapes, events, the validated actions, save / load round trips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from heedful.errors import DatasetError
from heedful.sims.tabletop.config import SimConfig
from heedful.sims.tabletop.recorder import Trajectory, TrajectoryRecorder
from heedful.sims.tabletop.sim import TabletopSim


def recorded(config: SimConfig, cameras: tuple[str, ...] = ()) -> Trajectory:
    sim = TabletopSim(config=config)
    rec = TrajectoryRecorder(sim, cameras)
    grip = [-1, -1, 1, 1, 1, -1, 1, -1]
    for g in grip:
        sim.step([0.1, 0, -0.2, 0, 0, 0.1, g])
        rec.record()
    return rec.trajectory()


def test_shapes_events_and_actions() -> None:
    traj = recorded(SimConfig(cameras=(), bad_action="clip"))
    n = len(traj.object_names)
    assert len(traj) == 9 and traj.actions.shape == (8, 7) and traj.object_poses.shape == (9, n, 7)
    assert traj.tcp_pos.shape == (9, 3) and traj.tcp_quat.shape == (9, 4) and traj.gripper_opening.shape == (9,)
    assert traj.event_steps("close") == [3, 7] and traj.event_steps("open") == [6, 8]
    assert traj.gripper_command[0] == -1 and traj.time[0] == 0.0
    assert np.allclose(np.diff(traj.time), 0.05)
    assert np.allclose(np.linalg.norm(traj.tcp_quat, axis=1), 1.0)
    assert traj.gripper_opening[5] < traj.gripper_opening[2]  # the fingers closed between the events
    assert traj.object_track("red_cube").shape == (9, 7)
    with pytest.raises(KeyError):
        traj.object_track("ghost")


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    traj = recorded(SimConfig(cameras=()))
    path = traj.save(tmp_path / "episode.npz")
    back = Trajectory.load(path)
    assert back.object_names == traj.object_names
    for key, value in traj.arrays().items():
        assert back.arrays()[key].tobytes() == value.tobytes(), key
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(DatasetError, match="not a heedful-tabletop-trajectory"):
        Trajectory.load(tmp_path / "other.npz")


@pytest.mark.render
def test_frames_are_recorded_per_row(tmp_path: Path) -> None:
    traj = recorded(SimConfig(cameras=()), cameras=("agentview", "wrist"))
    assert traj.frames["agentview"].shape == (9, 224, 224, 3) and traj.frames["wrist"].dtype == np.uint8
    back = Trajectory.load(traj.save(tmp_path / "with_frames.npz"))
    assert back.frames["wrist"].tobytes() == traj.frames["wrist"].tobytes()
