"""`run()`: evaluate an agent on a suite's episodes into a resumable run directory."""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from heedful.agents.registry import build_agent, make_agent
from heedful.capabilities import Capabilities, capabilities
from heedful.errors import BudgetExceededError, ConfigError, DatasetError, RunAbortedError, RunError
from heedful.outcome import ABORT_AFTER
from heedful.protocols import Agent, AgentFactory
from heedful.records import Record, Status
from heedful.runner.backend import Backend, BackendFlags, Resources, make_backend
from heedful.runner.commits import BatchedWriter, CommitPolicy
from heedful.runner.lock import RunLock
from heedful.runner.lockstep import check_batchable
from heedful.runner.manifest import (
    MANIFEST_NAME,
    RunManifest,
    RunSpec,
    RunState,
    utc_now,
    write_manifest,
)
from heedful.runner.resume import open_manifest
from heedful.runner.rollouts import Work
from heedful.runner.store import RunStore
from heedful.sampling import sample_positions
from heedful.seeding import derive_rng
from heedful.signals import sigterm_as_interrupt
from heedful.sims.gl_devices import check_egl_devices, parse_egl_devices, summarize
from heedful.suites.base import Episode, Suite
from heedful.suites.lazy_episodes import episode_ids, sample_units
from heedful.suites.registry import get_suite

SCORED = frozenset(s for s in Status if s.scored)


@dataclass(frozen=True)
class _Session:
    """How one call of `run()` executes: its backend, progress bar, which failures it retries, commits."""

    backend: Backend
    progress: bool
    retry_failed: bool
    commit: CommitPolicy
    chosen: tuple[int, ...]
    """Dataset positions the run covers (`selected_positions`, computed once)."""
    batch: int
    """Episodes of one worker stepping in lockstep on one batched policy call (1: unbatched)."""
    egl_devices: tuple[int, ...]
    """EGL devices the workers render on (worker i on device i mod N); (): MuJoCo's choice."""


@dataclass(frozen=True)
class RunResult:
    """What `run()` did: the run directory, its final manifest, record counts per status, and how many
    episodes this call ran (a resume runs only what was missing or failed)."""

    run_dir: Path
    manifest: RunManifest
    counts: dict[str, int]
    newly_run: int


class _Bar(Protocol):
    def update(self, n: int) -> object: ...

    def set_postfix_str(self, s: str) -> object: ...

    def close(self) -> None: ...


def run(
    spec: RunSpec,
    episodes: Sequence[Episode],
    run_dir: Path,
    *,
    workers: int = 1,
    resume: bool = False,
    progress: bool = True,
    retry_failed: bool = True,
    train: Sequence[Episode] | None = None,
    commit: CommitPolicy | None = None,
    backend: str = "local",
    address: str | None = None,
    resources: Resources | None = None,
    audit_stateless: int = 0,
    batch: int = 1,
    resolved: tuple[Suite, AgentFactory] | None = None,
    egl_devices: str | Sequence[int] | None = None,
) -> RunResult:
    """Run `spec.agent` on `episodes` (or the `spec.limit` of them that `spec.order` selects, see
    `heedful.sampling`) and store every record in `run_dir`.

    Records are committed in small batches (`commit`, see `heedful.runner.commits`), and every exit commits
    what is pending, so an interrupted run keeps every finished episode and a killed one all but its last
    uncommitted batch; `resume=True` continues it: episodes with a scored record are skipped, and those that failed
    (interface error, timeout, crash) are run again when `retry_failed`. A resume must request the same
    spec, except that `limit` may grow.

    Args:
        spec: What to run; `spec.suite` and `spec.agent` are registry names.
        episodes: The episodes of the run, in dataset order; `spec.dataset_hash` must be their hash.
        run_dir: The run directory; created if missing.
        workers: 1 runs in this process; more runs in that many spawned worker processes.
        resume: Continue the run already in `run_dir`.
        progress: Show a progress bar on stderr.
        retry_failed: On resume, run again the episodes whose record is not scored.
        train: The dataset Fittable agents fit on (through `suite.training_episodes`); defaults to
            `episodes`. Pass the full dataset when `episodes` is one split of it.
        commit: When records are committed (default: every 64 records or 0.5 s; `commits.EACH_RECORD` for
            one transaction per record).
        backend: The backend's registry name (`heedful.runner.backend`): "local" (this process, or `workers` local
            processes) or "ray" (`workers` actors on a Ray cluster, see `heedful.runner.ray_backend`).
        address: The Ray cluster (`auto`, `HOST:PORT`, `ray://HOST:PORT`); None starts a local Ray instance.
        resources: What each Ray worker reserves, as JSON text or a mapping (`{"CPU": 1, "GPU": 0.25}`).
        audit_stateless: After the run, replay this many of its episodes on a fresh agent in another order, in this
            process, and record in the manifest whether any answer changed (heedful.runner.stateless); 0: no audit.
        batch: Episodes each worker steps in lockstep, answered by one `predict_batch` call per step (a controller
            that declares it; see `heedful.runner.lockstep`). The records are those of an unbatched run.
        resolved: The suite and the agent class `spec` names, when the caller has looked them up already (so one
            run resolves each once); None: looked up here by `spec.suite` and `spec.agent`.
        egl_devices: EGL devices to render on ("0,1,2,3" or ids): worker i (Ray actor i) renders on device i mod N
            (`heedful.sims.gl_devices`); None reads HEEDFUL_EGL_DEVICES, and without it MuJoCo chooses. Not part
            of the run's identity: the pixels do not depend on which GPU drew them. The manifest's `renderers`
            says what each worker drew with.

    Returns:
        The run's directory, final manifest, counts per status, and the number of episodes run now.

    Raises:
        RunError: `run_dir` holds a run and `resume` is False, or the stored run does not match `spec`.
        ConfigError: `spec` does not match the suite or the episodes.
        KeyboardInterrupt: re-raised after the manifest is marked "interrupted" and every finished
            record is saved; the caller should tell the user to resume with `--resume`.
        BudgetExceededError: the agent's budget is spent; re-raised after the manifest is marked "stopped"
            (with the reason) and every finished record is saved. Episodes not attempted have no record.
        RunAbortedError: the first `outcome.ABORT_AFTER` episodes all crashed with one error; the manifest is marked
            "stopped" with it, the crashed records are kept, and a resume runs them again.

    A Fittable agent may declare `check_training(train, evaluation)`, called before the run directory is touched,
    to refuse a run it cannot be measured on honestly (the `bow` control evaluated on its own training episodes).
    An agent may declare `concurrency` (rollouts in flight, see `rollouts.rollouts`), `session_args` (names
    of its arguments a resume may change, such as a budget), `charge_previous_usage(totals)` (told the
    summed `usage` of the stored records before a session starts) and `close()` (called when the run ends).
    """
    if workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    if audit_stateless < 0:
        raise ConfigError(f"--audit-stateless takes a number of episodes (0 or more), got {audit_stateless}")
    chosen_backend = make_backend(backend, BackendFlags(workers, address, resources))
    devices = parse_egl_devices(egl_devices)
    if chosen_backend.on_this_machine:  # on Ray, each actor checks its own node's devices
        check_egl_devices(devices)
    run_dir = Path(run_dir)
    # `resolved`: the suite and agent class the caller (heedful.api.evaluate) already looked up by these names
    suite = get_suite(spec.suite) if resolved is None else resolved[0]
    _check_episodes(spec, suite, episodes)
    with _workers_in_env(workers):  # the embedded model server shares the free cores among the workers
        agent = (
            make_agent(spec.agent, spec.agent_args, suite=spec.suite)
            if resolved is None
            else build_agent(resolved[1], spec.agent, spec.agent_args)
        )
        declared: Capabilities | None = None
        try:
            declared = capabilities(agent)
            check_batchable(declared, batch)
            if not chosen_backend.in_this_process and declared.has_budget:
                raise ConfigError(
                    "a budget (--max-cost / --max-requests) is enforced in one process: run with --workers 1 and "
                    "without --backend ray (use --concurrency N to keep several requests in flight)"
                )
            fit_on = suite.training_episodes(episodes if train is None else train) if declared.fittable else []
            _check_training(declared, fit_on, episodes)
            _make_run_dir(run_dir)
            with RunLock(run_dir), sigterm_as_interrupt():
                manifest = open_manifest(spec, run_dir, resume, declared.description(), workers, declared.session_args)
                # read again after `description()`, which connects a remote agent: what it declares (privileged) may
                # depend on the server; the run hands this reading down to every rollout
                declared = capabilities(agent)
                chosen = tuple(selected_positions(spec, suite, episodes))
                update = {
                    "planned": len(chosen),
                    "available": len(episodes),
                    "backend": chosen_backend.where(),
                    "privileged": declared.privileged,
                }
                manifest = manifest.model_copy(update=update)
                write_manifest(run_dir, manifest)  # a killed run still says how much it set out to do
                session = _Session(
                    chosen_backend, progress, retry_failed, commit or CommitPolicy(), chosen, batch, devices
                )
                result = _run_session(spec, suite, agent, declared, episodes, fit_on, run_dir, manifest, session)
                if audit_stateless:
                    result = _audit_stateless(spec, suite, episodes, train, result, audit_stateless)
                return result
        finally:
            close = declared.close if declared is not None else None
            if close is not None:
                close()


def _run_session(
    spec: RunSpec,
    suite: Suite,
    agent: Agent,
    declared: Capabilities,
    episodes: Sequence[Episode],
    fit_on: Sequence[Episode],
    run_dir: Path,
    manifest: RunManifest,
    session: _Session,
) -> RunResult:
    started = time.monotonic()
    generated = _Generated()
    renderers: dict[int, dict[str, object]] = {}  # filled by the backend: what each worker rendered with
    with RunStore(run_dir) as store:
        store.check_producer(manifest.run_identity)  # a resume never extends a run that mixes two
        try:
            todo = _todo(session.chosen, episodes, store, session.retry_failed)
            todo = run_order(todo, spec.seed) if suite.run_order == "shuffled" else todo
            _charge_previous_usage(declared, store)
            work = Work(spec, suite, agent, declared, fit_on, todo, session.batch, session.egl_devices, renderers)
            writer = BatchedWriter(store, manifest.run_identity, session.commit)
            newly_run = _execute(work, session.backend, writer, session.progress, generated)
        except BudgetExceededError as exc:
            manifest = _with_server_counts(_with_renderers(manifest, renderers), declared)
            _finish_after_error(exc, run_dir, manifest, store, "stopped", started, reason=str(exc))
            raise
        except KeyboardInterrupt as exc:
            manifest = _with_server_counts(_with_renderers(manifest, renderers), declared)
            _finish_after_error(exc, run_dir, manifest, store, "interrupted", started)
            raise
        except RunAbortedError as exc:
            manifest = _with_renderers(manifest, renderers)
            _finish_after_error(exc, run_dir, manifest, store, "stopped", started, reason=str(exc))
            raise
        except BaseException as exc:
            manifest = _with_server_counts(_with_renderers(manifest, renderers), declared)
            _finish_after_error(exc, run_dir, manifest, store, "failed", started, reason=_one_line(exc))
            raise
        if generated.tokens:
            manifest = manifest.model_copy(update={"generation": generated.summary()})
        manifest = _with_renderers(manifest, renderers)
        manifest = _finish(run_dir, _with_server_counts(manifest, declared), store, "finished", started)
    return RunResult(run_dir=run_dir, manifest=manifest, counts=dict(manifest.counts), newly_run=newly_run)


def _audit_stateless(
    spec: RunSpec, suite: Suite, episodes: Sequence[Episode], train: Sequence[Episode] | None, result: RunResult, k: int
) -> RunResult:
    """Replay k of the run's episodes on a fresh agent in another order and record what changed in the manifest."""
    from heedful.runner.stateless import audit

    with RunStore(result.run_dir) as store:
        stored = store.records()
    fit_on = suite.training_episodes(episodes if train is None else train)
    found = audit(spec, suite, stored, episodes, fit_on, k)
    manifest = result.manifest.model_copy(update={"stateless_audit": found})
    write_manifest(result.run_dir, manifest)
    return RunResult(run_dir=result.run_dir, manifest=manifest, counts=result.counts, newly_run=result.newly_run)


def run_order(todo: Sequence[tuple[int, Episode]], seed: int) -> list[tuple[int, Episode]]:
    """The order a run rolls its episodes out in: a shuffle seeded by the run seed, so that a family's instances
    (neighbours in the dataset) do not run next to each other, in one process or in one worker's chunk, and an
    agent cannot tell from the order which episodes belong together. Records do not depend on it: each episode's
    randomness comes from its own derived seed."""
    order = derive_rng(seed, "run-order").permutation(len(todo))
    return [todo[int(i)] for i in order]


def _with_server_counts(manifest: RunManifest, declared: Capabilities) -> RunManifest:
    """The manifest with a pool's per-server counts (answered, failed, out of rotation), when the agent has them."""
    counts = declared.server_counts
    try:
        servers = counts() if counts is not None else None
    except Exception:  # the counts never hide how the run ended
        servers = None
    return manifest.model_copy(update={"servers": servers}) if servers else manifest


def _with_renderers(manifest: RunManifest, renderers: dict[int, dict[str, Any]]) -> RunManifest:
    """The manifest with the renderers this session's workers drew with (`heedful.sims.gl_devices.summarize`)."""
    return manifest.model_copy(update={"renderers": summarize(renderers)})


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:500]}"


WORKERS_ENV = "HEEDFUL_WORKERS"  # the same name as heedful.llm.server.WORKERS_ENV (the runner imports no model code)
"""How many worker processes share the machine: read by heedful.llm.server to size the embedded model's threads;
spawned workers and a Ray instance started by the run inherit it."""


@contextmanager
def _workers_in_env(workers: int) -> Iterator[None]:
    previous = os.environ.get(WORKERS_ENV)
    os.environ[WORKERS_ENV] = str(workers)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(WORKERS_ENV, None)
        else:
            os.environ[WORKERS_ENV] = previous


def _charge_previous_usage(declared: Capabilities, store: RunStore) -> None:
    charge = declared.charge_previous_usage
    if charge is None:
        return
    totals: dict[str, int] = {}
    for record in store.records(strict=False):
        for key, value in record.usage.items():
            totals[key] = totals.get(key, 0) + value
    charge(totals)


def _check_episodes(spec: RunSpec, suite: Suite, episodes: Sequence[Episode]) -> None:
    if suite.version != spec.suite_version:
        raise ConfigError(
            f"the spec names suite version {spec.suite_version!r} but suite {spec.suite!r} is "
            f"{suite.version!r}; regenerate the dataset or install the matching heedful version"
        )
    seen: set[str] = set()
    for episode_id in episode_ids(episodes):  # a lazy dataset's ids come from its index, unparsed
        if episode_id in seen:
            raise DatasetError(f"episode id {episode_id!r} appears twice in the dataset")
        seen.add(episode_id)
    actual = suite.dataset_hash(episodes)
    if actual != spec.dataset_hash:
        raise ConfigError(
            f"the episodes hash to {actual!r} but the spec says {spec.dataset_hash!r}; "
            "build the spec from the dataset you pass"
        )


def _check_training(declared: Capabilities, train: Sequence[Episode], evaluation: Sequence[Episode]) -> None:
    """Let a fitted agent refuse the run before anything is written (`check_training(train, evaluation)`
    raises a ConfigError: an empty train split, or evaluation on its own training episodes)."""
    check = declared.check_training
    if check is not None:
        check(train, evaluation)


def _make_run_dir(run_dir: Path) -> None:
    if run_dir.exists() and not run_dir.is_dir():
        raise RunError(f"run directory {run_dir} is a file; choose another --out")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RunError(f"cannot create run directory {run_dir}: {err.strerror}; choose another --out") from err


def selected_positions(spec: RunSpec, suite: Suite, episodes: Sequence[Episode]) -> list[int]:
    """Dataset positions of the episodes the run covers: all, the first `limit`, or a stratified sample of them;
    of those, with a shard I/N, the I-th of every N sampling units."""
    stratified = spec.limit is not None and spec.limit < len(episodes) and spec.order != "file"
    units = sample_units(suite, episodes) if stratified or spec.shard_parts is not None else []
    if spec.limit is None or spec.limit >= len(episodes):
        chosen = list(range(len(episodes)))
    elif spec.order == "file":
        chosen = list(range(spec.limit))
    else:
        chosen = sample_positions(units, spec.limit, spec.seed)
    return chosen if spec.shard_parts is None else shard_positions(chosen, units, spec.shard_parts)


def shard_positions(chosen: Sequence[int], units: Sequence[Any], shard: tuple[int, int]) -> list[int]:
    """The positions of `chosen` whose sampling unit's index (in `suite.sample_units` order) is I - 1 modulo N.

    The index is fixed by the dataset, not by the selection, so a resume that raises `--limit` keeps every unit
    in its shard, and the N shards of any selection are disjoint and cover it."""
    index, count = shard
    unit_of = {pos: u for u, (_, positions) in enumerate(units) for pos in positions}
    return [pos for pos in chosen if unit_of.get(pos, pos) % count == index - 1]


def _todo(
    chosen: Sequence[int], episodes: Sequence[Episode], store: RunStore, retry_failed: bool
) -> list[tuple[int, Episode]]:
    """(index, episode) pairs of the chosen episodes that still need a record."""
    done = store.done_ids(SCORED if retry_failed else set(Status)) - store.unreadable_ids()
    return [(index, episodes[index]) for index in chosen if episodes[index].episode_id not in done]


def _progress_bar(total: int, enabled: bool, desc: str) -> _Bar:
    # Imported by name so that mypy passes whether or not the types-tqdm stubs are installed.
    tqdm = importlib.import_module("tqdm").tqdm
    bar: _Bar = tqdm(total=total, unit="ep", desc=desc, file=sys.stderr, disable=not enabled, dynamic_ncols=True)
    return bar


@dataclass
class _Generated:
    """The completion tokens the records of this session report, and the wall time they took."""

    tokens: int = 0
    wall_s: float = 0.0

    def summary(self) -> dict[str, float] | None:
        if not self.tokens:
            return None
        rate = self.tokens / self.wall_s if self.wall_s > 0 else 0.0
        return {"completion_tokens": self.tokens, "wall_s": round(self.wall_s, 3), "tokens_per_s": round(rate, 2)}


def _execute(work: Work, backend: Backend, writer: BatchedWriter, progress: bool, generated: _Generated) -> int:
    """Run the work on `backend`, committing its records (marked with the run's identity) in batches, the pending
    ones on every exit; return how many were run."""
    bar = _progress_bar(len(work.todo), progress, work.spec.suite)
    batches = backend.execute(work)
    failed = 0
    started = time.monotonic()
    watch = _CrashWatch(ABORT_AFTER if len(work.todo) >= ABORT_AFTER else 0)
    try:
        for batch in batches:
            writer.add(batch)
            watch.add(batch)
            failed += sum(not record.status.scored for record in batch)
            generated.tokens += sum(record.usage.get("completion_tokens", 0) for record in batch)
            notes = [f"not scored={failed}"] if failed else []
            if generated.tokens:  # a language-model agent: how fast it generates, beside the remaining time
                generated.wall_s = time.monotonic() - started
                notes.append(f"{generated.tokens / max(generated.wall_s, 1e-9):.1f} tok/s")
            if notes:
                bar.set_postfix_str(", ".join(notes))
            bar.update(len(batch))
    finally:
        batches.close()
        bar.close()
        writer.flush()  # Ctrl-C, a budget stop or a failed worker keeps every finished record
    return writer.committed


class _CrashWatch:
    """Stops a run whose first `first` records all crashed with one error (a missing library, a broken agent):
    thousands of identical crashes tell no more than eight. The run stays resumable."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.seen: list[Record] = []

    def add(self, batch: Sequence[Record]) -> None:
        if not self.first or len(self.seen) >= self.first:
            return
        self.seen += batch[: self.first - len(self.seen)]
        if len(self.seen) < self.first:
            return
        errors = {_first_line(r.error) for r in self.seen if r.status == Status.CRASHED}
        if len(errors) == 1 and all(r.status == Status.CRASHED for r in self.seen):
            raise RunAbortedError(
                f"the first {self.first} episodes all crashed with the same error: {errors.pop()} "
                "(they are recorded as crashed; the run stopped there)"
            )


def _first_line(error: str | None) -> str:
    return (error or "").strip().splitlines()[0][:500] if (error or "").strip() else ""


def _finish(
    run_dir: Path,
    manifest: RunManifest,
    store: RunStore,
    state: RunState,
    started: float,
    reason: str | None = None,
) -> RunManifest:
    final = manifest.model_copy(
        update={
            "state": state,
            "stop_reason": reason,
            "finished_at": utc_now(),
            "counts": store.count_by_status(),
            "records_digest": store.digest(),
            "wall_time_s": manifest.wall_time_s + (time.monotonic() - started),
        }
    )
    write_manifest(run_dir, final)
    return final


def _finish_after_error(
    exc: BaseException,
    run_dir: Path,
    manifest: RunManifest,
    store: RunStore,
    state: RunState,
    started: float,
    reason: str | None = None,
) -> None:
    # Never let a failure to update the manifest hide the error that stopped the run.
    try:
        _finish(run_dir, manifest, store, state, started, reason)
    except Exception as err:
        exc.add_note(f"heedful could not mark {run_dir / MANIFEST_NAME} as {state}: {err}")
