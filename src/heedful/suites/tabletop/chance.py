"""The exact chance level of the tabletop suite: the expected score of the blind branch choice.

A policy that reads the scene but not the instruction can at best pick one of the scene configuration's
training branches (what `blind` does, uniformly). Its expected score on a task is therefore the mean,
over those branches, of the score the branch's expert program gets on the task. That mean is computed,
not sampled: every branch is run once in the task's layout (nominal, without the per-trial 1-2 cm
jitter) for the task's horizon, and scored with the task's own scorer. Runs are shared by all tasks of a
layout (the trajectory of a shorter horizon is a prefix of the longest one).

Computing all 554 tasks takes a few minutes, so the values are stored in `chance_levels.json` next to this
module, each with a fingerprint of what it depends on (task, layout, branches, scorer version); a stale or
missing entry is left out of the report (never guessed). Regenerate after changing levels or scoring:

    python -m heedful.suites.tabletop.chance
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np

from heedful.errors import ConfigError
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import ReferenceRows
from heedful.records import Record
from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.expert import branch_program
from heedful.suites.tabletop.model import Grounded, Layout, TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks, training_tasks
from heedful.suites.tabletop.replay import program_trajectory
from heedful.suites.tabletop.scoring import score_trajectory

CHANCE_FILE = Path(__file__).with_name("chance_levels.json")
SCORING_VERSION = "issue-38/1"  # bump when a scoring rule changes: every stored entry goes stale
METRICS = ("intent", "execution", "intent_full", "execution_full", "complete", "complete_clean", "disturbed")
"""The scores of the paper's Table 1 that the exact chance level is stored for (not every metric of the spec)."""
CI_METHOD = "exact (every blind branch)"
CHANCE_PREFIX = "chance "
"""The groups of the chance rows (`chance S1 / L0`): the exact expected score of the blind branch draw."""


@cache
def training_branches() -> dict[str, tuple[Grounded, ...]]:
    """Each training configuration's distinct training branches, in registry order (what `blind` draws)."""
    out: dict[str, list[Grounded]] = defaultdict(list)
    for t in training_tasks():
        if t.grounded not in out[t.config]:
            out[t.config].append(t.grounded)
    return {k: tuple(v) for k, v in out.items()}


def fingerprint(task: TabletopTask) -> str:
    """Hash of everything a task's chance level depends on."""
    body = {
        "version": SCORING_VERSION,
        "scene": task.scene,
        "horizon": task.horizon,
        "grounded": task.grounded.model_dump(mode="json"),
        "layout": task.layout.digest(),
        "branches": [g.model_dump(mode="json") for g in training_branches()[task.base_config]],
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _prefix(traj: Trajectory, steps: int) -> Trajectory:
    rows = steps + 1
    return replace(
        traj,
        time=traj.time[:rows],
        tcp_pos=traj.tcp_pos[:rows],
        tcp_quat=traj.tcp_quat[:rows],
        gripper_opening=traj.gripper_opening[:rows],
        gripper_command=traj.gripper_command[:rows],
        events=traj.events[:rows],
        object_poses=traj.object_poses[:rows],
        actions=traj.actions[:steps],
        held=traj.held[:rows],
        touched=traj.touched[:rows],
    )


class BranchRuns:
    """The trajectory of every (layout, branch), run once for the longest horizon any task needs."""

    def __init__(self, tasks: Sequence[TabletopTask]) -> None:
        self.steps: dict[str, int] = defaultdict(int)
        for t in tasks:
            self.steps[t.layout.digest()] = max(self.steps[t.layout.digest()], t.horizon)
        self.runs: dict[tuple[str, int], Trajectory | None] = {}

    def get(self, layout: Layout, k: int, branch: Grounded, steps: int) -> Trajectory | None:
        key = (layout.digest(), k)
        if key not in self.runs:
            try:
                calls = branch_program(branch, layout)
            except ConfigError:
                calls = None  # the branch cannot be planned here: blind would fail on it, so it scores 0
            longest = self.steps[key[0]]
            self.runs[key] = None if calls is None else program_trajectory(calls, layout, longest)
        traj = self.runs[key]
        return None if traj is None else _prefix(traj, steps)


def task_chance(task: TabletopTask, runs: BranchRuns) -> dict[str, float]:
    """The expected value of each metric over the uniform draw of the task's configuration's branches."""
    branches = training_branches()[task.base_config]
    totals = dict.fromkeys(METRICS, 0.0)
    for k, branch in enumerate(branches):
        traj = runs.get(task.layout, k, branch, task.horizon)
        if traj is None:
            continue
        scores = score_trajectory(traj, task.grounded, task.layout, task.scene).scores()
        for m in METRICS:
            totals[m] += scores[m]
    return {m: round(v / len(branches), 9) for m, v in totals.items()}


def compute(
    tasks: Sequence[TabletopTask], progress: Callable[[int, int], None] | None = None
) -> dict[str, dict[str, object]]:
    """task name -> {"fingerprint", metric values} for every task."""
    runs = BranchRuns(tasks)
    out: dict[str, dict[str, object]] = {}
    for i, task in enumerate(tasks):
        out[task.task] = {"fingerprint": fingerprint(task), **task_chance(task, runs)}
        if progress is not None:
            progress(i + 1, len(tasks))
    return out


@cache
def stored() -> dict[str, dict[str, object]]:
    """The stored chance levels (empty when the file is missing)."""
    if not CHANCE_FILE.exists():
        return {}
    data: dict[str, dict[str, object]] = json.loads(CHANCE_FILE.read_text(encoding="utf-8"))["tasks"]
    return data


def current(tasks: Iterable[TabletopTask]) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Stored chance levels of `tasks` whose fingerprint still matches, and the names of the stale ones."""
    table, stale = stored(), []
    fresh: dict[str, dict[str, float]] = {}
    for t in tasks:
        entry = table.get(t.task)
        if entry is None or entry.get("fingerprint") != fingerprint(t):
            stale.append(t.task)
            continue
        fresh[t.task] = {m: float(entry[m]) for m in METRICS}  # type: ignore[arg-type]
    return fresh, stale


def chance_rows(records: Sequence[Record]) -> list[MetricRow]:
    """Rows `chance S / L` (and `chance L`, `chance all`): the task-macro chance level of the run's tasks."""
    names = {r.keys.get("task") for r in records}
    tasks = [t for t in evaluation_tasks() if t.task in names]
    fresh, _ = current(tasks)
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for t in tasks:
        if t.task in fresh:
            for group in (f"S{t.scene} / {t.level}", t.level, "all"):
                groups[group].append(fresh[t.task])
    rows = []
    for group, values in groups.items():
        for m in METRICS:
            mean = float(np.mean([v[m] for v in values]))
            rows.append(
                MetricRow(
                    metric=m,
                    group=CHANCE_PREFIX + group,
                    value=mean,
                    ci_low=None,
                    ci_high=None,
                    n=len(values),
                    unit="task",
                    ci_method=CI_METHOD,
                )
            )
    return rows


def blind_draw(records: Sequence[Record]) -> ReferenceRows:
    """The tabletop scoring's reference levels: the blind draw's level of each (group, metric) of the run's tasks,
    and its `chance ...` rows of Table 1."""
    rows = chance_rows(records)
    levels = {(r.group.removeprefix(CHANCE_PREFIX), r.metric): r.value for r in rows if r.value is not None}
    return levels, rows


def main(argv: Sequence[str] | None = None) -> None:
    """Compute the chance level of all 554 tasks and store it next to this module."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m heedful.suites.tabletop.chance",
        description="Compute the exact chance level (expected score of the blind branch choice) of every "
        f"tabletop task and write it to {CHANCE_FILE.name} next to this module (about a minute on 2 cores). "
        "Run it after changing the levels or the scoring; the report leaves stale entries out.",
    )
    parser.parse_args(argv)
    tasks = list(evaluation_tasks())

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            print(f"chance levels: {done}/{total} tasks", file=sys.stderr, flush=True)

    table = compute(tasks, progress)
    text = json.dumps({"version": SCORING_VERSION, "tasks": table}, indent=1, sort_keys=True)
    CHANCE_FILE.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {CHANCE_FILE} ({len(table)} tasks)", file=sys.stderr)


if __name__ == "__main__":
    main()
