"""The conformance checker: every registered suite and agent keeps the contract, and the checker catches the
suites and agents that do not (a nondeterministic generator, a lossy dataset, an agent that remembers)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from heedful.agents.registry import agent_class, agent_names
from heedful.capabilities import capabilities
from heedful.cli import main
from heedful.conformance import ConformanceError, check_agent, check_suite
from heedful.replies import AgentReply
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.suite import SUITE
from heedful.suites.declared import DeclaredSuite
from heedful.suites.registry import SUITES

# Agents that need a model server or a policy server to answer: their declarations are checked here, their
# rollouts run against the real embedded model / a real policy server in tests/llm and tests/remote.
NEEDS_A_SERVER = {
    "decisions/llm",
    "household/reasoner",
    "household/prompter",
    "tabletop/planner",
    "tabletop/remote",
    "tabletop/remote-pool",
}
SERVER_ARGS = {"tabletop/remote-pool": {"urls": ["ws://127.0.0.1:8000", "ws://127.0.0.1:8001"]}}  # built, not connected
# Agents that need a trained model: checked with one in tests/learning (`test_the_bc_agent_keeps_the_contract`)
# and tests/agents/test_tabletop_lerobot.py (`test_the_lerobot_agent_keeps_the_contract`).
NEEDS_A_MODEL = {"tabletop/bc", "tabletop/lerobot"}
EPISODES = {"decisions": 3, "household": 2, "tabletop": 2}


@pytest.mark.parametrize("suite", SUITES.names())
def test_every_registered_suite_keeps_the_contract(suite: str) -> None:
    findings = check_suite(suite, episodes=EPISODES.get(suite, 2))
    assert len(findings.passed) == 10 and not findings.problems


def _scripted(suite: str) -> list[str]:
    return [name for name in agent_names(suite) if f"{suite}/{name}" not in NEEDS_A_SERVER | NEEDS_A_MODEL]


@pytest.mark.parametrize("suite", SUITES.names())
def test_every_scripted_agent_keeps_the_contract(suite: str) -> None:
    for name in _scripted(suite):
        findings = check_agent(suite, name, episodes=EPISODES.get(suite, 2))
        assert len(findings.passed) == 5, (name, findings.problems)


def test_agents_behind_a_server_declare_a_kind_their_suite_runs() -> None:
    for full in sorted(NEEDS_A_SERVER):
        suite, name = full.split("/")
        assert capabilities(agent_class(name, suite)).kind != "unknown", full
        assert len(check_agent(suite, name, SERVER_ARGS.get(full), rollouts=False).passed) == 2, full


class RemembersAgent:
    """Answers the oracle's decision in the first episode it sees and the same one ever after: a stateful agent,
    whose records depend on the order (and, in a process pool, on the backend)."""

    name = "remembers"
    privileged = True  # it asks the oracle, which reads the constraint set

    def __init__(self) -> None:
        self.first: str | None = None

    def decide(self, observation: Any) -> AgentReply:
        from heedful.agents.decisions import OracleAgent

        if self.first is None:
            self.first = OracleAgent().decide(observation).text
        return AgentReply(self.first)


class CrashesAgent:
    name = "crashes"

    def decide(self, observation: Any) -> AgentReply:
        raise ZeroDivisionError("the agent's bug")


class DictAgent:
    name = "dict"

    def decide(self, observation: Any) -> Any:
        return {"decision": "a"}  # not an AgentReply: the runner records an interface error


class PlannerInDecisions:
    name = "planner"

    def act(self, observation: Any) -> AgentReply:
        return AgentReply("Done()")


def _register(monkeypatch: pytest.MonkeyPatch, name: str, cls: type) -> None:
    from heedful.agents.registry import AGENTS

    AGENTS.names()  # entry points first, so the test's entry is the one that counts
    monkeypatch.setitem(AGENTS._targets, f"decisions/{name}", f"{__name__}:{cls.__name__}")


def test_an_agent_that_remembers_earlier_episodes_fails_the_state_check(monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, "remembers", RemembersAgent)
    with pytest.raises(ConformanceError, match="keeps no state between episodes") as caught:
        check_agent("decisions", "remembers", episodes=3)
    assert caught.value.findings.problems == [p for p in caught.value.findings.problems if "state" in p]


def test_a_crashing_agent_and_a_wrong_kind_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, "crashes", CrashesAgent)
    _register(monkeypatch, "planner", PlannerInDecisions)
    _register(monkeypatch, "dict", DictAgent)
    with pytest.raises(ConformanceError, match="ZeroDivisionError: the agent's bug"):
        check_agent("decisions", "crashes")
    with pytest.raises(ConformanceError, match=r"answered with interface_error on .*AgentReply"):
        check_agent("decisions", "dict")
    with pytest.raises(ConformanceError, match="the state check needs at least 2 episodes"):
        check_agent("decisions", "majority", episodes=1)
    with pytest.raises(ConformanceError, match="it is a planner agent; decisions runs decision agents"):
        check_agent("decisions", "planner")


def _decisions_as(cls: type[DeclaredSuite[DecisionEpisode, DecisionEpisode]]) -> Any:
    """The decisions suite's declaration, as an instance of `cls` (which overrides a derived member)."""
    return cls(**{f.name: getattr(SUITE, f.name) for f in dataclasses.fields(SUITE)})


class CountingSuite(DeclaredSuite[DecisionEpisode, DecisionEpisode]):
    """Decisions, but its generator draws from a process-wide counter and its loader drops the last episode."""

    _calls = itertools.count()

    def generate(self, seed: int = 0, config: dict[str, Any] | None = None, progress: Any = None) -> list[Any]:
        return list(super().generate(seed + next(self._calls), config))

    def load_dataset(self, path: Any, *, verify: bool = True) -> list[Any]:
        return list(super().load_dataset(path, verify=verify))[:-1]


def test_a_nondeterministic_lossy_suite_is_caught_with_every_problem_listed() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_suite(_decisions_as(CountingSuite))
    problems = caught.value.findings.problems
    assert any("two generations with seed 0 differ" in p for p in problems), problems
    assert any("load_dataset(save_dataset(episodes)) is not the same episodes" in p for p in problems), problems


class NoProgressSuite(DeclaredSuite[DecisionEpisode, DecisionEpisode]):
    """Decisions, with a `generate` that does not take `progress=` (what `heedful generate` passes)."""

    def generate(self, seed: int = 0, config: dict[str, Any] | None = None) -> list[Any]:  # type: ignore[override]
        return list(super().generate(seed, config))


def test_a_generate_without_progress_is_caught_before_heedful_generate_crashes_on_it() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_suite(_decisions_as(NoProgressSuite))
    assert any("generate must take progress=" in p for p in caught.value.findings.problems)


def test_the_command_line_prints_each_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "agent", "decisions/majority", "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "ok    keeps no state between episodes" in out and "keeps the contract (5 checks passed)" in out
    assert main(["check", "agent", "decisions"]) == 2
    assert "SUITE/AGENT" in capsys.readouterr().err
