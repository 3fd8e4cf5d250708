"""The `local` backend (`heedful.runner.backend`): run episodes serially or in a pool of local worker processes.

An agent that declares `concurrency = N` (a language-model agent waiting on a server) gets up to N rollouts
in flight in threads, in the serial backend and inside each worker process alike.

Both backends yield batches of records and never touch the store; the caller (the main process) writes
them. Each episode draws its randomness from `derive_seed(run_seed, episode_id)`, so a record is the same
whichever backend, worker count or completion order produced it.

Only plain values cross the process boundary: episodes travel as their JSON text, records come back as
JSON text, and the workers rebuild the suite and agent by registry name.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Generator, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from heedful.errors import ConfigError, RunError
from heedful.records import Record
from heedful.runner.backend import BackendFlags
from heedful.runner.rollouts import Work, rollouts
from heedful.runner.worker import episode_chunks, init_worker, run_chunk, worker_setup
from heedful.sims.gl_devices import WorkerCounter, renderer_since, renderers_built, use_egl_device


@dataclass(frozen=True)
class LocalBackend:
    """This process (`workers` 1) or a pool of `workers` spawned local processes."""

    workers: int = 1

    @classmethod
    def from_flags(cls, flags: BackendFlags) -> LocalBackend:
        """The local backend takes `--workers` only.

        Raises:
            ConfigError: `--address` or `--resources` given (they are the Ray backend's).
        """
        named = (("--address", flags.address), ("--resources", flags.resources))
        given = [flag for flag, value in named if value is not None]
        if given:
            raise ConfigError(
                f"{' and '.join(given)} only {'applies' if len(given) == 1 else 'apply'} to --backend ray"
            )
        return cls(flags.workers)

    on_this_machine = True

    @property
    def in_this_process(self) -> bool:
        return self.workers <= 1

    def where(self) -> str:
        return "local"

    def execute(self, work: Work) -> Generator[list[Record], None, None]:
        """Run `work` and yield records in batches as they finish (serially when `workers <= 1`).

        Close the returned generator to stop early: the pool's workers are then terminated.
        """
        if self.workers <= 1 or not work.todo:
            return _serial(work)
        return _pool(work, self.workers)

    def session(self) -> AbstractContextManager[None]:
        return nullcontext()


def _serial(work: Work) -> Generator[list[Record], None, None]:
    if not work.todo:
        return
    use_egl_device(work.egl_devices, 0)  # this process is worker 0
    built = renderers_built()  # an earlier run in this process may have rendered: only this run's count
    if work.declared.fit is not None:
        work.declared.fit(work.train)
    found = rollouts(work.suite, work.agent, work.todo, work.spec, work.declared.concurrency, work.batch, work.declared)
    for record in found:
        renderer = renderer_since(built)
        if renderer is not None:
            work.renderers[0] = renderer
        yield [record]


def _pool(work: Work, workers: int) -> Generator[list[Record], None, None]:
    setup = worker_setup(work)
    chunks = episode_chunks(work.todo, workers, work.batch)
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(
        max_workers=min(workers, len(chunks)),
        mp_context=context,
        initializer=init_worker,
        initargs=(setup, WorkerCounter(context)),  # numbers the workers as they start (their EGL device)
    )
    clean = False
    try:
        yield from _drain(executor, chunks, window=2 * workers, renderers=work.renderers)
        clean = True
    finally:
        _stop(executor, clean)


def _drain(
    executor: ProcessPoolExecutor,
    chunks: list[list[tuple[int, str]]],
    window: int,
    renderers: dict[int, dict[str, Any]],
) -> Iterator[list[Record]]:
    # A bounded window of tasks in flight keeps memory flat and lets an interrupt cancel little.
    queue = iter(chunks)
    pending: set[Future[dict[str, Any]]] = set()
    while True:
        while len(pending) < window and (chunk := next(queue, None)) is not None:
            pending.add(executor.submit(run_chunk, chunk))
        if not pending:
            return
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        results = [_outcome(future, renderers) for future in done]
        # Store every finished chunk before reporting a failed one.
        yield from (batch for batch in results if isinstance(batch, list))
        for failure in results:
            if isinstance(failure, RunError):
                raise failure


def _outcome(future: Future[dict[str, Any]], renderers: dict[int, dict[str, Any]]) -> list[Record] | RunError:
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
    note_renderer_of(result, renderers)
    return [Record.model_validate_json(text) for text in result["records"]]


def note_renderer_of(result: dict[str, Any], renderers: dict[int, dict[str, Any]]) -> None:
    """Keep the renderer a worker's chunk result reports (`run_chunk`), under the worker's index."""
    if result.get("renderer") is not None:
        renderers[int(result["worker"])] = dict(result["renderer"])


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
