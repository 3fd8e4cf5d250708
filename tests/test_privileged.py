"""Privileged inputs only by declaration, in every suite: an agent gets the ground truth only if it declares
`privileged = True`, the manifest records the declaration, and every report format marks such a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heedful.agents.base import AgentReply
from heedful.agents.decisions import OracleAgent
from heedful.api import describe_run, evaluate, report_text
from heedful.report.flags import PRIVILEGED_FLAG
from heedful.report.site.data import run_summary
from heedful.runner import load_run
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.suite import SUITE as DECISIONS
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE as TABLETOP


class _Peeker:
    """Sees what the rollout hands it; answers the first candidate."""

    name = "peeker"

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def decide(self, observation: Any) -> AgentReply:
        self.seen.append(observation)
        return AgentReply(text=json.dumps({"decision": _first(observation)}))


class _DeclaredPeeker(_Peeker):
    privileged = True


def _first(observation: Any) -> str | list[str]:
    first = observation.candidate_ids[0]
    return first if observation.decision_type == "single" else [first]


@pytest.mark.parametrize(("agent", "handed"), [(_Peeker(), False), (_DeclaredPeeker(), True)])
def test_the_decisions_constraint_set_goes_only_to_a_declared_agent(default_episodes, agent, handed) -> None:  # type: ignore[no-untyped-def]
    DECISIONS.rollout_episode(default_episodes[0], agent, RolloutContext(seed=1, index=0))
    observation = agent.seen[0]
    assert (observation.privileged_task is not None) is handed
    assert (observation.privileged_candidates is not None) is handed
    assert "task" not in observation.state  # the state a language agent reads holds no constraint


def test_the_oracle_declares_privileged_and_still_solves(default_episodes) -> None:  # type: ignore[no-untyped-def]
    episode = default_episodes[0]
    record = DECISIONS.rollout_episode(episode, OracleAgent(), RolloutContext(seed=1, index=0))
    assert record.correct is True


class _TabletopPeeker:
    """A planner that keeps what it was handed and stops at once."""

    name = "tabletop-peeker"

    def __init__(self) -> None:
        self.privileged_seen: list[Any] = []

    def act(self, observation: Any) -> AgentReply:
        self.privileged_seen.append(observation.privileged)
        return AgentReply(text='{"skill": "done"}')


class _ControllerPeeker:
    """A controller that keeps what `begin_trial` was handed and holds still."""

    name = "controller-peeker"
    cameras: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.trials: list[Any] = []

    def begin_trial(self, trial: Any, seed: int) -> None:
        self.trials.append((trial, seed))

    def reset(self) -> None:
        pass

    def set_instruction(self, instruction: str) -> None:
        pass

    def predict(self, observation: dict[str, Any]) -> np.ndarray:
        return np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0]] * 50)


def test_tabletop_agents_get_the_task_and_layout_only_by_declaration() -> None:
    trial = TABLETOP.episodes_for_run([next(t for t in evaluation_tasks() if t.task == "s2_L0_004_stack")], {})[0]
    planner, controller = _TabletopPeeker(), _ControllerPeeker()
    for agent in (planner, controller):
        TABLETOP.rollout_episode(trial, agent, RolloutContext(seed=3, index=0))
    assert planner.privileged_seen == [None]
    assert controller.trials == [(None, 3)]  # the seed still arrives (a sampling policy seeds its noise with it)


def test_a_privileged_run_is_recorded_and_marked_in_every_report(tmp_path: Path) -> None:
    runs = {name: tmp_path / name for name in ("oracle", "random")}
    evaluate(suite="decisions", agent="oracle", out=runs["oracle"], limit=8, progress=False)
    evaluate(suite="decisions", agent="random-valid", out=runs["random"], limit=8, progress=False)
    manifest, records = load_run(runs["oracle"])
    assert manifest.privileged is True and load_run(runs["random"])[0].privileged is False
    for fmt in ("table", "markdown", "latex"):
        assert PRIVILEGED_FLAG in report_text(runs["oracle"], format=fmt, resamples=50), fmt
        assert PRIVILEGED_FLAG not in report_text(runs["random"], format=fmt, resamples=50), fmt
    rows = json.loads(report_text(runs["oracle"], format="json", resamples=50))
    assert all(row["agent_flags"] == [PRIVILEGED_FLAG] for row in rows)
    assert all("agent_flags" not in row for row in json.loads(report_text(runs["random"], format="json")))
    assert PRIVILEGED_FLAG in describe_run(runs["oracle"])  # the title of `heedful compare`
    assert run_summary("r", runs["oracle"], manifest, records)["flags"] == [PRIVILEGED_FLAG]  # heedful view


def test_a_run_made_before_the_declaration_was_recorded_is_marked_by_the_agent_class(tmp_path: Path) -> None:
    evaluate(suite="decisions", agent="oracle", out=tmp_path / "old", limit=4, progress=False)
    path = tmp_path / "old" / "manifest.json"
    stored = json.loads(path.read_text())
    del stored["privileged"]
    # as a heedful-run/1 manifest (before the declaration was recorded), which carried no digest of itself
    stored["schema_version"] = "heedful-run/1"
    for field in ("manifest_digest", "records_digest", "session_args"):
        stored.pop(field, None)
    path.write_text(json.dumps(stored))
    assert load_run(tmp_path / "old")[0].privileged is None
    assert PRIVILEGED_FLAG in describe_run(tmp_path / "old")
