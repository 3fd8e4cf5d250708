"""The protocol runner: trials and seeds, fixed horizon, records, statuses, determinism, the agent loops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heedful.agents.base import AgentReply
from heedful.agents.tabletop import OracleAgent
from heedful.api import evaluate
from heedful.errors import ConfigError, DatasetError
from heedful.records import Status
from heedful.report.export import rows_of
from heedful.runner import load_run
from heedful.seeding import stable_hash
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.model import TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE

TASKS = {t.task: t for t in evaluation_tasks()}


def trial(task: str, r: int = 0) -> TabletopTrial:
    return next(t for t in SUITE.episodes_for_run([TASKS[task]], {"trials": r + 1}) if t.trial == r)


def test_trials_follow_robofollows_seed_rule_round_by_round() -> None:
    tasks = [TASKS["s1_L0_000_pickup"], TASKS["s4_L1_000_if_stack"]]
    trials = SUITE.episodes_for_run(tasks, {})
    assert len(trials) == 20
    assert [t.trial for t in trials[:4]] == [0, 0, 1, 1]  # round-major: every task's first trial first
    for t in trials:
        assert t.trial_seed == 42 + t.trial * 100 + stable_hash(t.task.task, 1000)
        assert t.episode_id == f"{t.task.task}/t{t.trial}"
    assert len(SUITE.episodes_for_run(evaluation_tasks(), {})) == 5540
    some = SUITE.episodes_for_run(evaluation_tasks(), {"level": ["L1"], "scene": [2, 3], "trials": 1})
    assert len(some) == 24 + 40 and {t.task.scene for t in some} == {2, 3}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"levels": ["L0"]}, "no run option 'levels'"),
        ({"level": ["L5"]}, "unknown level"),
        ({"scene": [5]}, "unknown scene"),
        ({"scene": [True]}, "unknown scene True"),  # True == 1 in Python: not scene 1
        ({"trials": 0}, "positive integer"),
    ],
)
def test_bad_run_options_are_typed_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SUITE.check_options(options)


def test_the_training_tasks_and_sampling_units_of_tasks_and_of_their_trials() -> None:
    tasks = [TASKS["s1_L0_000_pickup"], TASKS["s1_L1_000_pickup"], TASKS["s2_L0_004_stack"]]
    trials = SUITE.episodes_for_run(tasks, {"trials": 2})
    assert SUITE.training_episodes(trials) == SUITE.training_episodes(tasks) == [tasks[0], tasks[2]]  # L0, once each
    strata = ["S1/L0", "S1/L1", "S2/L0"] * 2  # one unit per trial, round by round
    assert SUITE.sample_units(trials) == [(stratum, [i]) for i, stratum in enumerate(strata)]
    assert SUITE.sample_units(tasks) == [("all", [0]), ("all", [1]), ("all", [2])]  # lines: for the dataset cache


def test_episodes_cross_process_boundaries_as_json() -> None:
    t = trial("s3_L2_000_route_place", 3)
    assert SUITE.parse_episode(t.model_dump_json()) == t
    assert SUITE.parse_episode(t.task.model_dump_json()) == t.task
    with pytest.raises(DatasetError, match="schema_version"):
        SUITE.parse_episode('{"schema_version": "other/1"}')


def rollout(t: TabletopTrial, agent: Any, seed: int = 7) -> Any:
    return SUITE.rollout_episode(t, agent, RolloutContext(seed=seed, index=0, options={}))


def test_a_trial_runs_its_full_horizon_and_the_record_says_which_stage_failed() -> None:
    record = rollout(trial("s2_L0_004_stack"), OracleAgent())
    assert record.status is Status.OK and record.correct is True
    assert record.scores["intent"] == record.scores["execution"] == record.scores["complete"] == 1.0
    assert record.prediction["steps"] == TASKS["s2_L0_004_stack"].horizon
    assert record.prediction["acting_steps"] < record.prediction["steps"]  # the oracle finished early, then held
    assert record.prediction["failed_stage"] is None
    assert {"task", "scene", "level", "trial", "config"} <= set(record.keys)


class UndoAfterSuccess:
    """Test double: runs the oracle's calls, then takes the object out of the bowl again."""

    name = "undo"
    privileged = True  # it runs the oracle's calls, which read the ground truth

    def act(self, obs: PlannerObservation) -> AgentReply:
        calls = [c.call for c in obs.history]
        oracle = OracleAgent().act(obs)
        if '"done"' not in oracle.text:
            return oracle
        src = obs.ground_truth().task.grounded.source
        extra = [
            json.dumps({"skill": "pick", "args": {"object": src}}),
            '{"skill": "place_at", "args": {"x": 0.0, "y": 0.36}}',
            '{"skill": "go_home"}',
        ]
        done_before = len(calls) - 3
        return AgentReply(text=extra[done_before] if done_before < len(extra) else '{"skill": "done"}')


def test_a_policy_that_completes_and_then_undoes_the_task_is_not_complete() -> None:
    t = trial("s2_L0_012_place_bowl")
    record = rollout(t, UndoAfterSuccess())
    assert record.status is Status.OK
    assert [c["ok"] for c in record.prediction["calls"]] == [True] * 6
    assert record.scores["complete"] == 0.0
    assert record.scores["intent"] == pytest.approx(0.8) and record.scores["execution"] == pytest.approx(0.8)
    assert (record.prediction["failed_stage"], record.prediction["failed_on"]) == ("finish", "intent")


class Garbage:
    name = "garbage"

    def act(self, obs: PlannerObservation) -> AgentReply:
        return AgentReply(
            text="I would pick the cube" if obs.history else '{"skill": "pick", "args": {"object": "red_cube"}}'
        )


def test_an_unparseable_call_ends_the_turn_as_a_parse_error_and_what_happened_is_scored() -> None:
    record = rollout(trial("s2_L0_001_pickup"), Garbage())
    assert record.status is Status.PARSE_ERROR
    assert "call 2" in str(record.error) and "not JSON" in str(record.error)
    assert record.scores["intent"] == pytest.approx(0.8)  # it did grasp the right cube before
    assert record.prediction["steps"] == TASKS["s2_L0_001_pickup"].horizon


class Still:
    """Test double of a remote policy: a controller that holds still (or sends NaN when told to)."""

    name = "still"
    cameras = ("agentview",)

    def __init__(self, nan: bool = False) -> None:
        self.nan, self.instruction, self.calls = nan, "", 0

    def reset(self) -> None:
        self.calls = 0

    def set_instruction(self, instruction: str) -> None:
        self.instruction = instruction

    def predict(self, obs: dict[str, Any]) -> np.ndarray:
        assert obs["image"].shape == (224, 224, 3) and obs["state"].shape == (8,) and obs["prompt"]
        self.calls += 1
        return np.full((5, 7), np.nan) if self.nan else np.zeros((5, 7))


@pytest.mark.render
def test_controllers_act_step_by_step_until_the_horizon() -> None:
    agent = Still()
    record = rollout(trial("s1_L0_000_pickup"), agent)
    horizon = TASKS["s1_L0_000_pickup"].horizon
    assert record.status is Status.OK and record.prediction["acting_steps"] == horizon
    assert agent.calls == -(-horizon // 5) and agent.instruction == TASKS["s1_L0_000_pickup"].instruction
    assert record.scores["intent"] == 0.0 and "never went down" in record.prediction["stages"][0]["detail"]
    bad = rollout(trial("s1_L0_000_pickup"), Still(nan=True))
    assert bad.status is Status.PARSE_ERROR and "invalid action" in str(bad.error)


class SmallEyes(Still):
    """Test double of a policy trained on small images: it declares their size and records what it gets."""

    cameras = ("agentview", "wrist")
    image_size = 48

    def predict(self, obs: dict[str, Any]) -> np.ndarray:
        self.shapes = {obs["image"].shape, obs["wrist_image"].shape}
        return np.zeros((50, 7))


@pytest.mark.render
def test_a_controller_that_declares_an_image_size_gets_its_images_at_that_size() -> None:
    agent = SmallEyes()
    assert rollout(trial("s1_L0_000_pickup"), agent).status is Status.OK
    assert agent.shapes == {(48, 48, 3)}
    agent.image_size = 8  # type: ignore[misc]
    with pytest.raises(ConfigError, match="image_size must be an integer from 16"):
        rollout(trial("s1_L0_000_pickup"), agent)


def test_runs_through_the_api_are_deterministic_and_export_the_protocol_columns(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {
        "suite": "tabletop",
        "agent": "oracle",
        "options": {"scene": [4], "level": ["L1"], "trials": 1},
        "progress": False,
        "limit": 6,
    }
    evaluate(out=tmp_path / "a", **kwargs)
    evaluate(out=tmp_path / "b", **kwargs)
    _, a = load_run(tmp_path / "a")
    _, b = load_run(tmp_path / "b")
    assert len(a) == 6 and [r.deterministic_dict() for r in a] == [r.deterministic_dict() for r in b]
    assert all(r.scores["complete"] == 1.0 for r in a)
    rows = rows_of(tmp_path / "a")
    need = {"episode_id", "task", "scene", "level", "trial", "intent", "execution", "complete", "status"}
    assert all(need <= set(row) for row in rows)
    assert {row["level"] for row in rows} == {"L1"} and {row["scene"] for row in rows} == {"S4"}
    from heedful.report.export import export
    from heedful.report.export_schema import file_problems

    for fmt in ("jsonl", "parquet"):  # typed as `heedful schema tabletop --export` says, read with pyarrow
        export(tmp_path / "a", tmp_path / f"rows.{fmt}", fmt)
        assert file_problems("tabletop", tmp_path / f"rows.{fmt}") == []
    assert all(isinstance(row["trial"], int) and isinstance(row["intent"], float) for row in rows)


def test_the_process_pool_gives_the_serial_records(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"suite": "tabletop", "agent": "blind", "options": {"level": ["L0"], "trials": 1}}
    evaluate(out=tmp_path / "serial", limit=4, progress=False, **kwargs)
    evaluate(out=tmp_path / "pool", limit=4, progress=False, workers=2, **kwargs)
    _, serial = load_run(tmp_path / "serial")
    _, pool = load_run(tmp_path / "pool")
    assert [r.deterministic_dict() for r in serial] == [r.deterministic_dict() for r in pool]


@pytest.mark.render
def test_video_option_writes_an_mp4_per_trial(tmp_path: Path) -> None:
    t = trial("s1_L0_000_pickup")
    record = SUITE.rollout_episode(
        t, OracleAgent(), RolloutContext(seed=0, index=0, options={"video_dir": str(tmp_path)})
    )
    path = Path(record.prediction["video"])
    assert path.parent == tmp_path and path.suffix == ".mp4" and path.stat().st_size > 1000
