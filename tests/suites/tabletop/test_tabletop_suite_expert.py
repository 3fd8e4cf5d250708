"""The scripted expert solves evaluation tasks in real physics, over trial seeds.

The fast test covers one task of every scene x level and every action; the slow test every one of the
554 tasks, each at a seeded random trial round (about a minute on one core). The full 554 x 10 sweep is
in benchmarks/tabletop_protocol.py (`--full`).
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from heedful.agents.tabletop import OracleAgent
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.model import TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE


def failures(tasks: list[TabletopTask], rounds: dict[str, int]) -> list[str]:
    out = []
    for task in tasks:
        trial = SUITE.episodes_for_run([task], {"trials": rounds[task.task] + 1})[-1]
        record = SUITE.rollout_episode(trial, OracleAgent(), RolloutContext(seed=0, index=0, options={}))
        s = record.scores
        if not (s["intent"] == s["execution"] == s["complete"] == 1.0):
            out.append(f"{trial.episode_id}: {s} {record.prediction['failed_stage']} {record.prediction['stages']}")
    return out


def strata() -> dict[tuple[int, str, str], list[TabletopTask]]:
    groups: dict[tuple[int, str, str], list[TabletopTask]] = defaultdict(list)
    for t in evaluation_tasks():
        groups[(t.scene, t.level, t.action)].append(t)
    return groups


def test_expert_solves_one_task_of_every_scene_level_and_action() -> None:
    picked: dict[str, TabletopTask] = {}
    for (scene, level, action), tasks in sorted(strata().items()):
        level_done = any((t.scene, t.level) == (scene, level) for t in picked.values())
        action_done = any(t.action == action for t in picked.values())
        if not (level_done and action_done):
            picked[tasks[0].task] = tasks[0]
    assert {(t.scene, t.level) for t in picked.values()} == {
        (s, lv) for s in (1, 2, 3, 4) for lv in ("L0", "L1", "L2", "L3")
    }
    assert failures(list(picked.values()), dict.fromkeys(picked, 0)) == []


@pytest.mark.slow
def test_expert_solves_every_registry_task_at_a_random_trial_round() -> None:
    rng = random.Random(20260)
    tasks = list(evaluation_tasks())
    rounds = {t.task: rng.randrange(10) for t in tasks}
    assert len(tasks) == 554 and len(set(rounds.values())) == 10
    assert failures(tasks, rounds) == []
