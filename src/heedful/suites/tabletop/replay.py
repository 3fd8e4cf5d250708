"""Recorded motions for open-loop replay: run a program in a private simulation of a layout and keep
the low-level actions it applied.

Physics is deterministic, so replaying the actions in a simulation of the same layout reproduces the
motion exactly; replayed in another layout, the gripper goes where it went in the recorded one. The
`memorizer` control and the motion-level test doubles are built on this.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.expert import program
from heedful.suites.tabletop.language import normalize
from heedful.suites.tabletop.model import Layout, TrainingTask
from heedful.suites.tabletop.perturb import perturb
from heedful.suites.tabletop.registry import horizon, training_tasks
from heedful.suites.tabletop.runtime import HorizonReachedError, TrialRuntime
from heedful.suites.tabletop.skillcalls import SkillCall, execute


def record(layout: Layout, steps: int, drive: Callable[[TrialRuntime], None]) -> Trajectory:
    """The trajectory of `drive` acting in a fresh simulation of `layout`, held still up to `steps`."""
    rt = TrialRuntime(layout, steps)
    try:
        with contextlib.suppress(HorizonReachedError):  # the trial's steps ran out: keep what was done
            drive(rt)
        rt.idle_to_horizon()
        return rt.trajectory()
    finally:
        rt.close()


def record_actions(layout: Layout, steps: int, drive: Callable[[TrialRuntime], None]) -> NDArray[np.float64]:
    """The (steps, 7) actions applied when `drive` acts in a fresh simulation of `layout`, held to `steps`."""
    return np.asarray(record(layout, steps, drive).actions, dtype=np.float64)


def program_trajectory(calls: Sequence[SkillCall], layout: Layout, steps: int) -> Trajectory:
    """The trajectory of a skill-call program run in `layout` (a failed call does not stop the rest)."""

    def drive(rt: TrialRuntime) -> None:
        for call in calls:
            execute(call, rt.skills)

    return record(layout, steps, drive)


def program_actions(calls: Sequence[SkillCall], layout: Layout, steps: int) -> NDArray[np.float64]:
    """The actions of a skill-call program run in `layout`."""
    return np.asarray(program_trajectory(calls, layout, steps).actions, dtype=np.float64)


def _words(text: str) -> list[str]:
    return normalize(text).replace(",", " ").replace(".", " ").split()


def similarity(a: str, b: str) -> float:
    """Word-sequence similarity of two instructions in [0, 1] (difflib's ratio over words)."""
    return SequenceMatcher(None, _words(a), _words(b), autojunk=False).ratio()


def nearest_training(instruction: str, config: str) -> tuple[TrainingTask, str, float]:
    """The training task of configuration `config` whose phrasing is most similar to `instruction`,
    that phrasing and the similarity (ties: the first task, in registry order)."""
    best: tuple[TrainingTask, str, float] | None = None
    for task in training_tasks():
        if task.config != config:
            continue
        for phrase in task.paraphrases:
            score = similarity(instruction, phrase)
            if best is None or score > best[2]:
                best = (task, phrase, score)
    if best is None:
        raise KeyError(f"no training task in configuration {config!r}")
    return best


def training_replay(task: TrainingTask, trial_seed: int) -> NDArray[np.float64]:
    """The expert's actions for a training task in its training layout, under the 1-2 cm perturbation
    that `trial_seed` draws (the draw an evaluation trial of that very task would get)."""
    layout = perturb(task.layout, task.spec, task.grounded, np.random.default_rng(trial_seed))
    return program_actions(program(task.grounded, layout), layout, horizon(task.spec))
