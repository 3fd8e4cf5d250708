"""`heedful view`: a static site of one or more runs that opens from file:// offline.

The site is `index.html`, `style.css`, `app.js` and `data.js` (the runs' data as one global, loaded by a
<script> tag: browsers refuse a fetch of local files), plus the media made on demand under `media/`. It shows
each suite's figure (`heedful.api.plot`, its runs side by side; `heedful.report.site.figures`), each run's
summary and metric rows (`heedful.api.report`), the paired comparisons of runs of one suite (`heedful.api.compare`,
the first run as baseline A) and an episode browser with filters and every record's details. Nothing is inserted
into the page as HTML: untrusted texts (instructions, model output) are text nodes.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError
from heedful.staging import staged_directory


def build_site(
    runs: list[Path],
    out: Path,
    *,
    episodes: str = "failed",
    max_media: int | None = None,
    progress: bool = True,
    rerun_agents: Collection[str] = (),
) -> dict[str, Any]:
    """Write the site of `runs` into `out` and return what it wrote.

    Args:
        runs: Run directories; runs of one suite are compared to the first of them.
        out: The site's folder: new, empty, or an earlier site (replaced whole, through a staging directory).
        episodes: Which episodes get media (household replay GIFs, tabletop videos: copied from a run made with
            --video, else made from the records and kept only when the trial reproduces, see
            `heedful.report.trial_video`): "failed" (not correct), "all", "none", or a number N (the
            first N episodes of each run).
        max_media: At most this many episodes of each run get media (default `media.MAX_MEDIA`); the run's page
            says how many were left without.
        progress: Show a progress bar on stderr while media are made.
        rerun_agents: `MODULE:CLASS` agents the user lets a tabletop video re-run import (a run directory is data:
            the agent its manifest names is built only when registered or named here).

    Returns:
        {"index": path of index.html, "runs", "episodes", "media", "figures" (counts), "seconds"}.

    Raises:
        ConfigError: no run, a bad `episodes` or a `max_media` below 1.
        RunError: a path that is not a run, or a run without records.
    """
    from heedful.report.labels import short_labels
    from heedful.report.site import assets, media
    from heedful.report.site.data import comparisons, episode_entries, run_summary, to_script
    from heedful.report.site.figures import suite_figures
    from heedful.results import read_run

    start = time.perf_counter()
    if not runs:
        raise ConfigError("name at least one run directory: heedful view RUN [RUN ...] --out DIR")
    media.check_episodes(episodes)
    most = media.MAX_MEDIA if max_media is None else max_media
    if most < 1:
        raise ConfigError(f"--max-media must be at least 1, got {most} (use --episodes none for no media)")
    out = Path(out)
    _check_target(out)
    runs, language = _with_arms(runs)
    # every run read once (each view of it below is computed from this reading), and before anything is written
    read = [(f"r{i}", read_run(run)) for i, run in enumerate(runs)]
    loaded = [(run_id, run.run_dir, run.manifest, run.records) for run_id, run in read]
    summaries, entries, jobs = [], {}, []
    for run_id, run_dir, manifest, records in loaded:
        summary = run_summary(run_id, run_dir, manifest, records)
        entries[run_id] = episode_entries(run_dir, manifest, records)
        chosen, note = media.plan(manifest.spec.suite, entries[run_id], episodes, most)
        summary["media_note"] = note
        summaries.append(summary)
        jobs += [(manifest.spec.suite, run_dir, entry, f"media/{run_id}") for entry in chosen]
    labels = short_labels([manifest for _, _, manifest, _ in loaded], [run_dir for _, run_dir, _, _ in loaded])
    for summary, label in zip(summaries, labels, strict=True):
        summary["label"] = label  # side-by-side headers: the agent and the options that differ
    # built beside --out and renamed into place: an interrupted view leaves the previous site whole (or none),
    # never a page that shows another run's replays
    with staged_directory(out, force=True) as site:
        _make_media(jobs, site, progress, rerun_agents)
        figures = suite_figures(read, site)
        data = {
            "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "episodes_option": episodes,
            "runs": summaries,
            "figures": figures,
            "comparisons": comparisons(read),
            "language": language,
            "episodes": entries,
        }
        (site / "data.js").write_text(to_script(data), encoding="utf-8")
        for name, text in assets.FILES.items():
            (site / name).write_text(text, encoding="utf-8")
    made = sum(1 for _, _, entry, _ in jobs if entry["media"] and entry["media"]["kind"] != "note")
    return {
        "index": out / "index.html",
        "runs": len(summaries),
        "episodes": sum(len(e) for e in entries.values()),
        "media": made,
        "figures": sum(1 for figure in figures if figure["path"]),
        "seconds": time.perf_counter() - start,
    }


def _with_arms(paths: list[Path]) -> tuple[list[Path], list[dict[str, Any]]]:
    """The runs to show (an instruction-arms job stands for its arm runs) and the language-dependence tables: one
    per job, and one per set of the other runs that are one agent's runs of one selection under distinct arms."""
    from dataclasses import asdict

    from heedful.arms_job import arms_table, is_arms_job, job_runs
    from heedful.language.arms import arm_of
    from heedful.runner.manifest import read_manifest

    runs: list[Path] = []
    sets: list[list[Path]] = []
    plain: dict[tuple[str, str, str], list[Path]] = {}
    for path in map(Path, paths):
        if is_arms_job(path):
            members = [run for run in job_runs(path) if run.is_dir()]
            runs += members
            sets.append(members)
            continue
        runs.append(path)
        if (path / "manifest.json").is_file():
            spec = read_manifest(path).spec
            plain.setdefault((spec.suite, spec.dataset_hash, spec.agent), []).append(path)
    for members in plain.values():
        arms = [arm_of(read_manifest(run).spec.options) for run in members]
        if len(set(arms)) == len(arms) > 1 or arms == ["other"]:
            sets.append(members)
    tables = []
    for members in sets:
        suite, title, rows = arms_table(members)
        tables.append({"suite": suite, "title": title, "rows": [asdict(row) for row in rows]})
    return runs, tables


SITE_FILES = ("index.html", "data.js")
"""A directory holding both is a site `heedful view` wrote, which a new view replaces whole."""


def _check_target(out: Path) -> None:
    """Refuse to replace a non-empty directory that is not a site (`--out .` must not delete a project)."""
    if out.is_dir() and any(out.iterdir()) and not all((out / name).is_file() for name in SITE_FILES):
        raise ConfigError(
            f"--out {out} is a non-empty directory that is not a site heedful view wrote; heedful view replaces its "
            "--out whole: choose a new or empty directory"
        )


def _make_media(
    jobs: list[tuple[str, Path, dict[str, Any], str]], out: Path, progress: bool, rerun_agents: Collection[str]
) -> None:
    from heedful.report.site.media import close_videos, make

    if not jobs:
        return
    videos: dict[Path, Any] = {}  # one tabletop video maker per run: its dataset and agent load once
    # imported by name so that mypy passes whether or not the types-tqdm stubs are installed (as heedful.runner)
    tqdm = importlib.import_module("tqdm").tqdm
    try:
        with tqdm(total=len(jobs), desc="media", unit="episode", file=sys.stderr, disable=not progress) as bar:
            for suite, run_dir, entry, folder in jobs:
                make(suite, run_dir, entry, out, folder, videos, rerun_agents)
                bar.update(1)
    finally:
        close_videos(videos)
