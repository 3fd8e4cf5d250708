"""Opening a run directory's manifest: a new run's, or the stored one for a resume (which must ask for the same run)."""

from __future__ import annotations

from pathlib import Path

from heedful.errors import RunError
from heedful.records import AgentDescription
from heedful.runner.lock import LOCK_NAME
from heedful.runner.manifest import (
    MANIFEST_NAME,
    RunManifest,
    RunSpec,
    new_manifest,
    read_manifest,
    run_identity,
    spec_differences,
    write_manifest,
)
from heedful.runner.store import RECORDS_NAME, stored_records


def _limit_key(limit: int | None) -> float:
    return float("inf") if limit is None else float(limit)


def open_manifest(
    spec: RunSpec, run_dir: Path, resume: bool, agent: AgentDescription, workers: int, session_args: frozenset[str]
) -> RunManifest:
    """Create the run directory's manifest, or reopen the stored one for a resume (the caller holds the lock)."""
    if (run_dir / MANIFEST_NAME).exists():
        if not resume:
            raise RunError(
                f"run directory {run_dir} already holds a run; pass --resume to continue it or choose another --out"
            )
        return _resumed_manifest(read_manifest(run_dir), spec, run_dir, agent, workers, session_args)
    if stored_records(run_dir):
        # never adopt records without the manifest that says which agent and options produced them
        raise RunError(
            f"run directory {run_dir} holds records ({RECORDS_NAME}) but no {MANIFEST_NAME}, so nothing says which "
            "agent and options produced them; heedful will not adopt them: run again into a new --out "
            f"(the records stay in {run_dir / RECORDS_NAME})"
        )
    # the lock, and an empty store a reader may have created while polling, are not someone else's files
    others = [p for p in run_dir.iterdir() if p.name != LOCK_NAME and not p.name.startswith(RECORDS_NAME)]
    if not resume and others:
        raise RunError(
            f"run directory {run_dir} is not empty but holds no run; choose another --out "
            "(or pass --resume to start a run in it anyway)"
        )
    manifest = new_manifest(spec, agent, workers, session_args)
    write_manifest(run_dir, manifest)
    return manifest


def _verify_stored_records(run_dir: Path, stored: RunManifest) -> None:
    """A resume never extends a run whose records were edited after they were written."""
    from heedful.runner.store import RunStore

    if stored_records(run_dir):
        with RunStore(run_dir) as store:
            store.check_producer(stored.run_identity)
            store.verify(stored)


def _without_session_args(spec: RunSpec, session_args: frozenset[str]) -> RunSpec:
    kept = {key: value for key, value in spec.agent_args.items() if key not in session_args}
    return spec.model_copy(update={"agent_args": kept})


SERVER_IDENTITY = "server_metadata_sha256"
"""The key of an agent's description naming the policy behind its server(s) (the digest of the server metadata)."""


def _check_same_server(stored: AgentDescription, now: AgentDescription, run_dir: Path) -> None:
    """Refuse a resume whose server reports another policy than the stored run's (a digest of its metadata)."""
    before, after = stored.get(SERVER_IDENTITY), now.get(SERVER_IDENTITY)
    if before is not None and before != after:
        raise RunError(
            f"cannot resume {run_dir}: the policy server's metadata differs from the stored run's ({SERVER_IDENTITY}: "
            f"stored {before}, now {after}): another policy would answer the rest of the run; start a new run with "
            "another --out"
        )


def _resumed_manifest(
    stored: RunManifest,
    spec: RunSpec,
    run_dir: Path,
    agent: AgentDescription,
    workers: int,
    session_args: frozenset[str],
) -> RunManifest:
    # Session arguments (a budget, a timeout) may change on resume; everything that decides results may not.
    differing = spec_differences(
        _without_session_args(stored.spec, session_args), _without_session_args(spec, session_args)
    )
    if "suite_version" in differing:
        raise RunError(
            f"cannot resume {run_dir}: it holds a {stored.spec.suite_version} run, but this heedful runs "
            f"{spec.suite_version} (the benchmark was regenerated, so the records would not be comparable); "
            "start a new run with another --out"
        )
    if differing:
        old, new = stored.spec.model_dump(mode="json"), spec.model_dump(mode="json")
        details = "; ".join(f"{name}: stored {old[name]!r}, requested {new[name]!r}" for name in differing)
        raise RunError(
            f"cannot resume {run_dir}: the request differs from the stored run in "
            f"{', '.join(differing)} ({details}); start a new run with another --out"
        )
    _check_same_server(stored.agent, agent, run_dir)
    if spec.limit is not None and stored.spec.limit is not None and spec.order != stored.spec.order:
        raise RunError(
            f"cannot resume {run_dir} with --order {spec.order}: its --limit sample was drawn in {stored.spec.order} "
            f"order; resume with --order {stored.spec.order} (or without --limit, to run every episode)"
        )
    if _limit_key(spec.limit) < _limit_key(stored.spec.limit):
        raise RunError(
            f"cannot resume {run_dir} with limit {spec.limit}: it already covers limit {stored.spec.limit}; "
            "a resume may keep or raise the limit"
        )
    _verify_stored_records(run_dir, stored)
    manifest = stored.model_copy(
        update={
            "run_identity": stored.run_identity or run_identity(stored.spec, session_args),
            "session_args": sorted(session_args),
            "spec": spec,
            "state": "running",
            "stop_reason": None,
            "finished_at": None,
            "agent": agent,
            "sessions": stored.sessions + 1,
            "workers": workers,
        }
    )
    write_manifest(run_dir, manifest)
    return manifest
