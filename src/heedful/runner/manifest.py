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

from heedful.errors import RunError, SchemaVersionError, TamperedError
from heedful.records import AgentDescription
from heedful.runner.stateless import StatelessAudit
from heedful.version import PACKAGE_DIR, installed_version

MANIFEST_NAME = "manifest.json"
MANIFEST_SCHEMA_VERSION = "heedful-run/2"
"""/2: the manifest carries its own digest, the digest of the run's records when it stopped, and the agent's session
arguments (so the run identity can be recomputed on every read). /1 manifests are still read, without those checks."""
READABLE_SCHEMAS = ("heedful-run/1", MANIFEST_SCHEMA_VERSION)
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
    agent: AgentDescription = Field(default_factory=dict, description="The agent's own description.")
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
    servers: dict[str, dict[str, Any]] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="A pool of servers (an agent declaring `server_counts`): per server, the answers it gave, its "
        "failures and why it was out of rotation (None: never), in the last session. Absent otherwise.",
    )
    renderers: list[dict[str, Any]] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The OpenGL renderers the last session's workers drew their images with (heedful.sims.gl_devices): "
        "per distinct renderer, the MUJOCO_GL platform, the EGL device asked for (None: MuJoCo's choice), GL_VENDOR, "
        "GL_RENDERER and GL_VERSION as the context reported them, and the workers that used it. Absent when nothing "
        "rendered.",
    )
    run_identity: str | None = Field(
        default=None,
        description="Short hash of what decides the results (suite, dataset, agent and its arguments, options, seed); "
        "every record the run stores carries it (None in runs made before it was recorded).",
    )
    session_args: list[str] | None = Field(
        default=None,
        description="The agent's arguments a resume may change (left out of the run identity); None before /2.",
    )
    records_digest: str | None = Field(
        default=None,
        description="Digest of every stored record (RunStore.digest) when the run last stopped; readers refuse a "
        "store that no longer matches it. None while a run has not yet stopped once, and before /2.",
    )
    manifest_digest: str | None = Field(
        default=None, description="sha256 of this manifest without this field: a hand edit is refused. None before /2."
    )
    privileged: bool | None = Field(
        default=None,
        description="Whether the agent declared `privileged` (it was handed the ground truth: not a language agent); "
        "None in runs made before the declaration was recorded.",
    )
    stateless_audit: StatelessAudit | None = Field(
        default=None,
        description="What `heedful run --audit-stateless K` found: K episodes replayed on a fresh agent in another "
        "order (heedful.runner.stateless); None when no audit ran.",
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
    where = package_dir or PACKAGE_DIR
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
    spec: RunSpec, agent: AgentDescription, workers: int, session_args: frozenset[str] = frozenset()
) -> RunManifest:
    """A manifest for a run that starts now, with this interpreter's and checkout's facts."""
    revision, dirty = git_state()
    return RunManifest(
        spec=spec,
        heedful_version=installed_version(),
        git_revision=revision,
        git_dirty=dirty,
        python_version=platform.python_version(),
        platform=platform.platform(),
        started_at=utc_now(),
        agent=agent,
        workers=workers,
        run_identity=run_identity(spec, session_args),
        session_args=sorted(session_args),
    )


def spec_differences(stored: RunSpec, requested: RunSpec) -> list[str]:
    """Names of the fields (other than those in RESUMABLE_FIELDS) in which two specs differ."""
    old, new = stored.model_dump(mode="json"), requested.model_dump(mode="json")
    return [name for name in RunSpec.model_fields if name not in RESUMABLE_FIELDS and old[name] != new[name]]


def manifest_digest(data: dict[str, Any]) -> str:
    """sha256 of a manifest's JSON fields other than `manifest_digest`."""
    body = {key: value for key, value in data.items() if key != "manifest_digest"}
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Write `run_dir/manifest.json` atomically (a reader sees the old file or the new one, never half), as the
    current schema version and with its own digest."""
    from heedful.redact import redact_value

    # an error a server echoed a key into (a stop reason, a pool's out-of-rotation reason) never reaches the file
    data = redact_value(manifest.model_dump(mode="json"))
    data["schema_version"] = MANIFEST_SCHEMA_VERSION
    data["manifest_digest"] = manifest_digest(data)
    text = json.dumps(data, indent=2, sort_keys=False) + "\n"
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
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise RunError(f"{path} is not a valid run manifest: {err}") from err
    if not isinstance(data, dict):
        raise RunError(f"{path} is not a valid run manifest: not a JSON object")
    _check_schema(path, data)
    version = data["schema_version"]
    try:
        manifest = RunManifest.model_validate(data)
    except (ValidationError, ValueError) as err:
        raise RunError(f"{path} is not a valid run manifest: {err}") from err
    if version != "heedful-run/1":
        _check_current(path, data, manifest)
    return manifest.model_copy(update={"manifest_digest": None})  # checked; written again on every write


def _check_schema(path: Path, data: dict[str, Any]) -> None:
    """Every manifest heedful wrote names its schema version (since heedful-run/1); refuse one it does not read.

    Raises:
        SchemaVersionError: naming the file, the version found (or none), the versions read and how to fix it.
    """
    version = data.get("schema_version")
    if version in READABLE_SCHEMAS:
        return
    writer = data.get("heedful_version")
    by = f" (written by heedful {writer})" if isinstance(writer, str) else ""
    found = "no schema_version" if version is None else f"schema_version {version!r}"
    raise SchemaVersionError(
        f"{path} has {found}{by}; this heedful ({installed_version()}) reads {', '.join(READABLE_SCHEMAS)}: "
        "a newer heedful wrote it (upgrade heedful: pip install --upgrade heedful, or read it with the heedful that "
        "made it), or heedful did not write it (run it again with this heedful into a new --out)"
    )


def _check_current(path: Path, data: dict[str, Any], manifest: RunManifest) -> None:
    """A /2 manifest must carry its digest and identity, and both must match what it says."""
    if data.get("manifest_digest") != manifest_digest(data):
        raise TamperedError(
            f"{path} was edited after heedful wrote it (its manifest_digest does not match its content); heedful "
            "will not read a run whose manifest was changed by hand (run it again into a new --out)"
        )
    if manifest.run_identity is None or manifest.session_args is None:
        raise TamperedError(f"{path} lacks its run_identity or session_args; heedful will not read it")
    expected = run_identity(manifest.spec, frozenset(manifest.session_args))
    if manifest.run_identity != expected:
        raise TamperedError(
            f"{path}: run_identity {manifest.run_identity} is not the identity of its spec ({expected}): the spec "
            "(agent, arguments, seed, options, dataset) was changed after the run; heedful will not read it"
        )
