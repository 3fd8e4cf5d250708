"""Instruction-arm jobs: one agent's runs of one selection under several arms, and their language-dependence table.

`heedful run SUITE --agent A --arms given,empty,other --out JOB` runs each arm as its own run directory
`JOB/ARM` (an ordinary run: resumable, reported, compared like any other) and writes `JOB/arms.json` naming them.
`heedful report JOB` and `heedful compare JOB` print the table of `heedful.metrics.arms`; `heedful compare A B` adds
it when A and B are two arms of one selection, and `heedful report RUN` of an `other` run adds its
counterfactual-following rates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.errors import ConfigError, RunError
from heedful.language.arms import OPTION, Arm, arm_of
from heedful.metrics.arms import ArmRow, ArmsView, language_dependence, render_language_table
from heedful.metrics.rows import status_rows
from heedful.records import Record
from heedful.suites.declared import DeclaredSuite
from heedful.suites.registry import get_suite

if TYPE_CHECKING:
    from heedful.runner.manifest import RunManifest

ARMS_FILE = "arms.json"


def write_job(job: Path, suite: str, agent: str, arms: Sequence[Arm]) -> None:
    """Create the job directory with its `arms.json` (the same arms on a resume; RunError otherwise)."""
    job.mkdir(parents=True, exist_ok=True)
    entry = {"suite": suite, "agent": agent, "arms": list(arms)}
    path = job / ARMS_FILE
    if path.is_file() and json.loads(path.read_text(encoding="utf-8")) != entry:
        raise RunError(
            f"{job} holds another arms job ({path.read_text(encoding='utf-8').strip()}); choose another --out"
        )
    path.write_text(json.dumps(entry, indent=1) + "\n", encoding="utf-8")


def is_arms_job(path: Path) -> bool:
    return (Path(path) / ARMS_FILE).is_file()


def job_runs(job: Path) -> list[Path]:
    """The run directories of a job, in its arms' order."""
    entry = json.loads((Path(job) / ARMS_FILE).read_text(encoding="utf-8"))
    return [Path(job) / str(arm) for arm in entry["arms"]]


def _load(runs: Sequence[Path]) -> tuple[RunManifest, dict[str, list[Record]]]:
    """(first manifest, arm -> records) of runs of one agent on one selection under distinct arms."""
    from heedful.runner.store import load_run

    manifest0 = None
    by_arm: dict[str, list[Record]] = {}
    for run in runs:
        manifest, records = load_run(Path(run))
        arm = arm_of(manifest.spec.options)
        if manifest0 is None:
            manifest0 = manifest
        elif (manifest.spec.suite, manifest.spec.dataset_hash, manifest.spec.agent) != (
            manifest0.spec.suite,
            manifest0.spec.dataset_hash,
            manifest0.spec.agent,
        ):
            raise RunError(f"{run} is not a run of the same suite, dataset and agent as {runs[0]}")
        if arm in by_arm:
            raise RunError(f"two of the runs are under the arm {arm!r}; name one run per arm")
        by_arm[arm] = records
    if manifest0 is None:
        raise ConfigError("name at least one run")
    return manifest0, by_arm


def arms_table(runs: Sequence[Path], *, resamples: int = 2_000, seed: int = 0) -> tuple[str, str, list[ArmRow]]:
    """(suite, title, rows) of the language-dependence table of runs under distinct arms (one agent, one selection)."""
    manifest, by_arm = _load(runs)
    _, title, rows = _table(manifest, by_arm, resamples=resamples, seed=seed)
    return manifest.spec.suite, title, rows


def arms_view(suite: str) -> ArmsView:
    """How the suite's table is cut (its scoring's `arms`); the generic cut for a suite without a declared scoring."""
    found = get_suite(suite)
    scoring = found.scoring if isinstance(found, DeclaredSuite) else None
    return scoring.arms if scoring is not None else ArmsView()


def _table(
    manifest: RunManifest, by_arm: Mapping[str, Sequence[Record]], *, resamples: int, seed: int
) -> tuple[ArmsView, str, list[ArmRow]]:
    """(the suite's cut, title, rows) of the table of runs already read (`_load`)."""
    suite, agent = manifest.spec.suite, manifest.spec.agent
    view = arms_view(suite)
    rows = language_dependence(view, by_arm, resamples=resamples, seed=seed)
    from heedful.report.flags import flag_suffix

    arms = ", ".join(by_arm)
    dataset = manifest.spec.dataset_hash[:19]
    title = f"Language dependence | {suite} | agent {agent}{flag_suffix(manifest)} | arms {arms} | dataset {dataset}"
    return view, title, rows


def arms_figure(job: Path, out: Path, *, resamples: int = 2_000, seed: int = 0) -> Path:
    """`heedful plot JOB --out FILE`: the language-dependence figure of an arms job."""
    from heedful.report.arms_plot import write_arms_figure

    suite, title, rows = arms_table([run for run in job_runs(job) if run.is_dir()], resamples=resamples, seed=seed)
    write_arms_figure(arms_view(suite).score, rows, Path(out), title.split(" | dataset")[0])
    return Path(out)


def arms_text(runs: Sequence[Path], *, resamples: int = 2_000, seed: int = 0) -> str:
    """The language-dependence table of runs under distinct arms (one agent, one selection)."""
    manifest, by_arm = _load(runs)  # read once: the table and the status line share the records
    view, title, rows = _table(manifest, by_arm, resamples=resamples, seed=seed)
    if manifest.privileged:
        title += (
            "\n(a privileged agent reads the task, not the words: under empty and shuffled it keeps the episode's task)"
        )
    return render_language_table(view, rows, f"{title}\n{arm_status_line(by_arm)}")


def arm_status_line(by_arm: Mapping[str, Sequence[Record]]) -> str:
    """Each arm's record statuses, so a row of zeros says whether the agent answered wrongly or could not answer
    (a parse error is scored as a failure, as the papers count it; a crash or a timeout is not scored)."""
    parts = [
        f"{arm} " + ", ".join(f"{row.metric} {row.k}" for row in status_rows(records))
        for arm, records in by_arm.items()
    ]
    return "status: " + "; ".join(parts)


def following_text(run: Path, *, seed: int = 0) -> str | None:
    """The counterfactual-following table of one run under `other` (None for any other arm)."""
    from heedful.runner.manifest import read_manifest

    if read_manifest(Path(run)).spec.options.get(OPTION) != "other":
        return None
    return arms_text([run], seed=seed)


def paired_arms(run_a: Path, run_b: Path) -> bool:
    """Whether two runs are one selection under two different arms (then `heedful compare` adds the table)."""
    from heedful.runner.manifest import read_manifest

    a, b = read_manifest(Path(run_a)).spec, read_manifest(Path(run_b)).spec
    same = (a.suite, a.dataset_hash, a.agent) == (b.suite, b.dataset_hash, b.agent)
    return same and arm_of(a.options) != arm_of(b.options)
