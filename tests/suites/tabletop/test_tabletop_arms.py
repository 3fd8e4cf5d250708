"""Instruction arms on tabletop: the substitute task of the same layout, counterfactual scores, language-blind
controls unmoved, no leak of the original words to planners or controllers (issue 42)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from heedful.agents.tabletop import BlindAgent, OracleAgent
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.arms import others
from heedful.suites.tabletop.model import TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE
from instruction_leaks import leaks

TASKS = list(evaluation_tasks())
ONE = {"level": "L0", "scene": 1, "trials": 1}


def _trial(task: str, arm: str | None) -> TabletopTrial:
    options = {**ONE, **({"instruction": arm} if arm else {})}
    return next(t for t in SUITE.episodes_for_run(TASKS, options) if t.task.task == task)


def _roll(task: str, agent: Any, arm: str | None, seed: int = 3) -> Any:
    options = {} if arm is None else {"instruction": arm}
    return SUITE.rollout_episode(_trial(task, arm), agent, RolloutContext(seed=seed, index=0, options=options))


class RecordingPlanner:
    name = "recording-planner"
    privileged = True

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def act(self, observation: PlannerObservation) -> AgentReply:
        self.seen.append(observation)
        return AgentReply(text='{"skill": "done", "args": {}}')


class RecordingController:
    name = "recording-controller"
    privileged = True
    cameras: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def begin_trial(self, trial: Any, seed: int) -> None:
        self.seen.append(trial)

    def reset(self) -> None:
        pass

    def set_instruction(self, instruction: str) -> None:
        self.seen.append(instruction)

    def predict(self, observation: dict[str, Any]) -> Any:
        self.seen.append(observation)
        return np.zeros((1000, 7))


def test_other_takes_another_task_of_the_same_scene_and_layout() -> None:
    trials = SUITE.episodes_for_run(TASKS, {"scene": 2, "trials": 1, "instruction": "other"})
    by_id = {t.task: t for t in TASKS}
    for t in trials:
        assert t.other is not None and t.other.task != t.task.task
        assert (t.other.scene, t.other.layout.digest()) == (t.task.scene, t.task.layout.digest())
        assert by_id[t.other.task] == t.other
        assert t.other.instruction != t.task.instruction
    every = others(TASKS, TASKS)  # one L3 task is alone in its layout: it takes a task of its scene that grounds there
    assert len(every) == len(TASKS) and sum(every[t.task].layout != t.layout for t in TASKS) == 1
    plain = SUITE.episodes_for_run(TASKS, {"scene": 2, "trials": 1})
    assert SUITE.dataset_hash(trials) == SUITE.dataset_hash(plain)
    assert SUITE.parse_episode(trials[0].model_dump_json()) == trials[0]
    assert plain[0].model_dump_json() == trials[0].model_copy(update={"other": None}).model_dump_json()


def test_the_oracle_follows_the_given_words_and_the_blind_control_does_not_move() -> None:
    task = "s1_L0_001_pickup"
    record = _roll(task, OracleAgent(), "other")
    assert record.scores["followed_given"] == 1.0
    assert record.scores["followed_scene"] == float(bool(record.correct)) == 0.0
    assert record.inputs["other_episode"] == _trial(task, "other").other.task  # type: ignore[union-attr]
    assert _roll(task, OracleAgent(), "given").model_dump_json() == _roll(task, OracleAgent(), None).model_dump_json()
    blind = BlindAgent()
    blind.fit(SUITE.training_episodes(TASKS))
    calls = {str(_roll(task, blind, arm).prediction["calls"]) for arm in (None, "empty", "shuffled", "other")}
    assert len(calls) == 1


@pytest.mark.parametrize("arm", ["empty", "shuffled", "other"])
def test_the_original_words_never_reach_a_planner_or_a_controller(arm: str) -> None:
    task = "s1_L0_005_place_relative"
    original = next(t for t in TASKS if t.task == task).instruction
    for agent in (RecordingPlanner(), RecordingController()):
        record = _roll(task, agent, arm)
        assert agent.seen and not leaks(original, agent.seen), (type(agent).__name__, arm)
        assert not leaks(task, agent.seen)  # nor the id a privileged agent could look the words up by
        assert record.inputs["instruction"] != original
    probe = RecordingPlanner()
    _roll(task, probe, None)
    assert leaks(original, probe.seen)  # the probe finds the words where they are given
