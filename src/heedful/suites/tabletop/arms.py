"""Instruction arms of the tabletop suite (see `heedful.language.arms`).

`other` shows the instruction of another task of the same scene and layout (the same objects at the same places),
preferring one whose grounded goal differs from the trial's; a task alone in its layout (one L3 task of the 554)
takes another task of its scene whose words ground in its layout. The substitute travels
with the trial (`TabletopTrial.other`); the dataset hash leaves it out, so the arms of one selection pair.

What the agent gets is the trial's task with the words replaced (`shown_task`): the instruction, and under
`other` the substitute's spec, grounded in this trial's perturbed layout (what its words mean here), which is
all a privileged agent (the oracle) reads. The original phrasing's labels (`training_label`, `derived_from`)
are left out and the task id is the episode's opaque token under every arm but `given`, so that a privileged
agent cannot look the original words up. The scene, the horizon and the main score stay the trial's own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from heedful.errors import ConfigError
from heedful.language.arms import Arm, choose_other, shown_instruction
from heedful.seeding import episode_token
from heedful.suites.tabletop.grounding import GroundingError, ground
from heedful.suites.tabletop.model import Grounded, Layout, TabletopTask


def others(tasks: Sequence[TabletopTask], pool: Sequence[TabletopTask]) -> dict[str, TabletopTask]:
    """Task id -> its substitute among `pool` (the run's dataset lines): another task of the same scene and layout
    (one with another grounded goal when there is one), chosen by `choose_other`; for a task alone in its layout,
    another task of the scene whose spec grounds in it.

    Raises:
        ConfigError: a task is alone in its layout.
    """
    by_layout: dict[tuple[int, str], list[TabletopTask]] = defaultdict(list)
    for t in pool:
        by_layout[(t.scene, t.layout.digest())].append(t)
    chosen = {}
    for t in tasks:
        same = by_layout[(t.scene, t.layout.digest())]
        candidates = [d for d in same if d.task != t.task and d.instruction != t.instruction]
        if not candidates:  # alone in its layout: a task of the scene whose words ground here
            scene = [d for d in pool if d.scene == t.scene and d.instruction != t.instruction]
            candidates = [d for d in scene if ground_other(d, t.layout) is not None]
        donor = choose_other(t.task, candidates, prefer=[d for d in candidates if d.grounded != t.grounded])
        if donor is None:
            raise ConfigError(
                f"no other task of scene {t.scene} can be asked in the layout of {t.task}; --instruction other "
                "needs one (select more levels)"
            )
        chosen[t.task] = donor
    return chosen


def ground_other(other: TabletopTask, layout: Layout) -> Grounded | None:
    """What the substitute's words ask in this trial's layout; None when they name no object here."""
    try:
        return ground(other.spec, layout)
    except GroundingError:
        return None


def shown_task(task: TabletopTask, arm: Arm, seed: int, other: TabletopTask | None, layout: Layout) -> TabletopTask:
    """The task as the agent is given it under `arm` (see the module docstring)."""
    if arm == "given":
        return task
    if arm == "other" and other is None:
        raise ConfigError(f"trial of {task.task} carries no substitute; build the run with episodes_for_run")
    update: dict[str, Any] = {
        "task": episode_token(seed),  # the dataset's id would let a privileged agent look the words up
        "instruction": shown_instruction(arm, task.instruction, seed, other.instruction if other else None),
        "training_label": None,
        "derived_from": None,
    }
    if arm == "other" and other is not None:
        grounded = ground_other(other, layout)
        update.update(spec=other.spec, action=other.action, grounded=grounded or other.grounded)
    return task.model_copy(update=update)
