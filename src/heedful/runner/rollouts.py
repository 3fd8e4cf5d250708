"""What a backend runs (`Work`) and the loop every backend runs it with: serially, `concurrency` rollouts in threads,
or `batch` controller rollouts in lockstep (heedful.runner.lockstep)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from heedful.capabilities import Capabilities
from heedful.protocols import Agent
from heedful.records import Record
from heedful.runner.episode import bounded_in_flight, rollout_one
from heedful.runner.lockstep import lockstep_rollouts
from heedful.runner.manifest import RunSpec
from heedful.suites.base import Episode, Suite


@dataclass(frozen=True)
class Work:
    """What a backend runs.

    `declared` are the agent's declarations as the run read them (once, `heedful.capabilities`); `todo` holds
    (dataset index, episode) pairs; `train` is what a Fittable agent fits on; `batch` is how many episodes of one
    worker step in lockstep on one batched policy call (see `heedful.runner.lockstep`); `egl_devices` are the EGL
    devices worker i renders on (device i mod N; `heedful.sims.gl_devices`), and the backend fills `renderers` with
    what each worker that rendered reported (worker index -> renderer).
    """

    spec: RunSpec
    suite: Suite
    agent: Agent
    declared: Capabilities
    train: Sequence[Episode]
    todo: Sequence[tuple[int, Episode]]
    batch: int = 1
    egl_devices: tuple[int, ...] = ()
    renderers: dict[int, dict[str, object]] = field(default_factory=dict)


def rollouts(
    suite: Suite,
    agent: Agent,
    items: Iterable[tuple[int, Episode]],
    spec: RunSpec,
    concurrency: int = 1,
    batch: int = 1,
    declared: Capabilities | None = None,
) -> Iterator[Record]:
    """Roll out (index, episode) pairs, yielding each record as it finishes.

    With `concurrency > 1`, that many rollouts run at once in threads, so the agent must be thread-safe
    (a language-model agent waiting on a server). Records are the same as serially: each rollout depends
    only on its episode and its derived seed. When a rollout raises (a budget stop), no new rollout
    starts; those in flight finish and are yielded, then the error is re-raised. With `batch > 1`, that many
    controller rollouts step in lockstep on one `predict_batch` call per step (`heedful.runner.lockstep`).
    `declared`: the agent's declarations, read once by the caller and handed to every rollout (None: each rollout
    reads them).
    """
    if batch > 1:
        yield from lockstep_rollouts(suite, agent, iter(items), spec, batch, declared)
        return
    if concurrency <= 1:
        for index, episode in items:
            yield rollout_one(suite, agent, episode, index, spec, declared)
        return
    yield from _threaded(suite, agent, iter(items), spec, concurrency, declared)


def _threaded(
    suite: Suite,
    agent: Agent,
    queue: Iterator[tuple[int, Episode]],
    spec: RunSpec,
    concurrency: int,
    declared: Capabilities | None,
) -> Iterator[Record]:
    executor = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="heedful-rollout")

    def submit(item: tuple[int, Episode]) -> Future[Record]:
        return executor.submit(rollout_one, suite, agent, item[1], item[0], spec, declared)

    yield from bounded_in_flight(executor, queue, concurrency, submit)
