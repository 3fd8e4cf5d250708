"""Demonstrations: the scripted expert on every training task, 50 demos each (3,750 in all), each in a
fresh 1-2 cm perturbation of the task's layout with one of its paraphrases sampled, written as HDF5
(layout in `demo_file.py`). Resumable: finished demos are kept and generation continues after them.

A demo is kept only when the expert completes it with full intent and execution; otherwise the same
demo index is tried again with the next perturbation (bounded), and the rejections are counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from heedful.errors import ConfigError, GenerationError
from heedful.seeding import derive_seed
from heedful.sims.gl_devices import check_egl_devices, parse_egl_devices
from heedful.sims.tabletop.config import RenderConfig
from heedful.suites.tabletop.demo_file import (
    DEMO_FORMAT,
    Demo,
    completed,
    env_args,
    open_task_file,
    require_h5py,
    write_demo,
)
from heedful.suites.tabletop.expert import program
from heedful.suites.tabletop.model import TrainingTask
from heedful.suites.tabletop.perturb import perturb
from heedful.suites.tabletop.runtime import TrialRuntime
from heedful.suites.tabletop.scoring import score_trajectory
from heedful.suites.tabletop.skillcalls import execute

DEMOS_PER_TASK = 50
MAX_ATTEMPTS = 5
MANIFEST = "demos.json"
CAMERA_KEYS = {"agentview": "agentview_rgb", "wrist": "eye_in_hand_rgb"}


@dataclass(frozen=True)
class DemoSettings:
    """What decides the demos' content (stored in DIR/demos.json; a resume must match it)."""

    seed: int = 0
    per_task: int = DEMOS_PER_TASK
    cameras: bool = False
    image_size: int = RenderConfig().width  # what evaluation renders: a policy trains on the size it is tested at

    def as_dict(self) -> dict[str, Any]:
        return {"format": DEMO_FORMAT, **self.__dict__}


def record_demo(task: TrainingTask, settings: DemoSettings, index: int) -> tuple[Demo, int]:
    """Run the expert for demo `index` of `task`; returns the demo and how many attempts were rejected.

    Raises:
        GenerationError: the expert failed MAX_ATTEMPTS perturbations in a row.
    """
    render = RenderConfig(width=settings.image_size, height=settings.image_size)
    cameras = tuple(CAMERA_KEYS) if settings.cameras else ()
    for attempt in range(MAX_ATTEMPTS):
        seed = derive_seed(settings.seed, "demo", task.label, index, attempt)
        rng = np.random.default_rng(seed)
        layout = perturb(task.layout, task.spec, task.grounded, rng)
        instruction = task.paraphrases[int(rng.integers(len(task.paraphrases)))]
        rt = TrialRuntime(layout, 10_000, cameras=cameras, keep_states=True, render=render)
        try:
            for call in program(task.grounded, layout):
                execute(call, rt.skills)
            traj = rt.trajectory()
            # Judged as a trial is: after holding still (completion needs the scene at rest, issue 38); the
            # demo itself keeps only the program's steps.
            for _ in range(JUDGE_AFTER):
                rt.step(rt.hold_action())
            score = score_trajectory(rt.trajectory(), task.grounded, layout, task.scene)
            if score.intent >= 1.0 and score.execution >= 1.0 and score.complete and len(traj) > 1:
                t = len(traj) - 1
                robot = np.concatenate([traj.tcp_pos, _axis_angles(traj.tcp_quat), _fingers(traj.gripper_opening)], 1)
                images = {CAMERA_KEYS[c]: traj.frames[c][:t] for c in cameras}
                demo = Demo(
                    instruction=instruction,
                    seed=seed,
                    layout_json=layout.model_dump_json(),
                    actions=traj.actions,
                    states=np.stack(rt.states or [])[:t],
                    robot_states=robot[:t],
                    object_poses=traj.object_poses[:t],
                    images=images,
                )
                return demo, attempt
        finally:
            rt.close()
    raise GenerationError(f"the expert failed demo {index} of {task.label} in {MAX_ATTEMPTS} perturbations")


JUDGE_AFTER = 10  # hold steps after the program before the demo is judged


def _axis_angles(quats: np.ndarray) -> np.ndarray:
    from heedful.sims.tabletop.rotations import quat_to_axis_angle

    return np.stack([quat_to_axis_angle(q) for q in quats])


def _fingers(opening: np.ndarray) -> np.ndarray:
    half = opening / 2
    return np.stack([half, -half], axis=1)


def require_same_settings(out: Path, path: Path, wanted: dict[str, Any], what: str) -> None:
    """Resuming an export into `out`: the settings stored at `path` must be the ones asked for now.

    Raises:
        ConfigError: they differ (named both ways).
    """
    stored = json.loads(path.read_text(encoding="utf-8"))
    if stored != wanted:
        raise ConfigError(
            f"{out} holds {what} made with {stored}; this request is {wanted}: use the same settings to "
            "resume, or another --out"
        )


def _check_manifest(out: Path, settings: DemoSettings) -> None:
    path = out / MANIFEST
    wanted = settings.as_dict()
    if path.exists():
        require_same_settings(out, path, wanted, "demos")
    else:
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")


def generate_demos(
    out: Path,
    settings: DemoSettings,
    tasks: Sequence[TrainingTask],
    progress: Callable[[int, int], Any] | None = None,
    workers: int = 1,
) -> dict[str, int]:
    """Write `settings.per_task` demos of every task into `out`, continuing any earlier partial run.

    With `workers` > 1, that many processes record the demos ahead while this one writes them, file by file in
    the serial order (`demo_pool`), so the files are the same as a serial run's.

    Returns:
        Counts: tasks, demos (in the files now), written (by this call), rejected (expert attempts dropped).
    """
    from heedful.suites.tabletop.demo_pool import demos_of  # imports this module

    out = Path(out)
    check_egl_devices(parse_egl_devices(None))  # a missing HEEDFUL_EGL_DEVICES device fails before a file is written
    _check_manifest(out, settings)
    done = {t.label: _done_in(out / f"{t.label}_demo.hdf5", settings.per_task) for t in tasks}
    wanted = [(t, i) for t in tasks for i in range(done[t.label], settings.per_task)]
    recorded = demos_of(wanted, settings, workers)
    try:
        return _write_all(out, settings, tasks, recorded, progress)
    finally:
        recorded.close()  # an error or Ctrl-C: the worker processes stop


def _write_all(
    out: Path,
    settings: DemoSettings,
    tasks: Sequence[TrainingTask],
    recorded: Iterator[tuple[TrainingTask, int, Demo, int]],
    progress: Callable[[int, int], Any] | None,
) -> dict[str, int]:
    total = len(tasks) * settings.per_task
    written = rejected = present = 0
    for task in tasks:
        meta = {
            "heedful_format": DEMO_FORMAT,
            "env_args": env_args(settings.image_size, settings.cameras),
            "problem_info": json.dumps(
                {
                    "language_instruction": task.paraphrases[0],
                    "task": task.label,
                    "scene": task.scene,
                    "config": task.config,
                }
            ),
            "paraphrases": json.dumps(list(task.paraphrases)),
        }
        handle = open_task_file(out / f"{task.label}_demo.hdf5", meta)
        try:
            start = min(completed(handle), settings.per_task)
            present += start
            if progress is not None and start:
                progress(start, total)
            for index in range(start, settings.per_task):
                got, got_index, demo, dropped = next(recorded)
                if (got.label, got_index) != (task.label, index):  # the file changed since it was read
                    raise GenerationError(
                        f"{out} changed while demos were recorded (demo {got_index} of {got.label} arrived for demo "
                        f"{index} of {task.label}); run the command again to continue"
                    )
                write_demo(handle, index, demo)
                written, rejected, present = written + 1, rejected + dropped, present + 1
                if progress is not None:
                    progress(1, total)
        finally:
            handle.close()
    return {"tasks": len(tasks), "demos": present, "written": written, "rejected": rejected}


def _done_in(path: Path, per_task: int) -> int:
    """The demos a task's file holds (as `completed` counts them once `open_task_file` dropped cut-off groups),
    read without writing to it."""
    if not path.exists():
        return 0
    with require_h5py().File(path, "r") as handle:
        data = handle.get("data")
        n = 0
        while data is not None and f"demo_{n}" in data and "num_samples" in data[f"demo_{n}"].attrs:
            n += 1
    return min(n, per_task)
