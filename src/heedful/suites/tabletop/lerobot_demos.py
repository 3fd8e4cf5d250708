"""Demonstrations as a LeRobot dataset, written through the `lerobot` library (an optional extra).

One episode per demonstration, task after task in training-set order, at the control rate (20 fps):

    observation.images.image        (H, W, 3) uint8 agentview camera, upright as rendered (with cameras)
    observation.images.wrist_image  (H, W, 3) uint8 wrist camera (with cameras)
    observation.state               (8,) float32: TCP position, tool axis-angle, gripper finger positions
    action                          (7,) float32: delta_eef action (dx, dy, dz, droll, dpitch, dyaw, gripper)
    task                            the demo's instruction (the paraphrase sampled for it)

Row t is the observation before action t, as in the HDF5 files (`demo_file.py`). Images are stored as
lossless PNG frames by default, as openpi's LIBERO conversion does; `video=True` encodes them with
lerobot's video encoder instead (smaller; reading them back needs torchcodec and FFmpeg).

heedful's bookkeeping sits beside lerobot's metadata: meta/heedful_demos.json (the settings, which a
resume must match) and meta/heedful_episodes.jsonl (per episode: task label, demo index, seed, layout),
so every episode can be replayed in the simulator. Nothing is pushed to or pulled from a hub.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from heedful.errors import ConfigError, DatasetError, MissingDependencyError
from heedful.sims.tabletop.config import SimConfig
from heedful.suites.tabletop.demo_file import Demo
from heedful.suites.tabletop.demo_pool import recorded_demos
from heedful.suites.tabletop.demos import DemoSettings, require_same_settings
from heedful.suites.tabletop.model import TrainingTask

LEROBOT_FORMAT = "heedful-tabletop-lerobot/1"
DEFAULT_REPO_ID = "heedful/tabletop-demos"
ROBOT_TYPE = "heedful_floating_gripper"
IMAGE_WRITER_THREADS = 2
SETTINGS_FILE = "meta/heedful_demos.json"
EPISODES_FILE = "meta/heedful_episodes.jsonl"
# HDF5 image keys (demos.CAMERA_KEYS values) -> LeRobot feature names, as in LeRobot's LIBERO datasets
IMAGE_FEATURES = {"agentview_rgb": "observation.images.image", "eye_in_hand_rgb": "observation.images.wrist_image"}
STATE_NAMES = ["x", "y", "z", "axis_angle_x", "axis_angle_y", "axis_angle_z", "finger_left", "finger_right"]
ACTION_NAMES = ["dx", "dy", "dz", "droll", "dpitch", "dyaw", "gripper"]
_HINT = (
    'install the lerobot extra: pip install "heedful[lerobot]" (the README shows a CPU-only install of the few '
    "parts of lerobot the export uses)"
)


def require_lerobot_dataset() -> Any:
    """Import and return lerobot's `LeRobotDataset` class, with hub access switched off.

    Raises:
        MissingDependencyError: lerobot (0.4 or newer) is not installed.
    """
    # Read by huggingface_hub when first imported: the export only ever writes and reads a local root.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    _keep_triton_out()
    try:
        module = importlib.import_module("lerobot.datasets.lerobot_dataset")
    except ImportError as exc:
        raise MissingDependencyError(
            f"--format lerobot writes through the lerobot library (>= 0.4), which failed to import ({exc}): {_HINT}"
        ) from exc
    return module.LeRobotDataset


def _keep_triton_out() -> None:
    """Stop torch from importing triton once Mesa's LLVM (CPU EGL rendering) is loaded in this process.

    lerobot imports torchvision, whose import pulls in torch._dynamo, which imports triton; triton's own LLVM
    then segfaults the process if MuJoCo already rendered through Mesa's llvmpipe (seen with torch 2.14 and
    Mesa's libLLVM-15). The export never compiles kernels, so torch simply runs as if triton were absent.
    """
    if "triton" in sys.modules:
        return
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:  # not Linux: no Mesa llvmpipe EGL either
        return
    if "libLLVM" in maps:
        sys.modules["triton"] = None  # type: ignore[assignment]  # `import triton` then raises ImportError


def control_fps() -> int:
    """The simulator's control rate, the dataset's fps (LeRobot wants a whole number)."""
    hz = SimConfig().control_hz
    if hz != int(hz):  # pragma: no cover - a guard for a changed simulator default
        raise ConfigError(f"LeRobot datasets need a whole-number fps; the control rate is {hz} Hz")
    return int(hz)


def features(settings: DemoSettings, video: bool) -> dict[str, dict[str, Any]]:
    """LeRobot feature specs of the exported frames."""
    spec: dict[str, dict[str, Any]] = {
        "observation.state": {"dtype": "float32", "shape": (8,), "names": STATE_NAMES},
        "action": {"dtype": "float32", "shape": (7,), "names": ACTION_NAMES},
    }
    if settings.cameras:
        size = settings.image_size
        for name in IMAGE_FEATURES.values():
            spec[name] = {
                "dtype": "video" if video else "image",
                "shape": (size, size, 3),
                "names": ["height", "width", "channel"],
            }
    return spec


def _wanted(settings: DemoSettings, tasks: Sequence[TrainingTask], repo_id: str, video: bool) -> dict[str, Any]:
    return {
        **settings.as_dict(),
        "format": LEROBOT_FORMAT,
        "repo_id": repo_id,
        "video": video,
        "tasks": [t.label for t in tasks],
    }


def open_dataset(out: Path, wanted: dict[str, Any], settings: DemoSettings, video: bool) -> tuple[Any, int]:
    """Create the dataset at `out`, or reopen an earlier export with the same settings; plus its episode count.

    Raises:
        ConfigError: `out` holds something else, or an export made with other settings.
        DatasetError: an earlier export cannot be reopened (cut off while writing).
    """
    dataset_cls = require_lerobot_dataset()
    repo_id = wanted["repo_id"]
    if out.is_dir() and any(out.iterdir()):
        manifest = out / SETTINGS_FILE
        if not manifest.is_file():
            raise ConfigError(
                f"{out} is not empty and holds no heedful LeRobot export: choose another --out or empty it"
            )
        require_same_settings(out, manifest, wanted, "a LeRobot export")
        try:
            dataset = dataset_cls(repo_id, root=out, **_decoder())
        except Exception as exc:  # lerobot raises many kinds; all mean the same thing here
            raise DatasetError(
                f"cannot reopen the LeRobot export in {out} to resume ({type(exc).__name__}: {exc}); it was "
                "probably cut off while writing: delete it and export again"
            ) from exc
        return dataset, int(dataset.meta.total_episodes)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a directory")
    if out.exists():
        out.rmdir()  # empty: lerobot creates the root itself and refuses an existing one
    spec = features(settings, video)
    dataset = dataset_cls.create(
        repo_id, fps=control_fps(), features=spec, root=out, robot_type=ROBOT_TYPE, use_videos=video, **_decoder()
    )
    (out / SETTINGS_FILE).write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
    (out / EPISODES_FILE).write_text("", encoding="utf-8")
    return dataset, 0


def _decoder() -> dict[str, str]:
    """Name PyAV as the video decoder where torchcodec is missing (lerobot would log a warning to say so)."""
    return {} if importlib.util.find_spec("torchcodec") else {"video_backend": "pyav"}


def _episode_log(out: Path, keep: int) -> Path:
    """The per-episode log, cut to the `keep` episodes the dataset holds (a line past them was cut off)."""
    path = out / EPISODES_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []
    if len(lines) < keep:
        raise DatasetError(
            f"{path} lists {len(lines)} episodes but the dataset holds {keep}: delete {out} and export again"
        )
    path.write_text("".join(lines[:keep]), encoding="utf-8")
    return path


def add_episode(dataset: Any, demo: Demo) -> None:
    """Add one demonstration as an episode (add_frame per control step, then save_episode)."""
    for t in range(len(demo)):
        frame: dict[str, Any] = {
            "observation.state": demo.robot_states[t].astype(np.float32),
            "action": demo.actions[t].astype(np.float32),
            "task": demo.instruction,
        }
        for key, name in IMAGE_FEATURES.items():
            if key in demo.images:
                frame[name] = demo.images[key][t]
        dataset.add_frame(frame)
    dataset.save_episode()


def generate_lerobot_demos(
    out: Path,
    settings: DemoSettings,
    tasks: Sequence[TrainingTask],
    progress: Callable[[int, int], Any] | None = None,
    *,
    repo_id: str = DEFAULT_REPO_ID,
    video: bool = False,
    workers: int = 1,
) -> dict[str, int]:
    """Write `settings.per_task` demos of every task as a LeRobot dataset rooted at `out`; resumable.

    The same demos as the HDF5 export (same seeds, perturbations and paraphrases), whatever `workers`: with
    more than one, that many processes record demos ahead while this one writes them in order
    (`demo_pool`). A run stopped by an
    error or Ctrl-C finalizes what it saved, and the same call continues it.

    Returns:
        Counts: tasks, demos (in the dataset now), written (by this call), rejected (expert attempts dropped).
    """
    out = Path(out)
    dataset, start = open_dataset(out, _wanted(settings, tasks, repo_id, video), settings, video)
    total = len(tasks) * settings.per_task
    written = rejected = 0
    if settings.cameras:
        # PNG frames are written by threads while the simulator renders on (save_episode waits for them)
        dataset.start_image_writer(num_processes=0, num_threads=IMAGE_WRITER_THREADS)
    try:
        log = _episode_log(out, start)
        if progress is not None and start:
            progress(start, total)
        with _quiet_datasets(), log.open("a", encoding="utf-8") as lines:
            for n, task, index, demo, dropped in recorded_demos(tasks, settings, start, workers):
                add_episode(dataset, demo)
                entry = {"episode_index": n, "task": task.label, "demo": index, "instruction": demo.instruction}
                lines.write(json.dumps({**entry, "seed": demo.seed, "layout": json.loads(demo.layout_json)}) + "\n")
                lines.flush()
                written, rejected = written + 1, rejected + dropped
                if progress is not None:
                    progress(1, total)
    finally:
        dataset.stop_image_writer()
        dataset.finalize()  # closes the parquet writers: without it the files have no footer
    return {"tasks": len(tasks), "demos": start + written, "written": written, "rejected": rejected}


@contextmanager
def _quiet_datasets() -> Iterator[None]:
    """Hide the `datasets` library's per-episode "Map" progress bars while exporting."""
    logging = importlib.import_module("datasets.utils.logging")
    was_enabled = bool(logging.is_progress_bar_enabled())
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            logging.enable_progress_bar()
