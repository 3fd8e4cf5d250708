"""The exit code of a stored run (`heedful.outcome`): read from its manifest and record store."""

from __future__ import annotations

from pathlib import Path

from heedful.outcome import MaxErrors, Verdict, verdict
from heedful.runner.manifest import RunManifest
from heedful.runner.store import RECORDS_NAME, RunStore


def run_verdict(run_dir: Path, manifest: RunManifest, max_errors: MaxErrors = MaxErrors()) -> Verdict:  # noqa: B008
    """The verdict of the run in `run_dir` (whose manifest the caller has read and checked)."""
    counts: dict[str, int] = {}
    errors: dict[str, int] = {}
    if (Path(run_dir) / RECORDS_NAME).is_file():
        with RunStore(Path(run_dir)) as store:
            counts, errors = store.count_by_status(), store.error_counts()
    return verdict(f"run {run_dir}", counts, manifest.planned, manifest.state, errors, max_errors)
