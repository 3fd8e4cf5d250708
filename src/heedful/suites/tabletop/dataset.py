"""Dataset files: `episodes.jsonl` (one evaluation task per line: task, scene, level, config, instruction,
the symbolic spec, its grounding and the layout) and `dataset.json` (counts, content hash, scene entropy).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError
from heedful.sims.tabletop.spec import validate_scene
from heedful.suites.episode_files import read_episodes, write_dataset
from heedful.suites.tabletop.grounding import GroundingError, ground
from heedful.suites.tabletop.model import TabletopTask

DATASET_FORMAT = "heedful-tabletop-dataset/1"


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
    return write_dataset(tasks, out, dataset_format=DATASET_FORMAT, meta=meta, counts=summarize(tasks))


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
    bowls = {o.name for o in task.layout.objects if o.shape == "bowl"}
    names = {o.name for o in task.layout.objects}
    for thing, bowl in task.layout.inside:
        if thing not in names or bowl not in bowls:
            return f"task {task.task}: layout.inside puts {thing!r} in {bowl!r}, but the layout has no such object/bowl"
    try:  # on the table, supported, not overlapping: what the simulator would refuse at the first trial
        validate_scene(task.layout.scene_spec())
    except ConfigError as exc:
        return f"task {task.task}: its layout cannot be built: {exc}"
    return None


def load_episodes(path: Path, *, verify: bool = True) -> list[TabletopTask]:
    """Load a dataset directory (or an episodes.jsonl file), validating every line."""
    return read_episodes(path, TabletopTask, suite="tabletop", check=inconsistency, verify=verify)
