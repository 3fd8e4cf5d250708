"""One episode of a run: its context (seed derived from the run seed and the episode id), its rollout with agent
failures and crashes turned into records of their own status, and the bounded loop that keeps several rollouts in
flight. The serial backend, the pool and Ray workers and the lockstep batches all roll out through here, so a record
is the same whichever of them made it."""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from heedful.capabilities import Capabilities, capabilities
from heedful.errors import AgentInterfaceError, AgentTimeoutError, BudgetExceededError, RunError
from heedful.protocols import Agent
from heedful.records import Record, Status
from heedful.runner.manifest import RunSpec
from heedful.seeding import derive_seed
from heedful.suites.base import Episode, RolloutContext, Suite

SUITE_CODE = (f"heedful{os.sep}suites{os.sep}", f"heedful{os.sep}sims{os.sep}")
"""Where a crash's call site is looked for: the suite's and simulator's own code (never the runner's)."""
SUITE_PLUMBING = (f"suites{os.sep}base.py", f"suites{os.sep}declared.py")
"""The library's side of the suite contract (it forwards to a suite's parts): never a crash's call site."""


def _suite_code(filename: str) -> bool:
    return any(part in filename for part in SUITE_CODE) and not filename.endswith(SUITE_PLUMBING)


def crash_message(exc: BaseException) -> str:
    """`"ExcType: message (at file.py:LINE in function; from rollout.py:LINE in caller) <- CauseType: message"`.

    The traceback's tail names the innermost frame and, when that is not the suite's own code, the innermost
    frame of the suite or simulator that led there (the call into the policy, the renderer, ...). Both are the
    same whichever backend ran the episode, alone or in a lockstep batch (the runner's own frames in between
    differ, so they are left out); the exception's cause, if any, follows its message.
    """
    text = f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        text += f" (at {Path(last.filename).name}:{last.lineno} in {last.name}"
        if not _suite_code(last.filename):
            site = next((f for f in reversed(frames) if _suite_code(f.filename)), None)
            if site is not None:
                text += f"; from {Path(site.filename).name}:{site.lineno} in {site.name}"
        text += ")"
    cause = exc.__cause__
    if cause is not None:
        text += f" <- {type(cause).__name__}: {cause}"
    return text


def episode_context(
    spec: RunSpec,
    episode: Episode,
    index: int,
    options: Mapping[str, object] | None = None,
    declared: Capabilities | None = None,
) -> RolloutContext:
    """The context of one episode of a run: its seed derived from the run's seed and its id (so its record does
    not depend on the backend, the worker or the order), its index, the run's options (or `options`), and the
    agent's declarations when the run read them already (`declared`)."""
    chosen = spec.options if options is None else options
    seed = derive_seed(spec.seed, episode.episode_id)
    return RolloutContext(seed=seed, index=index, options=dict(chosen), declared=declared)


def rollout_one(
    suite: Suite, agent: Agent, episode: Episode, index: int, spec: RunSpec, declared: Capabilities | None = None
) -> Record:
    """Roll out one episode; agent failures and crashes become records with their own status. `declared`: the
    agent's declarations as the run read them (handed to the rollout in its context; None: the rollout reads them).

    Raises:
        RunError: the suite returned a record for another episode (a suite bug that would corrupt the run).
    """
    context = episode_context(spec, episode, index, declared=declared)
    start = time.perf_counter()
    try:
        record = suite.rollout_episode(episode, agent, context)
    except BudgetExceededError:
        raise  # not an outcome of this episode: the run stops and the episode stays unattempted
    except AgentInterfaceError as exc:
        record = _failure(suite, episode, context, Status.INTERFACE_ERROR, exc)
    except AgentTimeoutError as exc:
        record = _failure(suite, episode, context, Status.TIMEOUT, exc)
    except Exception as exc:
        record = suite.failure_record(episode, context, Status.CRASHED, crash_message(exc))
    wall_s = time.perf_counter() - start
    if record.episode_id != episode.episode_id or record.index != index:
        raise RunError(
            f"suite {spec.suite!r} returned a record for episode {record.episode_id!r} "
            f"(index {record.index}) when rolling out {episode.episode_id!r} (index {index}); "
            "fix the suite's rollout"
        )
    # The record's timing dict is its own (validation copied what the suite passed): adding to it in place saves
    # copying the record, a tenth of a cheap episode's cost in the runner.
    record.timing["wall_s"] = wall_s
    return record


def _failure(suite: Suite, episode: Episode, context: RolloutContext, status: Status, exc: Exception) -> Record:
    # An agent error may carry what the failed episode spent (`usage`, as for language-model requests).
    record = suite.failure_record(episode, context, status, str(exc) or type(exc).__name__)
    usage = getattr(exc, "usage", None)
    if isinstance(usage, dict) and usage:
        record = record.model_copy(update={"usage": {**record.usage, **{str(k): int(v) for k, v in usage.items()}}})
    return record


def agent_concurrency(agent: object) -> int:
    """Rollouts an agent wants in flight at once (its `concurrency` attribute; 1 when it has none).

    Raises:
        ConfigError: `concurrency` is not a positive integer.
    """
    return capabilities(agent).concurrency


def bounded_in_flight(
    executor: ThreadPoolExecutor,
    items: Iterator[tuple[int, Episode]],
    limit: int,
    submit: Callable[[tuple[int, Episode]], Future[Record]],
) -> Iterator[Record]:
    """The records of `submit(item)` for every item, at most `limit` in flight, each yielded as it finishes. When one
    raises (a budget stop, a suite bug), nothing new is submitted; those in flight finish and are yielded, then the
    error is re-raised. The executor is shut down at the end, or when the caller stops early (Ctrl-C, close): nothing
    new starts, and threads in flight end with their request."""
    pending: set[Future[Record]] = set()
    error: BaseException | None = None
    try:
        while True:
            while error is None and len(pending) < limit and (item := next(items, None)) is not None:
                pending.add(submit(item))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                failure = future.exception()
                if failure is None:
                    yield future.result()
                elif error is None:
                    error = failure
        if error is not None:
            raise error
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


def fit_agent(agent: object, train: Sequence[Episode]) -> None:
    """Fit `agent` on `train` if it is Fittable."""
    fit = capabilities(agent).fit
    if fit is not None:
        fit(train)
