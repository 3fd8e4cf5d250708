"""Demonstrations recorded in parallel worker processes, handed back in order.

Recording a demo (the expert in MuJoCo, rendering its cameras) is what an export spends its time on; the
writer (a LeRobot dataset, HDF5 files) must add demos in order, one at a time. So spawned workers record
demos ahead (a bounded window of them in flight) and write each to an `.npz` file in a scratch directory;
the main process reads them back in order and adds them. Only plain values cross the process boundary (a
task label, an index, the settings as JSON, a file path), and each demo depends only on (settings, task,
index): an export is the same whatever the number of workers.
"""

from __future__ import annotations

import json
import multiprocessing
import tempfile
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

import numpy as np

from heedful.errors import ConfigError
from heedful.sims.gl_devices import (
    WorkerCounter,
    check_egl_devices,
    parse_egl_devices,
    pool_worker_device,
    use_egl_device,
)
from heedful.suites.tabletop.demo_file import Demo
from heedful.suites.tabletop.demos import DemoSettings, record_demo
from heedful.suites.tabletop.model import TrainingTask

_ARRAYS = ("actions", "states", "robot_states", "object_poses")


def recorded_demos(
    tasks: Sequence[TrainingTask], settings: DemoSettings, start: int, workers: int = 1
) -> Iterator[tuple[int, TrainingTask, int, Demo, int]]:
    """(position, task, demo index, demo, rejected attempts) for every demo position from `start`, in order.

    Position n is demo n % per_task of task n // per_task. With `workers` > 1 the demos are recorded in that
    many spawned processes.

    Raises:
        ConfigError: `workers` < 1.
        GenerationError: the expert failed one demo in every perturbation (from the worker that recorded it).
    """
    positions = range(start, len(tasks) * settings.per_task)
    wanted = [(tasks[n // settings.per_task], n % settings.per_task) for n in positions]
    for n, (task, index, demo, rejected) in zip(positions, demos_of(wanted, settings, workers), strict=True):
        yield n, task, index, demo, rejected


def demos_of(
    wanted: Sequence[tuple[TrainingTask, int]], settings: DemoSettings, workers: int = 1
) -> Generator[tuple[TrainingTask, int, Demo, int], None, None]:
    """(task, demo index, demo, rejected attempts) for each wanted (task, demo index), in that order, recorded in
    `workers` spawned processes when more than one.

    Raises:
        ConfigError: `workers` < 1.
        GenerationError: the expert failed one demo in every perturbation (from the worker that recorded it).
    """
    if workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    devices = parse_egl_devices(None)  # HEEDFUL_EGL_DEVICES: worker i renders on device i mod N, as in a run's pool
    check_egl_devices(devices)
    if workers == 1 or len(wanted) <= 1:
        use_egl_device(devices, 0)  # this process is worker 0
        for task, index in wanted:
            demo, rejected = record_demo(task, settings, index)
            yield task, index, demo, rejected
        return
    positions = range(len(wanted))

    def place(n: int) -> tuple[TrainingTask, int]:
        return wanted[n]

    settings_json = json.dumps(asdict(settings))
    context = multiprocessing.get_context("spawn")
    with (
        tempfile.TemporaryDirectory(prefix="heedful-demos-") as scratch,
        ProcessPoolExecutor(
            max_workers=min(workers, len(positions)),
            mp_context=context,
            initializer=pool_worker_device,
            initargs=(devices, WorkerCounter(context)),
        ) as pool,
    ):
        queue: Iterator[int | None] = iter(positions)
        pending: deque[tuple[int, Future[tuple[str, int]]]] = deque()
        try:
            while True:
                while len(pending) < 2 * workers and (ahead := next(queue, None)) is not None:
                    task, index = place(ahead)
                    file = str(Path(scratch) / f"{ahead}.npz")
                    pending.append((ahead, pool.submit(_record_to_file, task.label, index, settings_json, file)))
                if not pending:
                    return
                n, future = pending.popleft()
                file, rejected = future.result()
                task, index = place(n)
                yield task, index, _read_demo(Path(file)), rejected
                Path(file).unlink()
        finally:
            for _, future in pending:  # an error or Ctrl-C: start nothing more
                future.cancel()


def _record_to_file(label: str, index: int, settings_json: str, file: str) -> tuple[str, int]:
    """Worker: record demo `index` of training task `label` into `file`; return it and the rejected attempts."""
    from heedful.suites.tabletop.registry import training_task

    demo, rejected = record_demo(training_task(label), DemoSettings(**json.loads(settings_json)), index)
    _write_demo(demo, Path(file))
    return file, rejected


def _write_demo(demo: Demo, file: Path) -> None:
    meta = {"instruction": demo.instruction, "seed": demo.seed, "layout_json": demo.layout_json}
    arrays: dict[str, np.ndarray] = {name: getattr(demo, name) for name in _ARRAYS}
    arrays.update({f"image:{key}": frames for key, frames in demo.images.items()})
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(file, **arrays)  # type: ignore[arg-type]  # numpy's stub types the first keyword as allow_pickle


def _read_demo(file: Path) -> Demo:
    with np.load(file, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        images = {name.removeprefix("image:"): data[name] for name in data.files if name.startswith("image:")}
        return Demo(**meta, **{name: data[name] for name in _ARRAYS}, images=images)
