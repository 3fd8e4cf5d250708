"""Mid-episode re-instruction on tabletop (`--reinstruct`, issue 42): the new words reach planners and controllers at
the switch, the oracle re-plans and does the new task, the memorizer keeps the old one, the rule is checked."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from heedful.agents.tabletop import OracleAgent
from heedful.agents.tabletop_controls import MemorizerAgent
from heedful.errors import ConfigError
from heedful.language.reinstruct import parse_reinstruct
from heedful.records import Record
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.model import TabletopTrial
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE

TASKS = list(evaluation_tasks())
TASK = "s1_L0_008_place_relative"  # scene 1, switched to s1_L0_001_pickup (another grounded goal, same layout)


def _trial(rule: str) -> TabletopTrial:
    options = {"level": "L0", "scene": 1, "trials": 1, "reinstruct": rule}
    return next(t for t in SUITE.episodes_for_run(TASKS, options) if t.task.task == TASK)


def _roll(agent: Any, rule: str) -> Record:
    return SUITE.rollout_episode(_trial(rule), agent, RolloutContext(seed=3, index=0, options={"reinstruct": rule}))


def test_the_oracle_re_plans_and_does_the_new_task() -> None:
    record = _roll(OracleAgent(), "after-first-choice")
    trial = _trial("after-first-choice")
    assert trial.switch is not None and trial.switch.to.grounded != trial.task.grounded
    assert record.inputs["instruction"] == trial.task.instruction  # it starts with its own words
    assert record.inputs["reinstruct_instruction"] == trial.switch.to.instruction
    assert record.inputs["reinstruct_episode"] == trial.switch.to.task
    s = record.scores
    assert (s["switched"], s["complete"], s["kept_old_task"], s["old_done_at_switch"]) == (1.0, 1.0, 0.0, 0.0)
    assert s["intent"] == 1.0  # putting the old object back is the hand-over, not a choice for the new task
    assert 0 < record.inputs["switch_step"] <= s["new_task_scored_from"]


def test_the_memorizer_keeps_the_old_task() -> None:
    s = _roll(MemorizerAgent(), "at=0.25").scores
    assert (s["switched"], s["complete"], s["kept_old_task"], s["old_done_at_switch"]) == (1.0, 0.0, 1.0, 0.0)


class RecordingController:
    """Moves down and closes the gripper, then holds; keeps every instruction and prompt it was given."""

    name = "recording-controller"
    privileged = True

    def __init__(self) -> None:
        self.instructions: list[str] = []
        self.prompts: list[tuple[int, str]] = []
        self.trials: list[TabletopTrial | None] = []

    def begin_trial(self, trial: TabletopTrial | None, seed: int) -> None:
        self.trials.append(trial)

    def reset(self) -> None:
        pass

    def set_instruction(self, instruction: str) -> None:
        self.instructions.append(instruction)

    def predict(self, observation: dict[str, Any]) -> np.ndarray:
        self.prompts.append((int(observation["step"]), str(observation["prompt"])))
        return np.zeros((25, 7))  # chunks of 25 steps: the switch at step 30 cuts the second one


def test_a_controller_gets_the_new_words_at_the_switch_step() -> None:
    agent = RecordingController()
    trial = _trial("at=0.1")
    record = _roll(agent, "at=0.1")
    step = max(1, int(0.1 * trial.task.horizon))
    assert record.inputs["switch_step"] == step
    assert agent.instructions == [trial.task.instruction, trial.switch.to.instruction]  # type: ignore[union-attr]
    before = [p for s, p in agent.prompts if s < step]
    after = [(s, p) for s, p in agent.prompts if s >= step]
    assert set(before) == {trial.task.instruction}
    assert after[0] == (step, trial.switch.to.instruction)  # type: ignore[union-attr]  # the chunk was cut there
    assert record.scores["switched"] == 1.0 and record.scores["complete"] == 0.0
    first, announced = agent.trials  # the switch is told when it comes, never before
    assert first is not None and first.switch is None and trial.switch is not None
    assert trial.switch.to.instruction not in first.model_dump_json() and trial.switch.to.task not in str(first)
    assert announced is not None and announced.switch is not None and announced.switch.made_at == step
    assert announced.switch.to.instruction == trial.switch.to.instruction


def test_without_a_switch_the_trial_is_unchanged() -> None:
    plain = next(t for t in SUITE.episodes_for_run(TASKS, {"level": "L0", "scene": 1, "trials": 1}))
    assert plain.switch is None and "switch" not in plain.model_dump_json()
    switched = SUITE.episodes_for_run(TASKS, {"level": "L0", "scene": 1, "trials": 1, "reinstruct": "at=0.5"})
    assert SUITE.dataset_hash(switched) == SUITE.dataset_hash(
        SUITE.episodes_for_run(TASKS, {"level": "L0", "scene": 1, "trials": 1})
    )


@pytest.mark.parametrize("bad", ["at=0", "at=1", "at=x", "halfway", "at=-0.5"])
def test_a_bad_rule_is_refused(bad: str) -> None:
    with pytest.raises(ConfigError, match="at=FRACTION"):
        parse_reinstruct(bad)
    with pytest.raises(ConfigError):
        SUITE.check_options({"reinstruct": bad})


def test_reinstruct_does_not_combine_with_another_arm() -> None:
    assert parse_reinstruct("at=0.5") is not None
    with pytest.raises(ConfigError, match="without --instruction"):
        SUITE.check_options({"reinstruct": "at=0.5", "instruction": "empty"})
