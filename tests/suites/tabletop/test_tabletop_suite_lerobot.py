"""LeRobot export: written through lerobot, reloaded with `LeRobotDataset`, checked against the simulator.

The tests that need lerobot are skipped only where it is not installed; the README's test command installs it.
"""

from __future__ import annotations

import json
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heedful.api import demos
from heedful.cli.main import main
from heedful.errors import ConfigError, MissingDependencyError
from heedful.sims.tabletop.config import RenderConfig
from heedful.suites.tabletop.demo_file import Demo
from heedful.suites.tabletop.demos import DemoSettings, record_demo
from heedful.suites.tabletop.lerobot_demos import EPISODES_FILE, IMAGE_FEATURES, ROBOT_TYPE, generate_lerobot_demos
from heedful.suites.tabletop.model import Layout
from heedful.suites.tabletop.registry import training_tasks
from heedful.suites.tabletop.runtime import TrialRuntime

TASKS = {t.label: t for t in training_tasks()}
LABELS = ["s1_t00_pickup", "s2_t04_stack"]
SIZE = 64
REPO = "test/heedful-demos"
needs_lerobot = pytest.mark.skipif(
    find_spec("lerobot") is None, reason="lerobot is not installed (see the README's test command)"
)


def _load(root: Path) -> Any:
    from heedful.suites.tabletop.lerobot_demos import require_lerobot_dataset

    return require_lerobot_dataset()(REPO, root=root)


def _render(demo: Demo, t: int, camera: str) -> np.ndarray:
    """The simulator's own render of the state before action t, replayed from the demo's layout and actions."""
    layout = Layout.model_validate_json(demo.layout_json)
    rt = TrialRuntime(layout, len(demo), render=RenderConfig(width=SIZE, height=SIZE))
    try:
        for action in demo.actions[:t]:
            rt.step(action)
        return rt.sim.render(camera)
    finally:
        rt.close()


def _as_uint8(image: Any) -> np.ndarray:
    """LeRobotDataset's (C, H, W) float image in [0, 1] as (H, W, C) uint8."""
    return np.round(image.permute(1, 2, 0).numpy() * 255).astype(np.uint8)


def _mad(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).mean())


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lerobot") / "demos"
    summary = demos(
        out, per_task=2, tasks=LABELS, cameras=True, image_size=SIZE, format="lerobot", repo_id=REPO, progress=None
    )
    assert summary == {"tasks": 2, "demos": 4, "written": 4, "rejected": 0}
    return out


@needs_lerobot
@pytest.mark.slow
@pytest.mark.render
def test_reloaded_dataset_holds_the_experts_demos_frame_by_frame(exported: Path) -> None:
    ds = _load(exported)
    assert (ds.num_episodes, ds.fps, ds.meta.robot_type) == (4, 20, ROBOT_TYPE)
    assert set(ds.meta.camera_keys) == set(IMAGE_FEATURES.values())
    log = [json.loads(line) for line in (exported / EPISODES_FILE).read_text(encoding="utf-8").splitlines()]
    settings = DemoSettings(per_task=2, cameras=True, image_size=SIZE)
    episodes = ds.meta.episodes
    for ep in range(4):
        label, index = LABELS[ep // 2], ep % 2
        demo, _ = record_demo(TASKS[label], settings, index)  # the same demo, recorded again
        start, stop = episodes["dataset_from_index"][ep], episodes["dataset_to_index"][ep]
        assert stop - start == len(demo) and episodes["tasks"][ep] == [demo.instruction]
        assert demo.instruction in TASKS[label].paraphrases
        assert log[ep]["task"] == label and log[ep]["demo"] == index and log[ep]["seed"] == demo.seed
        frames = [ds[i] for i in range(start, stop)]
        assert all(f["task"] == demo.instruction and int(f["episode_index"]) == ep for f in frames)
        assert [int(f["frame_index"]) for f in frames] == list(range(len(demo)))
        state = np.stack([f["observation.state"].numpy() for f in frames])
        action = np.stack([f["action"].numpy() for f in frames])
        assert np.array_equal(state, demo.robot_states.astype(np.float32))
        assert np.array_equal(action, demo.actions.astype(np.float32))
        assert float(frames[-1]["timestamp"]) == pytest.approx((len(demo) - 1) / 20)


@needs_lerobot
@pytest.mark.slow
@pytest.mark.render
def test_decoded_images_are_the_simulators_renders_upright(exported: Path) -> None:
    ds = _load(exported)
    demo, _ = record_demo(TASKS[LABELS[1]], DemoSettings(per_task=2, cameras=True, image_size=SIZE), 1)
    t = len(demo) // 2
    item = ds[int(ds.meta.episodes["dataset_from_index"][3]) + t]
    for camera, name in (("agentview", "observation.images.image"), ("wrist", "observation.images.wrist_image")):
        decoded = _as_uint8(item[name])
        render = _render(demo, t, camera)
        assert decoded.shape == (SIZE, SIZE, 3) and render.std() > 5  # a real image, not a blank buffer
        assert _mad(decoded, render) < 0.5  # PNG frames are lossless
        assert _mad(decoded, np.flipud(render)) > 10 * max(_mad(decoded, render), 1.0)


@needs_lerobot
@pytest.mark.slow
@pytest.mark.render
def test_video_export_decodes_close_to_the_simulators_render(tmp_path: Path) -> None:
    import av  # lerobot's own video dependency

    out = tmp_path / "video"
    demos(out, per_task=1, tasks=LABELS[:1], cameras=True, image_size=SIZE, format="lerobot", repo_id=REPO, video=True)
    ds = _load(out)
    demo, _ = record_demo(TASKS[LABELS[0]], DemoSettings(per_task=1, cameras=True, image_size=SIZE), 0)
    assert (
        ds.num_episodes == 1 and ds.num_frames == len(demo) and set(ds.meta.video_keys) == set(IMAGE_FEATURES.values())
    )
    assert ds.meta.episodes["tasks"][0] == [demo.instruction]
    # LeRobotDataset decodes video with torchcodec, which needs a system FFmpeg; PyAV reads the same file here.
    t = len(demo) // 2
    path = ds.root / ds.meta.get_video_file_path(0, "observation.images.image")
    with av.open(str(path)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    assert len(frames) == len(demo)
    render = _render(demo, t, "agentview")
    assert _mad(frames[t], render) < 6  # lossy codec
    assert _mad(frames[t], np.flipud(render)) > 3 * _mad(frames[t], render)


@needs_lerobot
def test_an_interrupted_export_resumes_to_the_same_dataset(tmp_path: Path) -> None:
    settings, task = DemoSettings(per_task=3), [TASKS["s1_t00_pickup"]]
    generate_lerobot_demos(tmp_path / "fresh", settings, task, repo_id=REPO)

    def stop_after_first(n: int, total: int) -> None:
        raise KeyboardInterrupt

    cut = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        generate_lerobot_demos(cut, settings, task, stop_after_first, repo_id=REPO)
    assert _load(cut).num_episodes == 1  # finalized on the way out
    again = generate_lerobot_demos(cut, settings, task, repo_id=REPO)
    assert again == {"tasks": 1, "demos": 3, "written": 2, "rejected": 0}
    a, b = _load(cut), _load(tmp_path / "fresh")
    assert a.num_frames == b.num_frames
    for i in range(a.num_frames):
        assert np.array_equal(a[i]["action"].numpy(), b[i]["action"].numpy()) and a[i]["task"] == b[i]["task"]
    assert (cut / EPISODES_FILE).read_text() == (tmp_path / "fresh" / EPISODES_FILE).read_text()
    with pytest.raises(ConfigError, match="same settings"):
        generate_lerobot_demos(cut, DemoSettings(per_task=3, seed=1), task, repo_id=REPO)


@needs_lerobot
def test_a_non_empty_directory_that_is_no_export_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ConfigError, match="another --out"):
        generate_lerobot_demos(tmp_path, DemoSettings(per_task=1), [TASKS["s1_t00_pickup"]], repo_id=REPO)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_missing_lerobot_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setitem(sys.modules, "lerobot.datasets.lerobot_dataset", None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=r"heedful\[lerobot\]"):
        demos(tmp_path / "x", per_task=1, tasks=LABELS[:1], format="lerobot")
    code = main(["demos", "tabletop", "--format", "lerobot", "--out", str(tmp_path / "y"), "--task", LABELS[0]])
    assert code != 0 and "heedful[lerobot]" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_lerobot_only_options_are_refused_for_hdf5(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--format lerobot only"):
        demos(tmp_path, per_task=1, tasks=LABELS[:1], video=True)
    with pytest.raises(ConfigError, match="unknown demonstration format"):
        demos(tmp_path, per_task=1, tasks=LABELS[:1], format="zarr")


RENDER_THEN_IMPORT = """
import os, sys
os.environ["MUJOCO_GL"] = "egl"
import mujoco
model = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom type='box' size='.1 .1 .1'/></worldbody></mujoco>")
renderer = mujoco.Renderer(model, 32, 32)
renderer.update_scene(mujoco.MjData(model))
renderer.render()
from heedful.suites.tabletop.lerobot_demos import require_lerobot_dataset
print(require_lerobot_dataset().__name__)
"""


@needs_lerobot
@pytest.mark.render
def test_lerobot_imports_after_cpu_rendering_without_crashing() -> None:
    """Mesa's LLVM (EGL on the CPU) then triton's LLVM crashed the process; the export keeps triton out."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", RENDER_THEN_IMPORT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("LeRobotDataset")


@needs_lerobot
@pytest.mark.slow
@pytest.mark.render
def test_two_recording_workers_export_the_same_dataset(tmp_path: Path) -> None:
    settings, tasks = DemoSettings(per_task=2, cameras=True, image_size=SIZE), [TASKS[label] for label in LABELS]
    for workers in (1, 2):
        generate_lerobot_demos(tmp_path / f"w{workers}", settings, tasks, repo_id=REPO, workers=workers)
    one, two = tmp_path / "w1", tmp_path / "w2"
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    frames = [p for p in files if p.suffix == ".parquet" and p.parts[0] == "data"]  # PNG frames embedded
    assert frames
    different = [str(p) for p in files if p not in frames and (one / p).read_bytes() != (two / p).read_bytes()]
    assert different == []
    for path in frames:  # the same table; only the `datasets` library's random cache fingerprint differs
        a, b = _table(one / path), _table(two / path)
        assert a.equals(b, check_metadata=True) and a.num_rows == _load(one).num_frames


def _table(path: Path) -> Any:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    info = json.loads(table.schema.metadata[b"huggingface"])
    assert set(info) == {"info", "fingerprint"}
    return table.replace_schema_metadata({b"info": json.dumps(info["info"], sort_keys=True).encode()})
