"""Execution backends: run episodes serially or in a pool of local worker processes.

An agent that declares `concurrency = N` (a language-model agent waiting on a server) gets up to N rollouts
in flight in threads, in the serial backend and inside each worker process alike.

Both backends yield batches of records and never touch the store; the caller (the main process) writes
them. Each episode draws its randomness from `derive_seed(run_seed, episode_id)`, so a record is the same
whichever backend, worker count or completion order produced it.

Only plain values cross the process boundary: episodes travel as their JSON text, records come back as
JSON text, and the workers rebuild the suite and agent by registry name.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heedful.agents.registry import AGENTS, agent_class, import_first_from, make_agent, user_dirs
from heedful.capabilities import capabilities
from heedful.errors import AgentInterfaceError, AgentTimeoutError, BudgetExceededError, HeedfulError, RunError
from heedful.records import Record, Status
from heedful.requirements import check_requirements
from heedful.runner.lockstep import lockstep_rollouts
from heedful.runner.manifest import RunSpec
from heedful.runner.ray_options import RayOptions
from heedful.seeding import derive_seed
from heedful.suites.base import RolloutContext, Suite
from heedful.suites.registry import SUITES, get_suite

CHUNK_SIZE = 8
"""Episodes per pool task: small, so progress is smooth and a killed run loses little."""

PARENT_POLL_S = 1.0


@dataclass(frozen=True)
class Work:
    """What a backend runs.

    `todo` holds (dataset index, episode) pairs; `train` is what a Fittable agent fits on; `batch` is how many
    episodes of one worker step in lockstep on one batched policy call (see `heedful.runner.lockstep`).
    """

    spec: RunSpec
    suite: Suite
    agent: Any
    train: Sequence[Any]
    todo: Sequence[tuple[int, Any]]
    batch: int = 1


def crash_message(exc: BaseException) -> str:
    """`"ExcType: message (at file.py:LINE in function)"`, naming the innermost traceback frame."""
    text = f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        text += f" (at {Path(last.filename).name}:{last.lineno} in {last.name})"
    return text


def episode_context(spec: RunSpec, episode: Any, index: int, options: dict[str, Any] | None = None) -> RolloutContext:
    """The context of one episode of a run: its seed derived from the run's seed and its id (so its record does
    not depend on the backend, the worker or the order), its index, and the run's options (or `options`)."""
    chosen = spec.options if options is None else options
    return RolloutContext(seed=derive_seed(spec.seed, episode.episode_id), index=index, options=dict(chosen))


def rollout_one(suite: Suite, agent: Any, episode: Any, index: int, spec: RunSpec) -> Record:
    """Roll out one episode; agent failures and crashes become records with their own status.

    Raises:
        RunError: the suite returned a record for another episode (a suite bug that would corrupt the run).
    """
    context = episode_context(spec, episode, index)
    start = time.perf_counter()
    try:
        record = suite.rollout(episode, agent, context)
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


def _failure(suite: Suite, episode: Any, context: RolloutContext, status: Status, exc: Exception) -> Record:
    # An agent error may carry what the failed episode spent (`usage`, as for language-model requests).
    record = suite.failure_record(episode, context, status, str(exc) or type(exc).__name__)
    usage = getattr(exc, "usage", None)
    if isinstance(usage, dict) and usage:
        record = record.model_copy(update={"usage": {**record.usage, **{str(k): int(v) for k, v in usage.items()}}})
    return record


def agent_concurrency(agent: Any) -> int:
    """Rollouts an agent wants in flight at once (its `concurrency` attribute; 1 when it has none).

    Raises:
        ConfigError: `concurrency` is not a positive integer.
    """
    return capabilities(agent).concurrency


def rollouts(
    suite: Suite, agent: Any, items: Iterable[tuple[int, Any]], spec: RunSpec, concurrency: int = 1, batch: int = 1
) -> Iterator[Record]:
    """Roll out (index, episode) pairs, yielding each record as it finishes.

    With `concurrency > 1`, that many rollouts run at once in threads, so the agent must be thread-safe
    (a language-model agent waiting on a server). Records are the same as serially: each rollout depends
    only on its episode and its derived seed. When a rollout raises (a budget stop), no new rollout
    starts; those in flight finish and are yielded, then the error is re-raised. With `batch > 1`, that many
    controller rollouts step in lockstep on one `predict_batch` call per step (`heedful.runner.lockstep`).
    """
    if batch > 1:
        yield from lockstep_rollouts(suite, agent, iter(items), spec, batch)
        return
    if concurrency <= 1:
        for index, episode in items:
            yield rollout_one(suite, agent, episode, index, spec)
        return
    yield from _threaded(suite, agent, iter(items), spec, concurrency)


def _threaded(
    suite: Suite, agent: Any, queue: Iterator[tuple[int, Any]], spec: RunSpec, concurrency: int
) -> Iterator[Record]:
    executor = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="heedful-rollout")

    def submit(item: tuple[int, Any]) -> Future[Record]:
        return executor.submit(rollout_one, suite, agent, item[1], item[0], spec)

    yield from bounded_in_flight(executor, queue, concurrency, submit)


def bounded_in_flight(
    executor: ThreadPoolExecutor,
    items: Iterator[tuple[int, Any]],
    limit: int,
    submit: Callable[[tuple[int, Any]], Future[Record]],
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


def fit_agent(agent: Any, train: Sequence[Any]) -> None:
    """Fit `agent` on `train` if it is Fittable."""
    if capabilities(agent).fittable:
        agent.fit(train)


def execute(work: Work, workers: int, ray: RayOptions | None = None) -> Generator[list[Record], None, None]:
    """Run `work` and yield records in batches as they finish (serially when `workers <= 1`; on `workers` Ray
    actors when `ray` is given).

    Close the returned generator to stop early: the pool's workers (or Ray actors) are then terminated.
    """
    if ray is not None:
        from heedful.runner.ray_backend import ray_execute  # imports ray: only for runs that ask for it

        return ray_execute(work, workers, ray)
    if workers <= 1 or not work.todo:
        return _serial(work)
    return _pool(work, workers)


def _serial(work: Work) -> Generator[list[Record], None, None]:
    if not work.todo:
        return
    fit_agent(work.agent, work.train)
    for record in rollouts(work.suite, work.agent, work.todo, work.spec, agent_concurrency(work.agent), work.batch):
        yield [record]


# --- process pool: main-process side -----------------------------------------------------------------


def import_target(obj: Any, what: str) -> str:
    """The `"module:attr"` path a spawned worker imports to find `obj` again.

    Raises:
        RunError: `obj` is defined inside a function, so no worker can import it.
    """
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qualname or "<locals>" in qualname:
        raise RunError(
            f"{what} {obj!r} cannot be imported by worker processes; define it at module level "
            "in an importable module, or run with workers=1"
        )
    return f"{module}:{qualname}"


def worker_setup(work: Work) -> dict[str, Any]:
    # Registrations made at run time (tests, notebooks) do not exist in a spawned worker, so the worker
    # re-registers each name with the import path of the object the main process resolved.
    spec = work.spec
    agent_cls = agent_class(spec.agent, spec.suite)
    return {
        "spec": spec.model_dump_json(),
        # `--agent MODULE:CLASS` from the current directory: the worker imports it from there too
        "user_dirs": user_dirs(agent_cls),
        "suite_target": import_target(SUITES.get(spec.suite), f"suite {spec.suite!r}"),
        "agent_target": import_target(agent_cls, f"agent {spec.agent!r}"),
        "train": [ep.model_dump_json() for ep in work.train] if capabilities(work.agent).fittable else [],
        "batch": work.batch,
    }


def episode_chunks(todo: Sequence[tuple[int, Any]], workers: int, batch: int = 1) -> list[list[tuple[int, str]]]:
    # Lockstep needs a chunk of at least `batch` episodes (twice that keeps the batch full as episodes end), but
    # never so large that some workers get nothing.
    size = max(1, min(max(CHUNK_SIZE, 2 * batch), math.ceil(len(todo) / workers)))
    items = [(index, episode.model_dump_json()) for index, episode in todo]
    return [items[i : i + size] for i in range(0, len(items), size)]


def _pool(work: Work, workers: int) -> Generator[list[Record], None, None]:
    setup = worker_setup(work)
    chunks = episode_chunks(work.todo, workers, work.batch)
    executor = ProcessPoolExecutor(
        max_workers=min(workers, len(chunks)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=init_worker,
        initargs=(setup,),
    )
    clean = False
    try:
        yield from _drain(executor, chunks, window=2 * workers)
        clean = True
    finally:
        _stop(executor, clean)


def _drain(executor: ProcessPoolExecutor, chunks: list[list[tuple[int, str]]], window: int) -> Iterator[list[Record]]:
    # A bounded window of tasks in flight keeps memory flat and lets an interrupt cancel little.
    queue = iter(chunks)
    pending: set[Future[dict[str, Any]]] = set()
    while True:
        while len(pending) < window and (chunk := next(queue, None)) is not None:
            pending.add(executor.submit(run_chunk, chunk))
        if not pending:
            return
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        results = [_outcome(future) for future in done]
        # Store every finished chunk before reporting a failed one.
        yield from (batch for batch in results if isinstance(batch, list))
        for failure in results:
            if isinstance(failure, RunError):
                raise failure


def _outcome(future: Future[dict[str, Any]]) -> list[Record] | RunError:
    try:
        result = future.result()
    except BrokenProcessPool as broken:
        error = RunError(
            "a worker process died (killed, out of memory or a crash in native code); "
            "the records finished so far are kept: resume the run to continue. If it died at "
            'start, the script calling run() may lack an `if __name__ == "__main__":` guard'
        )
        error.__cause__ = broken
        return error
    if "error" in result:
        return RunError(f"a worker process failed:\n{result['error']}")
    return [Record.model_validate_json(text) for text in result["records"]]


def _stop(executor: ProcessPoolExecutor, clean: bool) -> None:
    processes = list(executor._processes.values())  # private, but the only handle before Python 3.14
    executor.shutdown(wait=clean, cancel_futures=True)
    if clean:
        return
    # Interrupted or failed: do not wait for the chunks in flight (they are re-run on resume).
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5.0)


# --- process pool: worker side -----------------------------------------------------------------------


@dataclass
class _WorkerState:
    spec: RunSpec
    suite: Suite
    agent: Any
    batch: int


_STATE: _WorkerState | None = None
_SETUP_ERROR: str | None = None


def _exit_with_parent() -> None:
    # A worker whose main process was SIGKILLed would otherwise wait forever on its task queue.
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="heedful-parent-watch", daemon=True).start()


def init_worker(setup: dict[str, Any]) -> None:
    """Pool initializer: build the suite and the (fitted) agent once per worker process."""
    global _STATE, _SETUP_ERROR
    # Ctrl-C reaches the whole process group; only the main process handles it (and stops the workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()
    try:
        spec = RunSpec.model_validate_json(setup["spec"])
        for module, directory in dict(setup.get("user_dirs") or {}).items():
            import_first_from([directory], module)
        SUITES.register(spec.suite, setup["suite_target"])
        # `SUITE/NAME` is the first name make_agent tries, so the worker builds the class the main resolved.
        AGENTS.register(f"{spec.suite}/{spec.agent}", setup["agent_target"])
        suite = get_suite(spec.suite)
        check_requirements(spec.suite, suite.requirements(spec.options))  # imported here, where they are used
        declared = capabilities(agent_class(spec.agent, spec.suite)).required(spec.agent_args)
        check_requirements(f"{spec.suite} --agent {spec.agent}", declared)  # the agent's, likewise
        agent = make_agent(spec.agent, spec.agent_args, suite=spec.suite)
        if capabilities(agent).fittable:
            agent.fit([suite.parse_episode(text) for text in setup["train"]])
        _STATE = _WorkerState(spec=spec, suite=suite, agent=agent, batch=int(setup.get("batch", 1)))
    except HeedfulError as err:  # a typed error (a requirement that does not import) needs no traceback
        _SETUP_ERROR = f"setting up the worker failed: {type(err).__name__}: {err}"
    except Exception:
        _SETUP_ERROR = f"setting up the worker failed:\n{traceback.format_exc()}"


def run_chunk(items: list[tuple[int, str]]) -> dict[str, Any]:
    """Pool task: roll out a chunk of (index, episode JSON) pairs; return record JSON texts or an error."""
    if _STATE is None:
        return {"error": _SETUP_ERROR or "the worker was not set up"}
    state = _STATE
    try:
        pairs = ((index, state.suite.parse_episode(text)) for index, text in items)
        concurrency = agent_concurrency(state.agent)
        found = rollouts(state.suite, state.agent, pairs, state.spec, concurrency, state.batch)
        records = [r.model_dump_json() for r in found]
    except Exception:
        return {"error": traceback.format_exc()}
    return {"records": records}
