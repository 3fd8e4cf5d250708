"""The run manifest: what was run, with what, where and when. Stored as `RUN/manifest.json`."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import heedful
from heedful.errors import RunError

MANIFEST_NAME = "manifest.json"
MANIFEST_SCHEMA_VERSION = "heedful-run/1"
GIT_TIMEOUT_S = 3.0

RunState = Literal["running", "finished", "interrupted", "failed", "stopped"]
"""`stopped`: the run ended early on purpose (its budget was spent); `stop_reason` says why. Resumable."""


class RunSpec(BaseModel):
    """What a run evaluates. Two sessions of one run (a run and its resumes) must share it, except `limit`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: str = Field(description='Registry name of the suite, e.g. "decisions".')
    suite_version: str = Field(description='Versioned dataset id, e.g. "decisions-v1".')
    dataset_hash: str = Field(description="Content hash of the full dataset (suite.dataset_hash).")
    dataset_source: str = Field(description='A dataset path, or how it was made, e.g. "generated:seed=0".')
    agent: str = Field(description="Registry name of the agent.")
    agent_args: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments of the agent.")
    seed: int = Field(description="Run seed; each episode's seed is derived from it and the episode id.")
    options: dict[str, Any] = Field(default_factory=dict, description='Suite run options, e.g. {"mask": true}.')
    limit: int | None = Field(default=None, ge=0, description="Run only `limit` episodes (see `order`).")
    order: Literal["stratified", "file"] = Field(
        default="file",
        description="Which episodes a `limit` takes: a seeded sample over the suite's groups (heedful.sampling) or "
        "the first in file order. Runs made before the field existed took the first.",
    )
    shard: str | None = Field(
        default=None,
        pattern=r"^[1-9][0-9]*/[1-9][0-9]*$",
        description="'I/N': this run covers the I-th of N disjoint parts of the selected episodes (every N-th "
        "sampling unit, so a decisions family stays whole); the shards of one run share its identity and "
        "`heedful merge` joins them into one run.",
    )

    @property
    def shard_parts(self) -> tuple[int, int] | None:
        """(I, N) of `shard`, or None for a run made in one piece."""
        if self.shard is None:
            return None
        index, count = self.shard.split("/")
        return int(index), int(count)


class RunManifest(BaseModel):
    """Everything needed to tell what a run directory holds and how it was produced."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = MANIFEST_SCHEMA_VERSION
    spec: RunSpec
    heedful_version: str
    git_revision: str | None = Field(default=None, description="HEAD of the heedful source checkout, if any.")
    git_dirty: bool | None = Field(default=None, description="Whether that checkout had uncommitted changes.")
    python_version: str
    platform: str
    started_at: str = Field(description="UTC ISO time the run was first started.")
    finished_at: str | None = Field(default=None, description="UTC ISO time the last session ended.")
    state: RunState = "running"
    stop_reason: str | None = Field(default=None, description="Why a `stopped` or `failed` run ended.")
    agent: dict[str, Any] = Field(default_factory=dict, description="The agent's own description.")
    counts: dict[str, int] = Field(default_factory=dict, description="Stored records per status.")
    wall_time_s: float = Field(default=0.0, description="Wall time summed over every session of the run.")
    generation: dict[str, float] | None = Field(
        default=None,
        description="Language-model agents: the last session's completion tokens, their wall time and tokens per "
        "second, as measured (the embedded server's threads are under agent.server).",
    )
    sessions: int = Field(default=1, description="How many times the run was started or resumed.")
    workers: int = Field(default=1, description="Worker processes (or Ray actors) of the last session.")
    backend: str = Field(
        default="local", description="Where the last session ran: local, or ray (with the cluster's address)."
    )
    planned: int | None = Field(
        default=None, description="Episodes the run covers: the selected split and options, cut to `limit`."
    )
    available: int | None = Field(default=None, description="Episodes of the selection before `limit` cut it.")
    run_identity: str | None = Field(
        default=None,
        description="Short hash of what decides the results (suite, dataset, agent and its arguments, options, seed); "
        "every record the run stores carries it (None in runs made before it was recorded).",
    )


def utc_now() -> str:
    """The current UTC time as an ISO string with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(package_dir: Path | None = None) -> tuple[str | None, bool | None]:
    """Return (HEAD revision, dirty) of the heedful source checkout, or (None, None). Never raises.

    The package must be tracked by the repository: an installed copy that merely sits inside some other
    checkout (a virtual environment in a project repo) must not report that project's revision.
    """
    where = package_dir or Path(heedful.__file__).resolve().parent
    if _git(["ls-files", "--error-unmatch", "__init__.py"], where) is None:
        return None, None
    revision = _git(["rev-parse", "HEAD"], where)
    if revision is None:
        return None, None
    status = _git(["status", "--porcelain", "--untracked-files=no", "--", "."], where)
    return revision, (None if status is None else bool(status))


RESUMABLE_FIELDS = frozenset({"limit", "dataset_source", "order"})
"""Spec fields a resume may change: the limit may grow (in the same `order`: the runner checks), and the dataset may
be named by another path (or be generated again) as long as its content hash, which is compared, is the same."""


SHARD_FIELD = "shard"
"""Not part of a run's identity: the shards of one run produce records of that one run (`heedful merge`)."""


def run_identity(spec: RunSpec, session_args: frozenset[str] = frozenset()) -> str:
    """Short hash of the spec without what a resume may change (RESUMABLE_FIELDS, the agent's session arguments)
    and without its shard."""
    fields = spec.model_dump(mode="json", exclude=set(RESUMABLE_FIELDS) | {SHARD_FIELD})
    fields["agent_args"] = {k: v for k, v in fields["agent_args"].items() if k not in session_args}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def new_manifest(
    spec: RunSpec, agent: dict[str, Any], workers: int, session_args: frozenset[str] = frozenset()
) -> RunManifest:
    """A manifest for a run that starts now, with this interpreter's and checkout's facts."""
    revision, dirty = git_state()
    return RunManifest(
        spec=spec,
        heedful_version=heedful.__version__,
        git_revision=revision,
        git_dirty=dirty,
        python_version=platform.python_version(),
        platform=platform.platform(),
        started_at=utc_now(),
        agent=agent,
        workers=workers,
        run_identity=run_identity(spec, session_args),
    )


def spec_differences(stored: RunSpec, requested: RunSpec) -> list[str]:
    """Names of the fields (other than those in RESUMABLE_FIELDS) in which two specs differ."""
    old, new = stored.model_dump(mode="json"), requested.model_dump(mode="json")
    return [name for name in RunSpec.model_fields if name not in RESUMABLE_FIELDS and old[name] != new[name]]


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Write `run_dir/manifest.json` atomically: a reader sees the old file or the new one, never half."""
    text = json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".tmp", dir=run_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, run_dir / MANIFEST_NAME)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _near_runs(run_dir: Path) -> str:
    """' (did you mean X?)' naming the closest run directory beside `run_dir`, or where the runs there are."""
    from heedful.registry import suggest

    parent = run_dir.parent
    try:
        runs = sorted(p.name for p in parent.iterdir() if (p / MANIFEST_NAME).is_file())
    except OSError:  # the parent is missing too, or unreadable
        return ""
    near = suggest(run_dir.name, runs)
    if near:
        return near.replace(repr(near.split("'")[1]), repr(str(parent / near.split("'")[1])))
    return f"; the runs in {parent} are: {', '.join(runs[:10])}" if runs else ""


def read_manifest(run_dir: Path) -> RunManifest:
    """Read and validate `run_dir/manifest.json`; raise RunError if it is missing or malformed."""
    path = run_dir / MANIFEST_NAME
    if not path.is_file():
        if not run_dir.exists():
            raise RunError(f"no run directory {run_dir}{_near_runs(run_dir)}")
        raise RunError(f"no {MANIFEST_NAME} in {run_dir}: is this a run directory made by `heedful run`?")
    try:
        return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError) as err:
        raise RunError(f"{path} is not a valid run manifest: {err}") from err
