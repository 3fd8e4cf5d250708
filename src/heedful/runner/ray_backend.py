"""The Ray backend: the episodes of one run spread over worker actors on a Ray cluster, with retries.

Each worker actor builds the suite and agent once by registry name, exactly as a pool worker process does (it
runs the pool's own initializer and chunk function), and rolls out chunks of episodes. Only plain values cross
the wire: episodes go as their JSON text, records come back as JSON text. The driver (the process calling
`run()`) alone writes the run store, so resume, records and reports are those of the local backends.

A worker that dies (killed, out of memory, its node lost) costs only its chunks in flight: Ray restarts the
actor (which reads its set-up again from the object the driver holds, see `RayWorker`) and the driver submits those
chunks again. Which of a worker's chunks was running when it died is known for sure only when it held one, so
chunks lost together are sent again each alone on its worker, and a chunk that dies alone is split into single
episodes (each again alone): an episode that kills its worker every time is found and, after `MAX_TRIES` deaths,
recorded as `crashed` with the reason; the others run normally. Records come back only whole, and each episode's
record is stored once, from the first attempt that returned it: nothing is lost or duplicated.

ray is imported here only, and this module only when a run asks for the Ray backend.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from heedful.errors import MissingDependencyError, RunError
from heedful.records import Record, Status
from heedful.runner import worker
from heedful.runner.backends import note_renderer_of
from heedful.runner.episode import episode_context
from heedful.runner.ray_options import INSTALL_HINT, RayOptions
from heedful.runner.ray_reaper import RayReaper
from heedful.runner.rollouts import Work

MAX_TRIES = 3
"""Deaths of a worker while it ran an episode before the episode is recorded as crashed."""
IN_FLIGHT = 2
"""Chunks queued per worker while work is plenty: the next chunk is already there when one finishes."""
RESTARTED = "restarted"
"""The key of a chunk's answer from a restarted actor that has not been set up yet: the chunk is sent again."""
WAIT_S = 0.5
"""Longest wait on the cluster between checks (Ctrl-C is handled at once either way)."""
NO_WORKER_TIMEOUT_S = 300.0
"""How long a run waits with no live worker (the cluster cannot place one) before it stops."""

log = logging.getLogger(__name__)


def import_ray() -> Any:
    """ray, imported on first use (with usage statistics off), or an install hint.

    Raises:
        MissingDependencyError: ray is not installed.
    """
    os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError(f"--backend ray needs ray ({exc}): {INSTALL_HINT}") from exc
    return ray


class RayWorker:
    """A worker actor: the pool worker's set-up and chunk function, in a process Ray manages.

    The set-up (the spec, and a fittable agent's training episodes: often more than Ray passes inline) is not a
    constructor argument: Ray stores a large one in the object store, where its reference counting may delete it
    while the actor lives, and a restart then fails (ray-project/ray#53727: both actors of `blind` killed, the run
    made no progress). The driver puts it once, holds it for the whole run, and sends its reference (in a list, so
    that Ray passes the reference) with `start`, which it calls on every actor that is new or restarted before
    giving it work."""

    def __init__(self) -> None:
        self.started = False

    def start(self, setup: list[Any], index: int = 0) -> dict[str, Any]:
        """Build the suite and the (fitted) agent from the driver's set-up, once per actor process (actor `index`
        renders on EGL device `index` mod N of the set-up's devices); `where()`."""
        import ray

        if not self.started:
            worker.init_worker(ray.get(setup[0]), index)
            self.started = True
        return self.where()

    def where(self) -> dict[str, Any]:
        """This actor's process and node, so the driver knows it is up (and tests know what to kill)."""
        import ray

        return {"pid": os.getpid(), "node_id": ray.get_runtime_context().get_node_id()}

    def run_chunk(self, items: list[tuple[int, str]]) -> dict[str, Any]:
        """Roll out (index, episode JSON) pairs: `{"records": [record JSON, ...]}` or `{"error": traceback}`, or
        `{"restarted": true}` from a restarted process not yet set up (the driver sent the chunk before it learnt
        of the death; it sets the actor up again and sends the chunk anew)."""
        if not self.started:
            return {RESTARTED: True}
        return worker.run_chunk(items)


def ray_execute(work: Work, workers: int, options: RayOptions) -> Generator[list[Record], None, None]:
    """Run `work` on `workers` Ray actors, yielding records in batches as chunks finish.

    Close the generator (or interrupt it) to stop: the actors are killed and a Ray instance this call started is
    shut down; finished chunks have been yielded, those in flight run again on resume.

    Raises:
        RunError: the cluster cannot be reached or place a worker, or a worker failed (not died) in our code.
    """
    if not work.todo:
        return
    ray = import_ray()
    setup = worker.worker_setup(work)  # an agent no worker can import fails here, before Ray starts
    chunks = worker.episode_chunks(work.todo, workers, work.batch)
    started, reaper = _connect(ray, options, workers)
    actors: list[Any] = []
    try:
        actor_class = ray.remote(RayWorker).options(max_restarts=-1, max_task_retries=0, **options.actor_options())
        setup_ref = ray.put(setup)  # held by the driver until the run ends: every (re)started actor reads it
        actors = [actor_class.remote() for _ in range(min(workers, len(chunks)))]
        yield from _Driver(ray, work, actors, setup_ref).run([_Chunk(items) for items in chunks])
    finally:
        for actor in actors:
            try:
                ray.kill(actor, no_restart=True)
            except Exception as err:  # the cluster may be gone; nothing is left to stop then
                log.debug("could not kill a Ray worker: %s", err)
        if started:
            _shutdown(ray, reaper)


@contextmanager
def ray_session(options: RayOptions, workers: int) -> Iterator[None]:
    """Connect (or start a local Ray instance) for the whole block, so that the runs inside it (a sweep's cells)
    share one Ray session instead of starting one each; shut down at the end if started here."""
    ray = import_ray()
    started, reaper = _connect(ray, options, workers)
    try:
        yield
    finally:
        if started:
            _shutdown(ray, reaper)


def _shutdown(ray: Any, reaper: RayReaper | None) -> None:
    if reaper is not None:
        reaper.done()  # the driver stops Ray itself: the watchdog kills nothing
    ray.shutdown()


def _connect(ray: Any, options: RayOptions, workers: int) -> tuple[bool, RayReaper | None]:
    """Connect to the cluster, or start a local Ray instance with room for every worker: (whether connected here,
    the watchdog that stops the local instance's processes if the driver is killed)."""
    if ray.is_initialized():
        return False, None  # the caller's own session (a notebook, a test): used as it is, and left running
    quiet = {"logging_level": logging.WARNING, "configure_logging": True}
    try:
        with _interrupts_deferred():
            if options.address is None:
                cpus = max(os.cpu_count() or 1, workers * options.resources.get("CPU", 1.0))
                ray.init(address="local", num_cpus=int(cpus + 0.999), include_dashboard=False, **quiet)
            else:
                ray.init(address=options.address, **quiet)
    except ConnectionError as err:
        where = options.address or "this machine"
        raise RunError(f"cannot connect to the Ray cluster at {where}: {err}") from err
    except KeyboardInterrupt:
        ray.shutdown()  # interrupted while it started: stop what it started
        raise
    return True, (RayReaper() if options.address is None else None)


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block ends, then raise KeyboardInterrupt: a `ray.init` interrupted
    halfway leaves processes of the new Ray instance running, which `ray.shutdown` does not stop."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    sigs = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda signum, frame: received.append(signum)) for sig in sigs}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        raise KeyboardInterrupt(f"signal {received[0]}")


@dataclass
class _Chunk:
    items: list[tuple[int, str]]
    deaths: int = 0
    alone: bool = False
    """Lost with others in one death: runs with no other chunk on its actor, so its own death names it."""


@dataclass
class _Actor:
    handle: Any
    index: int
    ready: bool = False
    probe: Any = None
    pending: deque[Any] = field(default_factory=deque)
    """Object refs of this actor's chunks in submission order."""
    spared: set[Any] = field(default_factory=set)
    """Refs lost in a death they cannot be blamed for, whose failure has not come back yet."""

    def charged(self, ref: Any) -> bool:
        """Whether the death that failed `ref` is charged to its chunk: only when it was the actor's one chunk.

        With several chunks on the actor, which of them was running is not known for sure (a finished chunk's
        answer can be lost with its worker, and a chunk sent while the actor restarted fails with it), so none is
        charged: each is sent again alone, where a death that follows is its own."""
        if ref in self.spared:
            return False
        if len(self.pending) == 1:
            return True
        self.spared.update(self.pending)
        return False


class _Driver:
    """The driver's loop: keep every live actor busy, store what returns, resubmit what a death lost."""

    def __init__(self, ray: Any, work: Work, handles: Sequence[Any], setup_ref: Any) -> None:
        self.ray = ray
        self.work = work
        self.setup_ref = setup_ref
        self.actors = [_Actor(handle, index) for index, handle in enumerate(handles)]
        self.chunk_of: dict[Any, tuple[_Actor, _Chunk]] = {}
        self.queue: deque[_Chunk] = deque()
        self.episodes = {index: episode for index, episode in work.todo}
        self.last_alive = time.monotonic()
        for actor in self.actors:
            actor.probe = self._start(actor)

    def run(self, chunks: list[_Chunk]) -> Iterator[list[Record]]:
        self.queue.extend(chunks)
        while self.queue or self.chunk_of:
            self._submit()
            probes = [a.probe for a in self.actors if a.probe is not None]
            ready, _ = self.ray.wait([*self.chunk_of, *probes], num_returns=1, timeout=WAIT_S)
            self._check_alive()
            batches: list[list[Record]] = []
            failure: RunError | None = None
            for ref in ready:
                if ref in self.chunk_of:
                    outcome = self._chunk_done(ref)
                    if isinstance(outcome, RunError):
                        failure = failure or outcome
                    elif outcome:
                        batches.append(outcome)
                else:
                    self._probe_done(ref)
            yield from batches  # store every finished chunk before reporting a failed one
            if failure is not None:
                raise failure

    def _submit(self) -> None:
        while self.queue:
            # A second chunk waits on an actor only while there is work for every actor: near the end a chunk
            # stays here for whichever actor is free first, so that no actor idles while another holds two.
            depth = 1 if self.queue[0].alone or len(self.queue) < len(self.actors) else IN_FLIGHT
            free = [a for a in self.actors if a.ready and len(a.pending) < depth and not self._holds_alone(a)]
            if not free:
                return
            actor = min(free, key=lambda a: len(a.pending))
            chunk = self.queue.popleft()
            ref = actor.handle.run_chunk.remote(chunk.items)
            actor.pending.append(ref)
            self.chunk_of[ref] = (actor, chunk)

    def _holds_alone(self, actor: _Actor) -> bool:
        return any(self.chunk_of[ref][1].alone for ref in actor.pending)

    def _check_alive(self) -> None:
        now = time.monotonic()
        if any(a.ready for a in self.actors):
            self.last_alive = now
        elif now - self.last_alive > NO_WORKER_TIMEOUT_S:
            raise RunError(
                f"no Ray worker has been alive for {NO_WORKER_TIMEOUT_S:.0f} s: the cluster cannot place one with "
                f"the resources it asks for ({self._resources()}); the finished records are kept: add nodes or "
                "change --resources, then resume the run"
            )

    def _resources(self) -> str:
        return ", ".join(f"{k} {v:g}" for k, v in self.ray.cluster_resources().items() if "node:" not in k)

    def _start(self, actor: _Actor) -> Any:
        """Ask `actor` to set itself up (a no-op once it has, in this process) and say where it runs."""
        return actor.handle.start.remote([self.setup_ref], actor.index)

    def _probe_done(self, ref: Any) -> None:
        actor = next(a for a in self.actors if a.probe is not None and a.probe == ref)
        actor.probe = None
        try:
            info = self.ray.get(ref)
        except self.ray.exceptions.RayActorError:
            actor.probe = self._start(actor)  # still restarting: ask again
            return
        except self.ray.exceptions.RayError as err:
            raise RunError(f"a Ray worker failed to start: {err}") from err
        log.info("Ray worker up: pid %s on node %s", info["pid"], info["node_id"])
        actor.ready = True

    def _chunk_done(self, ref: Any) -> list[Record] | RunError | None:
        actor, chunk = self.chunk_of.pop(ref)
        try:
            result = self.ray.get(ref)
        except self.ray.exceptions.RayActorError as err:
            return self._died(actor, chunk, actor.charged(ref), err)
        except self.ray.exceptions.RayError as err:
            return RunError(f"a Ray worker failed:\n{err}")
        finally:
            actor.pending.remove(ref)
            actor.spared.discard(ref)
        if result.get(RESTARTED):  # no death of this chunk's making: sent again as it was
            self._set_up_again(actor)
            self.queue.appendleft(chunk)
            return None
        if "error" in result:
            return RunError(f"a Ray worker failed:\n{result['error']}")
        note_renderer_of(result, self.work.renderers)
        return [Record.model_validate_json(text) for text in result["records"]]

    def _died(self, actor: _Actor, chunk: _Chunk, charged: bool, err: Exception) -> list[Record] | None:
        """A chunk lost with its worker: resubmit it (alone, or split when it died alone), or record it as crashed."""
        self._set_up_again(actor)
        episodes = [i for i, _ in chunk.items]
        reason = " ".join(str(err).split())[:300]
        if not charged:
            log.warning("a Ray worker died with episodes %s in flight (%s); they run again alone", episodes, reason)
            self.queue.appendleft(_Chunk(chunk.items, chunk.deaths, alone=True))
            return None
        deaths = chunk.deaths + 1
        log.warning("a Ray worker died running episodes %s (%s)", episodes, reason)
        if deaths >= MAX_TRIES:
            return [self._crashed(index, deaths) for index, _ in chunk.items]
        # Single episodes from now on: the one that kills its worker is found, the others run as usual.
        self.queue.extendleft(reversed([_Chunk([item], deaths, alone=True) for item in chunk.items]))
        return None

    def _set_up_again(self, actor: _Actor) -> None:
        """No new chunks for `actor` until it is back and set up again (once per restart)."""
        if actor.ready:
            actor.ready = False
            actor.probe = self._start(actor)

    def _crashed(self, index: int, deaths: int) -> Record:
        episode = self.episodes[index]
        context = episode_context(self.work.spec, episode, index)
        # The reason names no pid or node, so that the record is the same whichever worker ran it.
        message = (
            f"the Ray worker running this episode died {deaths} times (killed, out of memory or a crash in native "
            "code); resume the run to try it again"
        )
        return self.work.suite.failure_record(episode, context, Status.CRASHED, message)
