"""Agents that declare `concurrency` get rollouts in flight in threads; budgets stop runs cleanly."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from runner_toy import ToyAgent, ToyEpisode, make_episodes, reference, stored, toy_spec

from heedful.agents.registry import AGENTS
from heedful.errors import AgentInterfaceError, BudgetExceededError, ConfigError, RunError
from heedful.records import Status
from heedful.runner import load_run, run

pytestmark = pytest.mark.usefixtures("toy")

AGENT = "toy-concurrent-agent"


class ConcurrentToyAgent(ToyAgent):
    """The toy agent with `concurrency`, a measured number of rollouts in flight, and optional faults."""

    session_args = frozenset({"budget"})
    in_flight = 0
    most_in_flight = 0
    lock = threading.Lock()

    def __init__(self, concurrency: int = 1, budget: int = 0, fail_every: int = 0) -> None:
        super().__init__()
        self.concurrency, self.budget, self.fail_every = concurrency, budget, fail_every
        self.spent = 0
        self.previous: dict[str, int] | None = None

    def describe(self) -> dict[str, Any]:
        return {"name": "toy-concurrent", "concurrency": self.concurrency}

    def charge_previous_usage(self, totals: dict[str, int]) -> None:
        self.previous = dict(totals)
        self.spent = totals.get("calls", 0)

    @property
    def has_budget(self) -> bool:
        return self.budget > 0

    def act(self, episode: ToyEpisode, seed: int) -> tuple[int, float]:
        cls = ConcurrentToyAgent
        with cls.lock:
            if self.budget and self.spent >= self.budget:
                raise BudgetExceededError(f"toy budget of {self.budget} calls is spent")
            self.spent += 1
            cls.in_flight += 1
            cls.most_in_flight = max(cls.most_in_flight, cls.in_flight)
        try:
            time.sleep(0.02)
            if self.fail_every and episode.number % self.fail_every == 0:
                error = AgentInterfaceError("toy transport gave up")
                error.usage = {"calls": 1, "retries": 2}  # type: ignore[attr-defined]
                raise error
            return super().act(episode, seed)
        finally:
            with cls.lock:
                cls.in_flight -= 1


@pytest.fixture(autouse=True)
def concurrent_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    # Spawned workers find this module through the PYTHONPATH the `toy` fixture sets.
    monkeypatch.setitem(AGENTS._targets, AGENT, f"{__name__}:ConcurrentToyAgent")
    ConcurrentToyAgent.in_flight = ConcurrentToyAgent.most_in_flight = 0


def spec(episodes: list[ToyEpisode], **args: Any) -> Any:
    return toy_spec(episodes, agent=AGENT, agent_args=args)


def test_concurrent_rollouts_overlap_and_give_the_serial_records(tmp_path: Path) -> None:
    episodes = make_episodes(24)
    serial = reference(spec(episodes, concurrency=1), episodes, tmp_path / "serial")
    assert ConcurrentToyAgent.most_in_flight == 1
    run(spec(episodes, concurrency=4), episodes, tmp_path / "threads", progress=False)
    assert ConcurrentToyAgent.most_in_flight == 4
    assert stored(tmp_path / "threads") == serial


def test_threads_inside_pool_workers_give_the_serial_records(tmp_path: Path) -> None:
    episodes = make_episodes(24)
    serial = reference(spec(episodes, concurrency=3), episodes, tmp_path / "serial")
    run(spec(episodes, concurrency=3), episodes, tmp_path / "pool", workers=2, progress=False)
    assert stored(tmp_path / "pool") == serial


def test_failure_records_keep_the_usage_the_agent_error_carries(tmp_path: Path) -> None:
    episodes = make_episodes(12)
    run(spec(episodes, concurrency=2, fail_every=5), episodes, tmp_path / "run", progress=False)
    records = load_run(tmp_path / "run")[1]
    failed = [r for r in records if r.status is Status.INTERFACE_ERROR]
    assert [r.index for r in failed] == [0, 5, 10]
    assert all(r.usage == {"calls": 1, "retries": 2} and r.error == "toy transport gave up" for r in failed)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_spent_budget_stops_the_run_cleanly_and_a_resume_continues(tmp_path: Path, concurrency: int) -> None:
    episodes = make_episodes(20)
    out = tmp_path / "run"
    with pytest.raises(BudgetExceededError, match="toy budget of 7"):
        run(spec(episodes, concurrency=concurrency, budget=7), episodes, out, progress=False)
    manifest, records = load_run(out)
    assert len(records) == 7 and all(r.status is Status.OK for r in records)
    assert manifest.state == "stopped" and manifest.stop_reason == "toy budget of 7 calls is spent"
    assert manifest.counts == {"ok": 7}
    result = run(spec(episodes, concurrency=concurrency, budget=100), episodes, out, resume=True, progress=False)
    assert result.newly_run == 13 and result.manifest.state == "finished" and result.manifest.stop_reason is None
    assert stored(out) == reference(spec(episodes, concurrency=1), episodes, tmp_path / "ref")


def test_earlier_usage_is_charged_on_resume_and_only_session_args_may_change(tmp_path: Path) -> None:
    episodes = make_episodes(8)
    out = tmp_path / "run"
    run(spec(episodes, concurrency=1, fail_every=3), episodes, out, progress=False)
    charged: list[dict[str, int] | None] = []
    original = ConcurrentToyAgent.charge_previous_usage

    def spy(self: ConcurrentToyAgent, totals: dict[str, int]) -> None:
        charged.append(dict(totals))
        original(self, totals)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ConcurrentToyAgent, "charge_previous_usage", spy)
        run(spec(episodes, concurrency=1, fail_every=3, budget=50), episodes, out, resume=True, progress=False)
    assert charged == [{"calls": 3, "retries": 6}]
    with pytest.raises(RunError, match="agent_args"):
        run(spec(episodes, concurrency=2, fail_every=3), episodes, out, resume=True, progress=False)


def test_budgets_are_refused_with_several_worker_processes_or_on_ray(tmp_path: Path) -> None:
    episodes = make_episodes(8)
    with pytest.raises(ConfigError, match="--workers 1"):
        run(spec(episodes, budget=3), episodes, tmp_path / "run", workers=2, progress=False)
    with pytest.raises(ConfigError, match="without --backend ray"):  # refused before Ray starts or files are written
        run(spec(episodes, budget=3), episodes, tmp_path / "ray", backend="ray", progress=False)
    assert not (tmp_path / "run").exists() and not (tmp_path / "ray").exists()


def test_a_bad_concurrency_is_a_config_error(tmp_path: Path) -> None:
    episodes = make_episodes(4)
    with pytest.raises(ConfigError, match="concurrency"):
        run(spec(episodes, concurrency=0), episodes, tmp_path / "run", progress=False)
