"""Lockstep rollouts: K episodes of one worker share one batched policy call per step (`--batch K`).

A controller that declares `predict_batch(observations) -> chunks` (one action chunk per observation, each what
`predict` would answer for that observation alone) is run here K episodes at a time. Each episode runs the
suite's own rollout (`episode.rollout_one`: the same stepping, scoring and failure records as an unbatched run)
in its own thread, against a per-episode slot standing in for the agent; a slot's `predict` waits until every
episode in flight is waiting for an action (or has ended), and then one `predict_batch` call answers them all.
Episodes start and end independently: when one ends, the next of the worker's queue takes its place. The episodes
take turns: one at a time builds its scene, steps its simulator and renders (a lock it gives up only while waiting
for its action), so the simulator and its OpenGL context are never used from two threads at once, and only the
policy call runs beside them (the renderers of all episodes of a worker draw in one pooled context, made once:
`heedful.sims.tabletop.render`). The episodes start longest first within each window of twice the batch
(`Suite.episode_steps`), so that the batch stays full until the window's last episodes: in the episodes' run order,
the long ones that start late would run on in small batches after the short ones ended, each step a policy call.

What a batched controller promises (checked by the tests against its own `predict`): its answer depends on the
observation only (the instruction is `observation["prompt"]`, the step `observation["step"]`), so batching
changes no record. It is told `reset()` at each episode's start (from that episode's thread) but never
`set_instruction`, and its `trial_report` is not called: the slot reports the episode's `predictions` and the
wall time of the batched calls it waited on (`<name>_predict_ms_mean`, `predict_batch_mean` in `timing`).

A failure stays one episode's: when the batched call raises or answers the wrong number of chunks, each
observation of that batch is asked again alone, and only the episodes whose own call fails get the error (and
the record an unbatched run would have given them).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from heedful.capabilities import Capabilities, capabilities
from heedful.errors import AgentInterfaceError, ConfigError
from heedful.protocols import Agent
from heedful.records import Record
from heedful.runner.episode import bounded_in_flight, rollout_one
from heedful.runner.manifest import RunSpec
from heedful.suites.base import Episode, Suite
from heedful.threads import inherit_torch_threads

BatchPredict = Callable[[Sequence[dict[str, Any]]], Sequence[Any]]


def check_batchable(declared: Capabilities, batch: int) -> None:
    """Refuse `batch` unless it is a positive integer and, above 1, the agent (`declared`: its declarations) is a
    controller with `predict_batch` and no per-trial hook (`begin_trial`) that batching would share between episodes.

    Raises:
        ConfigError: as above, naming what to change.
    """
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise ConfigError(f"--batch must be a positive integer, got {batch!r}")
    if batch == 1:
        return
    if declared.kind != "controller" or declared.predict_batch is None:
        raise ConfigError(
            f"--batch {batch} needs a controller that declares predict_batch (bc, lerobot); agent "
            f"{declared.name!r} is a {declared.kind} without it: drop --batch"
        )
    if declared.begin_trial is not None:
        raise ConfigError(
            f"agent {declared.name!r} keeps per-trial state (begin_trial), which episodes in lockstep would share: "
            "drop --batch"
        )


@dataclass
class _Request:
    observation: dict[str, Any]
    answer: Any = None
    error: BaseException | None = None
    done: bool = False
    batch_ms: float = 0.0
    batch_size: int = 0


class Batcher:
    """Gathers the observations of the episodes in flight and answers them with one `predict_batch` call.

    The thread whose arrival (or whose episode's end) leaves no episode in flight still stepping makes the call,
    outside the lock; the others wait for their answer. At most one call runs at a time: the episodes of a call
    are in flight until it returns, so the next batch cannot be complete before.
    """

    def __init__(self, predict_batch: BatchPredict) -> None:
        self._predict_batch = predict_batch
        self._cond = threading.Condition()
        self._live = 0
        self._waiting: list[_Request] = []
        self.calls = 0
        self.sizes: list[int] = []

    def enter(self) -> None:
        """Count one more episode in flight (before its thread starts, so that the first batch waits for it)."""
        with self._cond:
            self._live += 1

    def leave(self) -> None:
        """An episode in flight ended (or never started): the others no longer wait for it."""
        with self._cond:
            self._live -= 1
            ready = self._take_if_ready()
        if ready:
            self._answer(ready)

    def predict(self, observation: dict[str, Any]) -> _Request:
        """Wait for this observation's answer (its chunk, or the error its own call raised)."""
        request = _Request(observation)
        with self._cond:
            self._waiting.append(request)
            ready = self._take_if_ready()
        if ready:
            self._answer(ready)
        with self._cond:
            while not request.done:
                self._cond.wait()
        return request

    def _take_if_ready(self) -> list[_Request]:
        # Under the lock: the whole batch once every episode in flight waits.
        if not self._waiting or len(self._waiting) < self._live:
            return []
        ready, self._waiting = self._waiting, []
        return ready

    def _answer(self, requests: list[_Request]) -> None:
        start = time.perf_counter()
        answers: Sequence[Any] | None = None
        if len(requests) > 1:  # one observation alone is asked once, below
            try:
                answers = self._predict_batch([r.observation for r in requests])
                if answers is None or len(answers) != len(requests):
                    answers = None
            except Exception:
                answers = None
        if answers is not None:
            for request, answer in zip(requests, answers, strict=True):
                request.answer = answer
        else:
            for request in requests:  # one episode's failure must not be its batch-mates'
                self._answer_alone(request)
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        with self._cond:
            self.calls += 1
            self.sizes.append(len(requests))
            for request in requests:
                request.batch_ms, request.batch_size, request.done = elapsed_ms, len(requests), True
            self._cond.notify_all()

    def _answer_alone(self, request: _Request) -> None:
        try:
            answers = self._predict_batch([request.observation])
            if len(answers) != 1:
                raise AgentInterfaceError(f"predict_batch answered {len(answers)} chunks for 1 observation")
            request.answer = answers[0]
        except Exception as exc:
            request.error = exc


@dataclass
class _Slot:
    """One episode's view of a batched controller (what the suite's rollout sees as the agent)."""

    batcher: Batcher
    declared: Capabilities
    agent: Any
    turn: threading.Lock
    predictions: int = 0
    ms: float = 0.0
    sizes: int = 0
    name: str = field(init=False)
    cameras: tuple[str, ...] | None = field(init=False)
    image_size: int | None = field(init=False)
    object_state: bool = field(init=False)
    trial_report: Callable[[], tuple[dict[str, Any], dict[str, float]]] | None = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.declared.name
        self.cameras, self.image_size = self.declared.cameras, self.declared.image_size
        self.object_state = self.declared.object_state
        # Declared only when the agent reports per trial, so the record's agent_info is the unbatched run's.
        self.trial_report = self._report if self.declared.trial_report is not None else None

    def reset(self) -> None:
        self.agent.reset()  # every controller has it (the rollout calls it on any controller)

    def set_instruction(self, instruction: str) -> None:
        """Not forwarded: a batched controller reads the instruction from `observation["prompt"]`."""

    def predict(self, observation: dict[str, Any]) -> Any:
        self.turn.release()  # the other episodes step while this one waits for its action
        try:
            request = self.batcher.predict(observation)
        finally:
            self.turn.acquire()
        if request.error is not None:
            raise request.error
        self.predictions += 1
        self.ms += request.batch_ms
        self.sizes += request.batch_size
        return np.asarray(request.answer)

    def _report(self) -> tuple[dict[str, Any], dict[str, float]]:
        n = max(self.predictions, 1)
        timing = {f"{self.name}_predict_ms_mean": self.ms / n, "predict_batch_mean": self.sizes / n}
        return {"predictions": self.predictions}, timing


def lockstep_rollouts(
    suite: Suite,
    agent: Agent,
    items: Iterator[tuple[int, Episode]],
    spec: RunSpec,
    batch: int,
    declared: Capabilities | None = None,
) -> Iterator[Record]:
    """Roll out (index, episode) pairs `batch` at a time in lockstep, yielding each record as it finishes (see the
    module docstring). Records are those of `rollouts.rollouts` for a controller keeping its promise.

    When a rollout raises (a budget stop, a suite bug), no new episode starts; those in flight finish and are
    yielded, then the error is re-raised. `declared`: the agent's declarations as the run read them (None: read here).
    """
    declared = declared if declared is not None else capabilities(agent)
    check_batchable(declared, batch)
    if declared.predict_batch is None:
        raise ConfigError(f"agent {declared.name!r} does not declare predict_batch")
    batcher = Batcher(declared.predict_batch)
    turn = threading.Lock()  # held by the one episode stepping its simulator (see the module docstring)

    def one(index: int, episode: Episode) -> Record:
        inherit_torch_threads()  # the batched policy call runs on whichever episode thread completes the batch
        try:
            with turn:
                return rollout_one(suite, _Slot(batcher, declared, agent, turn), episode, index, spec)
        finally:
            batcher.leave()

    def left_if_cancelled(future: Future[Record]) -> None:
        if future.cancelled():  # never ran, so never left
            batcher.leave()

    executor = ThreadPoolExecutor(max_workers=batch, thread_name_prefix="heedful-lockstep")
    ordered = longest_first(items, 2 * batch, suite.episode_steps)

    def submit(item: tuple[int, Episode]) -> Future[Record]:
        batcher.enter()
        future = executor.submit(one, item[0], item[1])
        future.add_done_callback(left_if_cancelled)
        return future

    yield from bounded_in_flight(executor, ordered, batch, submit)


def longest_first(
    items: Iterator[tuple[int, Episode]], window: int, steps: Callable[[Episode], int | None]
) -> Iterator[tuple[int, Episode]]:
    """`items` taken `window` at a time, the longest episodes of each window (by `steps`; None counts as 0) first and
    ties in their order. A window, not the whole run, so that a run stopped early has finished a sample of the run
    order skewed by one window at most."""
    while chunk := list(itertools.islice(items, window)):
        yield from sorted(chunk, key=lambda item: -(steps(item[1]) or 0))
