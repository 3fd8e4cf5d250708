"""Dataset files: `episodes.jsonl` (one evaluation task per line: task, scene, level, config, instruction,
the symbolic spec, its grounding and the layout) and `dataset.json` (counts, content hash, scene entropy).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from heedful.errors import DatasetError
from heedful.suites.tabletop.grounding import GroundingError, ground
from heedful.suites.tabletop.model import TabletopTask

EPISODES_FILE = "episodes.jsonl"
SUMMARY_FILE = "dataset.json"
DATASET_FORMAT = "heedful-tabletop-dataset/1"


def episodes_bytes(episodes: Sequence[BaseModel]) -> bytes:
    return "".join(ep.model_dump_json() + "\n" for ep in episodes).encode("utf-8")


def content_hash(episodes: Sequence[BaseModel]) -> str:
    """Hash of tasks or of trials (whatever the run holds)."""
    return "sha256:" + hashlib.sha256(episodes_bytes(episodes)).hexdigest()


def summarize(tasks: Sequence[TabletopTask]) -> dict[str, Any]:
    def count(values: list[str]) -> dict[str, int]:
        return dict(sorted(Counter(values).items()))

    return {
        "instances": len(tasks),
        "by_level": count([t.level for t in tasks]),
        "by_scene": count([f"S{t.scene}" for t in tasks]),
        "by_scene_level": count([f"S{t.scene}/{t.level}" for t in tasks]),
        "by_action": count([t.action for t in tasks]),
        "layouts": len({t.config for t in tasks}),
    }


def save(tasks: Sequence[TabletopTask], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Write both files into `out` and return the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = episodes_bytes(tasks)
    (out / EPISODES_FILE).write_bytes(data)
    summary = {
        "format": DATASET_FORMAT,
        **meta,
        "content_hash": "sha256:" + hashlib.sha256(data).hexdigest(),
        "counts": summarize(tasks),
    }
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(map(str, err["loc"])) or "task"
    more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    return f"field {where!r}: {err['msg']}{more}"


def inconsistency(task: TabletopTask) -> str | None:
    """Why a task contradicts itself (its spec does not ground as stated in its layout), or None."""
    if task.layout.scene != task.scene:
        return f"task {task.task}: scene {task.scene} but its layout belongs to scene {task.layout.scene}"
    try:
        grounded = ground(task.spec, task.layout)
    except GroundingError as exc:
        return f"task {task.task}: its spec does not ground in its layout: {exc}"
    if grounded != task.grounded:
        return f"task {task.task}: its spec grounds to {grounded.model_dump(exclude_defaults=True)}, not the stated one"
    if task.horizon < 1:
        return f"task {task.task}: horizon must be positive"
    return None


def load_episodes(path: Path) -> list[TabletopTask]:
    """Load a dataset directory (or an episodes.jsonl file), validating every line."""
    path = Path(path)
    file = path / EPISODES_FILE if path.is_dir() else path
    if not file.exists():
        raise DatasetError(f"no {EPISODES_FILE} in {path}; generate one with `heedful generate tabletop --out DIR`")
    tasks: list[TabletopTask] = []
    seen: set[str] = set()
    with file.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                task = TabletopTask.model_validate_json(line)
            except ValidationError as exc:
                raise DatasetError(f"{file}:{lineno}: {_first_error(exc)}") from None
            problem = inconsistency(task)
            if problem:
                raise DatasetError(f"{file}:{lineno}: {problem}")
            if task.task in seen:
                raise DatasetError(f"{file}:{lineno}: task {task.task!r} appears twice")
            seen.add(task.task)
            tasks.append(task)
    if not tasks:
        raise DatasetError(f"{file} holds no tasks")
    return tasks
