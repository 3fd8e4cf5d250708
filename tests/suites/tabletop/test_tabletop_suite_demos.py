"""Demonstrations: the HDF5 layout (LIBERO / robomimic keys), perturbations, paraphrases, resume."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest

from heedful.api import demos
from heedful.errors import ConfigError, RenderDeviceError
from heedful.suites.tabletop.demos import DemoSettings, generate_demos
from heedful.suites.tabletop.registry import training_tasks

TASKS = {t.label: t for t in training_tasks()}
LABELS = ["s2_t04_stack", "s4_t26_sequence_pickups"]


def test_demos_have_the_documented_layout(tmp_path: Path) -> None:
    summary = demos(tmp_path, per_task=2, tasks=LABELS)
    assert summary == {"tasks": 2, "demos": 4, "written": 4, "rejected": 0}
    for label in LABELS:
        with h5py.File(tmp_path / f"{label}_demo.hdf5", "r") as f:
            data = f["data"]
            info = json.loads(data.attrs["problem_info"])
            assert info["language_instruction"] == TASKS[label].paraphrases[0] and info["task"] == label
            assert json.loads(data.attrs["env_args"])["env_name"] == "heedful/Tabletop-v0"
            total = 0
            layouts = set()
            for i in range(2):
                demo = data[f"demo_{i}"]
                t = int(demo.attrs["num_samples"])
                total += t
                assert demo["actions"].shape == (t, 7) and demo["states"].shape[0] == t
                assert demo["obs/ee_pos"].shape == (t, 3) and demo["obs/gripper_states"].shape == (t, 2)
                assert demo["obs/object"].shape == (t, 7 * len(TASKS[label].layout.objects))
                assert demo["dones"][-1] == 1 and demo["rewards"][-1] == 1.0 and demo["dones"][:-1].sum() == 0
                assert demo.attrs["instruction"] in TASKS[label].paraphrases
                assert np.all(np.abs(demo["actions"][:, :6]) <= 1.0)
                layouts.add(demo.attrs["layout"])
                shift = _largest_shift(label, json.loads(demo.attrs["layout"]))
                assert 0.01 - 1e-6 <= shift <= 0.02 + 1e-6  # 1-2 cm perturbation of every object
            assert data.attrs["total"] == total and len(layouts) == 2


def _largest_shift(label: str, layout: dict) -> float:  # type: ignore[type-arg]
    nominal = {o.name: (o.x, o.y) for o in TASKS[label].layout.objects}
    shifts = [np.hypot(o["x"] - nominal[o["name"]][0], o["y"] - nominal[o["name"]][1]) for o in layout["objects"]]
    return float(max(shifts))


def test_generation_resumes_after_a_cut_off_demo_and_matches_a_fresh_run(tmp_path: Path) -> None:
    settings = DemoSettings(per_task=3)
    task = [TASKS["s1_t00_pickup"]]
    generate_demos(tmp_path / "fresh", settings, task)
    cut = tmp_path / "cut"
    generate_demos(cut, settings, task)
    with h5py.File(cut / "s1_t00_pickup_demo.hdf5", "a") as f:
        del f["data/demo_2"]
        del f["data/demo_1"].attrs["num_samples"]  # as if killed while writing demo 1
    again = generate_demos(cut, settings, task)
    assert again == {"tasks": 1, "demos": 3, "written": 2, "rejected": 0}
    with (
        h5py.File(cut / "s1_t00_pickup_demo.hdf5", "r") as a,
        h5py.File(tmp_path / "fresh" / "s1_t00_pickup_demo.hdf5", "r") as b,
    ):
        for i in range(3):
            assert np.array_equal(a[f"data/demo_{i}/actions"][()], b[f"data/demo_{i}/actions"][()])
            assert a[f"data/demo_{i}"].attrs["instruction"] == b[f"data/demo_{i}"].attrs["instruction"]
    with pytest.raises(ConfigError, match="same settings"):
        generate_demos(cut, DemoSettings(per_task=3, seed=1), task)


@pytest.mark.render
def test_demos_with_cameras_store_upright_images(tmp_path: Path) -> None:
    demos(tmp_path, per_task=1, tasks=["s1_t00_pickup"], cameras=True, image_size=64)
    with h5py.File(tmp_path / "s1_t00_pickup_demo.hdf5", "r") as f:
        demo = f["data/demo_0"]
        t = int(demo.attrs["num_samples"])
        for key in ("agentview_rgb", "eye_in_hand_rgb"):
            frames = demo[f"obs/{key}"]
            assert frames.shape == (t, 64, 64, 3) and frames.dtype == np.uint8
            assert frames[0].std() > 5  # a real image, not a blank buffer


def test_a_demo_replays_exactly_from_its_layout_and_actions(tmp_path: Path) -> None:
    from heedful.suites.tabletop.model import Layout
    from heedful.suites.tabletop.runtime import TrialRuntime

    demos(tmp_path, per_task=1, tasks=["s2_t04_stack"])
    with h5py.File(tmp_path / "s2_t04_stack_demo.hdf5", "r") as f:
        demo = f["data/demo_0"]
        layout = Layout.model_validate_json(demo.attrs["layout"])
        actions, states = demo["actions"][()], demo["states"][()]
    rt = TrialRuntime(layout, len(actions), keep_states=True)
    for action in actions:
        rt.step(action)
    assert np.array_equal(np.stack(rt.states or [])[: len(actions)], states)


def test_demos_default_to_the_image_size_evaluation_renders() -> None:
    """A policy trained on default demos sees the same resolution at test time (they were 128 px against 224).
    Evaluation trials render with TrialRuntime's default RenderConfig (the suite passes none)."""
    import inspect

    from heedful.cli.main import build_parser
    from heedful.sims.tabletop.config import RenderConfig

    evaluated = RenderConfig().width
    assert DemoSettings().image_size == evaluated == RenderConfig().height
    assert inspect.signature(demos).parameters["image_size"].default == evaluated
    parser, _ = build_parser()
    assert parser.parse_args(["demos", "tabletop", "--out", "x"]).image_size == evaluated


def test_recording_workers_write_the_serial_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (resuming reads a file's finished demos the same way with any workers: the cut-off test above covers it)
    settings = DemoSettings(per_task=2)
    tasks = [TASKS[label] for label in LABELS]
    generate_demos(tmp_path / "serial", settings, tasks)
    monkeypatch.setenv("HEEDFUL_EGL_DEVICES", "0,9")  # the workers' EGL devices, as for a run's pool
    with pytest.raises(RenderDeviceError, match="EGL device 9, which this machine does not have"):
        generate_demos(tmp_path / "refused", settings, tasks, workers=2)
    assert not (tmp_path / "refused").exists()  # refused before anything was written
    monkeypatch.setenv("HEEDFUL_EGL_DEVICES", "0")
    summary = generate_demos(tmp_path / "two", settings, tasks, workers=2)
    assert summary == {"tasks": 2, "demos": 4, "written": 4, "rejected": 0}
    for label in LABELS:
        name = f"{label}_demo.hdf5"
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()
