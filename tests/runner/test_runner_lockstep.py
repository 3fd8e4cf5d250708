"""Lockstep rollouts (`--batch K`): one batched call answers every episode in flight, a failing observation fails
only its own episode, and tabletop records are the unbatched run's, serially and in the process pool."""

from __future__ import annotations

import ctypes
import os
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from lockstep_controllers import CRASH_WORD
from runner_toy import SUITE, ToyEpisode, make_episodes, toy_spec

from heedful.agents.registry import AGENTS
from heedful.agents.tabletop import OracleAgent
from heedful.api import evaluate
from heedful.capabilities import capabilities
from heedful.cli import main
from heedful.errors import ConfigError
from heedful.protocols import Agent, ControllerAgent
from heedful.records import Record, Status
from heedful.runner import load_run
from heedful.runner.lockstep import Batcher, check_batchable, lockstep_rollouts, longest_first
from heedful.suites.base import RolloutContext
from heedful.suites.declared import DeclaredSuite

HERE = Path(__file__).resolve().parent
_POLICY_CRASH = re.compile(
    r"RuntimeError: the policy broke on this trial "
    r"\(at lockstep_controllers\.py:\d+ in _one; from rollout\.py:\d+ in \w+\)"
)
STEPWISE = "lockstep_controllers:StepwisePolicy"


@pytest.fixture
def stepwise(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The stepwise controller registered for tabletop, importable by spawned workers."""
    monkeypatch.setitem(AGENTS._targets, "tabletop/stepwise", STEPWISE)
    paths = [str(HERE.parents[1] / "src"), str(HERE), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    yield "stepwise"


def _episodes(batcher: Batcher, starts: Sequence[int], steps: int) -> tuple[dict[int, list[int]], dict[int, str]]:
    """Threads that ask from step `starts[n]` to `steps` (observation: their number and step): the answers each got
    back, and the error that stopped each episode that got one."""
    got: dict[int, list[int]] = {}
    errors: dict[int, str] = {}

    def episode(n: int) -> None:
        got[n] = []
        try:
            for step in range(starts[n], steps):
                request = batcher.predict({"n": n, "step": step})
                if request.error is not None:
                    errors[n] = str(request.error)
                    return
                got[n].append(request.answer)
        finally:
            batcher.leave()

    for _ in starts:
        batcher.enter()  # as the driver does, before the threads start
    threads = [threading.Thread(target=episode, args=(n,)) for n in range(len(starts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads), "an episode never got its answer"
    return got, errors


def test_one_call_answers_every_episode_in_flight_and_episodes_end_apart() -> None:
    def predict_batch(observations: Sequence[dict[str, Any]]) -> list[int]:
        return [10 * o["n"] + o["step"] for o in observations]

    batcher = Batcher(predict_batch)
    got, errors = _episodes(batcher, starts=[0, 0, 0, 3], steps=6)  # the last episode ends 3 steps early
    assert got == {n: [10 * n + s for s in range(0 if n < 3 else 3, 6)] for n in range(4)} and not errors
    assert sum(batcher.sizes) == 3 * 6 + 3 and max(batcher.sizes) == 4
    assert batcher.calls < 3 * 6 + 3  # batched, not one call per observation


def test_a_failing_observation_fails_only_its_own_episode() -> None:
    def predict_batch(observations: Sequence[dict[str, Any]]) -> list[int]:
        if any(o["n"] == 1 and o["step"] == 2 for o in observations):
            raise RuntimeError("broken on episode 1")
        return [o["step"] for o in observations]

    got, errors = _episodes(Batcher(predict_batch), starts=[0, 0, 0], steps=4)
    assert got[0] == got[2] == [0, 1, 2, 3] and got[1] == [0, 1] and errors == {1: "broken on episode 1"}


def test_each_window_starts_its_longest_episodes_first_and_keeps_ties_in_order() -> None:
    items = [(i, steps) for i, steps in enumerate([1, 5, 3, 5, 2, None, 9, 4])]
    ordered = list(longest_first(iter(items), 3, lambda steps: steps))  # type: ignore[arg-type, return-value]
    assert [i for i, _ in ordered] == [1, 2, 0, 3, 4, 5, 6, 7]  # windows (0 1 2) (3 4 5) (6 7); None counts as 0
    assert list(longest_first(iter([]), 3, lambda _: 1)) == []


def _steps_rollout(episode: ToyEpisode, agent: Agent, context: RolloutContext) -> Record:
    """Asks the controller `number` times."""
    assert isinstance(agent, ControllerAgent)
    time.sleep(0.05)  # setting up, as a simulator does: the driver starts the other episodes meanwhile
    answers = [int(agent.predict({"n": episode.number, "step": step})) for step in range(episode.number)]
    return SUITE.failure_record(episode, context, Status.OK, f"answers {answers}")


UNKNOWN_STEPS_SUITE = replace(SUITE, rollout=replace(SUITE.rollout, run=_steps_rollout))
"""A toy suite whose episode `number` asks the controller `number` times, without saying so before it runs."""
STEPS_SUITE = replace(SUITE, rollout=replace(UNKNOWN_STEPS_SUITE.rollout, steps=lambda episode: episode.number))
"""The same rollouts; each episode says how long it is."""


class _Counting:
    name = "counting"

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def reset(self) -> None: ...

    def set_instruction(self, instruction: str) -> None: ...

    def predict(self, observation: dict[str, Any]) -> int:
        return int(self.predict_batch([observation])[0])

    def predict_batch(self, observations: Sequence[dict[str, Any]]) -> list[int]:
        self.sizes.append(len(observations))
        return [10 * o["n"] + o["step"] for o in observations]


@pytest.mark.parametrize("suite", [STEPS_SUITE, UNKNOWN_STEPS_SUITE], ids=["steps known", "steps unknown"])
def test_lockstep_starts_the_longest_episodes_first_so_no_call_runs_short_of_a_full_batch(
    suite: DeclaredSuite[ToyEpisode, ToyEpisode],
) -> None:
    # In run order a long episode starts beside a short one and runs on alone while the next episodes start and end;
    # longest first, the long ones run together and the short ones after them.
    episodes = [e.model_copy(update={"number": n}) for e, n in zip(make_episodes(4), [1, 9, 1, 9], strict=True)]
    agent = _Counting()
    records = list(lockstep_rollouts(suite, agent, iter(enumerate(episodes)), toy_spec(episodes), batch=2))
    assert sorted(r.index for r in records) == [0, 1, 2, 3]
    for record in records:  # each episode got its own answers, whatever its batch-mates
        n = episodes[record.index].number
        assert record.error == f"answers {[10 * n + step for step in range(n)]}"
    assert sum(agent.sizes) == 20
    if suite is UNKNOWN_STEPS_SUITE:
        assert 1 in agent.sizes[:-2]  # in run order, a long one ran alone before the end
    else:
        assert agent.sizes[:9] == [2] * 9  # the long ones together (the short ones after them may start apart)


class _ThreadCounting(_Counting):
    """Notes OpenMP's thread count of the thread each batched call runs on (what MKL's products use)."""

    def __init__(self) -> None:
        super().__init__()
        self.openmp_threads: set[int] = set()

    def predict_batch(self, observations: Sequence[dict[str, Any]]) -> list[int]:
        self.openmp_threads.add(int(ctypes.CDLL(None).omp_get_max_threads()))
        return super().predict_batch(observations)


def test_the_batched_call_runs_with_the_thread_count_torch_was_given() -> None:
    # torch.set_num_threads(1) (bc, lerobot) sets the calling thread's count; an episode thread that never asked
    # torch would compute a batch of one on every core (8x the CPU of one thread here, measured).
    torch = pytest.importorskip("torch")
    if (os.cpu_count() or 1) < 2 or not hasattr(ctypes.CDLL(None), "omp_get_max_threads"):
        pytest.skip("needs OpenMP (loaded with torch) and two cores to tell one thread from all")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        episodes = [e.model_copy(update={"number": n}) for e, n in zip(make_episodes(3), [1, 2, 3], strict=True)]
        agent = _ThreadCounting()
        list(lockstep_rollouts(STEPS_SUITE, agent, iter(enumerate(episodes)), toy_spec(episodes), batch=2))
        assert agent.sizes and agent.openmp_threads == {1}
    finally:
        torch.set_num_threads(before)


def test_batch_needs_a_batched_controller_without_per_trial_state() -> None:
    class Replaying:
        def predict(self, observation: dict[str, Any]) -> None: ...
        def predict_batch(self, observations: Sequence[dict[str, Any]]) -> None: ...
        def begin_trial(self, trial: Any, seed: int) -> None: ...

    check_batchable(capabilities(OracleAgent()), 1)
    with pytest.raises(ConfigError, match="needs a controller that declares predict_batch"):
        check_batchable(capabilities(OracleAgent()), 4)
    with pytest.raises(ConfigError, match="begin_trial"):
        check_batchable(capabilities(Replaying()), 4)
    with pytest.raises(ConfigError, match="positive integer"):
        check_batchable(capabilities(OracleAgent()), 0)
    code = main(["run", "tabletop", "--agent", "oracle", "--batch", "4", "--limit", "1", "--no-progress"])
    assert code == 2  # refused before anything runs


def _bodies(run_dir: Path) -> list[dict[str, Any]]:
    return [r.deterministic_dict() for r in load_run(run_dir)[1]]


@pytest.mark.render
def test_tabletop_records_in_lockstep_are_the_unbatched_runs(stepwise: str, tmp_path: Path) -> None:
    common: dict[str, Any] = {
        "suite": "tabletop",
        "agent": stepwise,
        "agent_args": {"crash": True},
        "limit": 5,
        "order": "file",
        "options": {"trials": 1, "level": ["L0"]},
        "progress": False,
    }
    evaluate(out=tmp_path / "one", **common)
    evaluate(out=tmp_path / "batch", batch=3, **common)
    evaluate(out=tmp_path / "pool", batch=2, workers=2, egl_devices="0", **common)
    one = _bodies(tmp_path / "one")
    statuses = [r["status"] for r in one]
    assert statuses.count(Status.CRASHED) == 2 and statuses.count(Status.OK) == 3  # the "red ball" trials
    assert all(CRASH_WORD in r["inputs"]["instruction"] for r in one if r["status"] == Status.CRASHED)
    reasons = {r["error"] for r in one if r["status"] == Status.CRASHED}  # the reason, and where it came from
    assert len(reasons) == 1 and _POLICY_CRASH.fullmatch(str(reasons.pop()))
    assert _bodies(tmp_path / "batch") == one and _bodies(tmp_path / "pool") == one
    batched = load_run(tmp_path / "batch")[1]
    assert max(r.timing.get("predict_batch_mean", 0) for r in batched) > 1.5  # the trials did share calls
    # the manifest names the renderer: this process's (serial), each pool worker's on the device it was given
    (serial,) = load_run(tmp_path / "one")[0].renderers or []
    assert serial["workers"] == [0] and serial["renderer"] and serial["platform"] == os.environ["MUJOCO_GL"]
    (pooled,) = load_run(tmp_path / "pool")[0].renderers or []
    assert pooled["egl_device"] == 0 and set(pooled["workers"]) <= {0, 1} and pooled["renderer"] == serial["renderer"]


@pytest.mark.render
def test_a_trial_whose_renderer_fails_is_crashed_with_its_reason_and_its_batch_mates_run_on(
    stepwise: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure on the simulator's side (here the renderer of the "red ball" trials after a few steps, as an EGL
    context that cannot be made would) crashes only its own trial, with the error's type, message and place."""
    from heedful.sims.tabletop.sim import TabletopSim
    from heedful.suites.tabletop import rollout

    render, observe = TabletopSim.render, rollout._controller_obs

    def failing(self: TabletopSim, camera: str) -> Any:
        if getattr(self, "broken", False):
            raise RuntimeError("Cannot create an EGL context.")
        return render(self, camera)

    def marking(rt: Any, cameras: Any, instruction: str, objects: Any) -> Any:
        rt.sim.broken = CRASH_WORD in instruction and rt.steps >= 12
        return observe(rt, cameras, instruction, objects)

    monkeypatch.setattr(TabletopSim, "render", failing)
    monkeypatch.setattr(rollout, "_controller_obs", marking)
    common: dict[str, Any] = {
        "suite": "tabletop",
        "agent": stepwise,
        "limit": 4,
        "order": "file",
        "options": {"trials": 1, "level": ["L0"]},
        "progress": False,
    }
    evaluate(out=tmp_path / "one", **common)
    evaluate(out=tmp_path / "batch", batch=4, **common)
    one = _bodies(tmp_path / "one")
    crashed = [r for r in one if r["status"] == Status.CRASHED]
    assert 0 < len(crashed) < len(one) and all(r["status"] == Status.OK for r in one if r not in crashed)
    assert all(
        re.fullmatch(
            r"RuntimeError: Cannot create an EGL context\. \(at test_runner_lockstep\.py:\d+ in failing; "
            r"from rollout\.py:\d+ in (?:<dictcomp>|_controller_obs)\)",
            str(r["error"]),
        )
        for r in crashed
    )
    assert _bodies(tmp_path / "batch") == one
