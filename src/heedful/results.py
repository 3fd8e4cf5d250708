"""Reading runs: reports, paper formats, figures and paired comparisons (`heedful report`, `plot`, `compare`).

Re-exported by `heedful.api`, the Python API behind the command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from heedful.errors import ConfigError, RunError
from heedful.metrics.rows import MetricRow
from heedful.records import Record
from heedful.report.flags import flag_suffix, run_flags

if TYPE_CHECKING:
    from heedful.metrics.compare import ComparisonRow
    from heedful.suites.base import Suite


def run_records(run_dir: Path | str) -> tuple[Any, list[Record]]:
    from heedful.runner import load_run

    manifest, records = load_run(Path(run_dir))
    if not records:
        raise RunError(f"run {run_dir} has no records yet; start it with `heedful run`")
    return manifest, records


class ReadRun(NamedTuple):
    """A run read once (`read_run`): its directory, manifest and records. Every reading function here takes one in
    place of a run directory, so that a command showing a run several ways (`heedful view`) reads it once."""

    run_dir: Path
    manifest: Any
    records: list[Record]


def read_run(run_dir: Path | str) -> ReadRun:
    """Read a run's manifest and records (checked, `heedful.runner.load_run`).

    Raises:
        RunError: not a run, or a run without records.
    """
    manifest, records = run_records(run_dir)
    return ReadRun(Path(run_dir), manifest, records)


RunLike = Path | str | ReadRun
"""A run directory, or a run already read."""


def _read(run: RunLike) -> tuple[Any, list[Record]]:
    return (run.manifest, run.records) if isinstance(run, ReadRun) else run_records(run)


def report(
    run_dir: RunLike, *, resamples: int = 10_000, cluster: str | None = None, seed: int = 0
) -> tuple[list[MetricRow], str]:
    """Metric rows of a run (a directory, or a run already read) and a one-line title describing it."""
    found = _report(run_dir, resamples=resamples, cluster=cluster, seed=seed)
    return found.rows, found.title


def report_text(
    run_dir: RunLike,
    *,
    format: str = "table",
    resamples: int = 10_000,
    cluster: str | None = None,
    seed: int = 0,
    full: bool = True,
) -> str:
    """The report as text in `format` (heedful.report.REPORT_FORMATS): "table", the terminal table in the suite's
    own layout with a usage line for model runs; "json" or "csv", every row; "markdown" or "latex", the suite's
    paper tables and then every row (booktabs `table` floats with a caption naming suite, agent and records).
    `full=False` makes "table" the short report `heedful report` prints, which leads with the headline table."""
    from heedful.report.formats import check_format, render

    check_format(format)
    found = _report(run_dir, resamples=resamples, cluster=cluster, seed=seed)
    return render(
        format,
        found.suite,
        found.rows,
        title=found.title,
        caption=found.caption,
        agent=found.manifest.spec.agent,
        flags=run_flags(found.manifest),
        full=full,
        run=str(run_dir.run_dir if isinstance(run_dir, ReadRun) else run_dir),
    )


class _Report(NamedTuple):
    suite: Suite
    manifest: Any
    rows: list[MetricRow]
    title: str
    caption: str
    """Suite, agent and records, for a table's caption."""
    records: int


def _report(run_dir: RunLike, *, resamples: int, cluster: str | None, seed: int) -> _Report:
    from heedful.metrics.usage import usage_rows
    from heedful.suites.registry import get_suite

    manifest, records = _read(run_dir)
    spec = manifest.spec
    suite = get_suite(spec.suite)
    clusters = tuple(suite.report_clusters)
    if cluster is not None and cluster not in clusters:
        raise ConfigError(
            f"{spec.suite} reports resample by {' or '.join(clusters)}, not {cluster!r}; "
            f"drop --cluster or choose {', '.join(clusters)}"
        )
    rows = suite.report(records, {"resamples": resamples, "cluster": cluster or clusters[0], "seed": seed})
    if len(suite.metric_spec):  # a suite that declares its metrics reports no other
        suite.metric_spec.check(rows, spec.suite)
    rows += usage_rows(records, wall_time_s=manifest.wall_time_s, prices=manifest.agent.get("prices"))
    mode = _run_mode(suite, spec.options)
    if "constrained" in manifest.agent:  # language-model agents say how the answer format was enforced
        mode += " | output " + ("constrained (json_schema)" if manifest.agent["constrained"] else "unconstrained")
    coverage = _coverage(suite, manifest, len(records))
    title = (
        f"{spec.suite} | agent {spec.agent}{flag_suffix(manifest)}{mode} | {coverage} | "
        f"state {manifest.state} | "
        f"dataset {spec.dataset_hash[:19]}{_servers_note(manifest.servers)}"
    )
    caption = f"{spec.suite} suite, agent {run_name(manifest, suite)}: {coverage}"
    return _Report(suite, manifest, rows, title, caption, len(records))


def _servers_note(servers: dict[str, dict[str, Any]] | None) -> str:
    """A pool's per-server counts for the report's title: who answered how much, who failed, who left rotation."""
    if not servers:
        return ""
    parts = [
        f"{url} answered {c.get('answered', 0)}, failed {c.get('failed', 0)}"
        + (" (out of rotation)" if c.get("out_of_rotation") else "")
        for url, c in servers.items()
    ]
    return " | servers: " + "; ".join(parts)


def plot(runs: Sequence[RunLike], out: Path | str, *, resamples: int = 10_000, seed: int = 0) -> Path:
    """Draw the main figure of one suite's runs into `out` (.pdf or .svg, vector; .png) and return its path: the
    suite's `figure` layout filled with each run's report rows, several runs side by side (one bar per run, the
    legend naming each run's agent). See `heedful plot --help`.

    Raises:
        ConfigError: no run, an unknown extension, or runs of different suites.
        MissingDependencyError: matplotlib is not installed (heedful[plots]).
        RunError: a path that is not a run.
    """
    from heedful.metrics.scoring import reference_of
    from heedful.report.labels import short_labels
    from heedful.report.plot import RunRows, figure_format, figure_title, require_matplotlib, write_figure
    from heedful.runner.manifest import read_manifest

    out = Path(out)
    figure_format(out)  # a wrong extension, a missing matplotlib or mixed suites fail before any report is computed
    require_matplotlib()
    if not runs:
        raise ConfigError("name at least one run directory to plot: heedful plot RUN [RUN ...] --out FIG.pdf")
    suites = [(run.manifest if isinstance(run, ReadRun) else read_manifest(Path(run))).spec.suite for run in runs]
    if len(set(suites)) > 1:
        listed = ", ".join(
            f"{run.run_dir if isinstance(run, ReadRun) else run} ({suite})"
            for run, suite in zip(runs, suites, strict=True)
        )
        raise ConfigError(
            f"runs of different suites cannot share a figure: {listed}; plot each suite's runs with its own "
            "heedful plot command"
        )
    found = [_report(run, resamples=resamples, cluster=None, seed=seed) for run in runs]
    layout = found[0].suite.figure
    if layout is None:
        raise ConfigError(f"suite {suites[0]} declares no figure (Suite.figure); use heedful report")
    if len(found) == 1:
        labels = [run_name(found[0].manifest, found[0].suite)]
    else:  # the agent and the options that differ: what tells the bars apart
        dirs = [run.run_dir if isinstance(run, ReadRun) else Path(run) for run in runs]
        labels = short_labels([f.manifest for f in found], dirs)
    series = [RunRows(label, f.rows) for label, f in zip(labels, found, strict=True)]
    title = figure_title(suites[0], [f.records for f in found])
    write_figure(layout, series, out, title, reference_label=reference_of(found[0].suite).label)
    return out


def _coverage(suite: Suite, manifest: Any, n: int) -> str:
    """ "N records", or "partial: N of M planned" for a run that has not covered what it set out to; and what a
    --limit left out."""
    planned, available = manifest.planned, manifest.available
    text = f"{n} records"
    if planned is not None and (n < planned or manifest.state != "finished"):
        text = f"partial: {n} of {planned} planned"
    if manifest.spec.shard_parts is not None:
        parts = manifest.spec.shard_parts[1]
        text += f" (shard {manifest.spec.shard}: one of {parts} disjoint parts, whole sampling units)"
    limited = manifest.spec.limit is not None and manifest.spec.shard is None
    if limited and planned is not None and available is not None and planned < available:
        if manifest.spec.order == "stratified":
            text += f" (--limit: a sample of {planned} of {available} episodes, stratified by {suite.sample_strata})"
        else:
            text += f" (--limit: the first {planned} of {available} episodes in file order)"
    return text


def describe_run(run_dir: Path | str) -> str:
    """One line naming a run: directory, agent (and model), the suite's run label (decisions: condition), records."""
    from heedful.suites.registry import get_suite

    manifest, records = run_records(run_dir)
    return _run_line(run_dir, manifest, records, get_suite(manifest.spec.suite))


def _run_line(run_dir: Path | str, manifest: Any, records: Sequence[Record], suite: Suite) -> str:
    spec = manifest.spec
    model = manifest.agent.get("model")
    agent = f"{spec.agent} {model}" if model else spec.agent
    return f"{run_dir} | agent {agent}{flag_suffix(manifest)}{_run_mode(suite, spec.options)} | {len(records)} records"


def run_name(manifest: Any, suite: Suite) -> str:
    """The agent of a run as legends and captions name it: its name, its model, its flags, how the run showed the
    episodes (e.g. "llm SmolLM2-135M (masked)", "oracle [privileged: not a language agent]")."""
    model = manifest.agent.get("model")
    agent = (f"{manifest.spec.agent} {model}" if model else str(manifest.spec.agent)) + flag_suffix(manifest)
    parts = [part.strip() for part in _run_mode(suite, manifest.spec.options).split("|")]
    mode = [part[1:-1] if part[:1] + part[-1:] == "()" else part for part in parts if part]
    return f"{agent} ({', '.join(mode)})" if mode else agent


def _run_mode(suite: Suite, options: dict[str, Any]) -> str:
    """How a run was shown its episodes, for titles: the suite's own label of its run options (decisions:
    masking and the condition; household: the perception condition), and the instruction arm when one was asked
    for (`heedful.language.arms`), and a mid-episode re-instruction (`heedful.language.reinstruct`)."""
    arm = options.get("instruction")
    switch = options.get("reinstruct")
    label = str(suite.run_label(options)) + (f" | instruction {arm}" if arm else "")
    return label + (f" | re-instructed {switch}" if switch else "")


def pairing_line(records_a: Sequence[Record], records_b: Sequence[Record]) -> str:
    """How many episodes a comparison pairs, and what it leaves out of each run."""
    ids_a, ids_b = {r.episode_id for r in records_a}, {r.episode_id for r in records_b}
    scored_a = {r.episode_id for r in records_a if r.status.scored}
    scored_b = {r.episode_id for r in records_b if r.status.scored}
    paired = len(scored_a & scored_b)
    unscored = len(ids_a & ids_b) - paired
    return (
        f"paired {paired} episodes scored in both runs (A holds {len(ids_a)}, B {len(ids_b)}; "
        f"{len(ids_a - ids_b)} only in A, {len(ids_b - ids_a)} only in B, {unscored} not scored in one of them)"
    )


def compare(
    run_a: RunLike, run_b: RunLike, *, resamples: int = 10_000, seed: int = 0, strict: bool = False
) -> list[ComparisonRow]:
    """Paired comparison of two runs (directories, or runs already read) of one suite on the same dataset; with
    `strict`, only of two runs that hold the same episodes."""
    return _paired(_read(run_a), _read(run_b), resamples=resamples, seed=seed, strict=strict)[1]


def _paired(
    run_a: tuple[Any, list[Record]], run_b: tuple[Any, list[Record]], *, resamples: int, seed: int, strict: bool
) -> tuple[Suite, list[ComparisonRow]]:
    """The suite and the comparison rows of two runs already read (each run's records are read once)."""
    from heedful.suites.registry import get_suite

    (manifest_a, records_a), (manifest_b, records_b) = run_a, run_b
    if strict and {r.episode_id for r in records_a} != {r.episode_id for r in records_b}:
        raise RunError(
            f"--strict: the runs hold different episodes ({pairing_line(records_a, records_b)}); "
            "resume the shorter run to the same --limit, or drop --strict to compare the shared ones"
        )
    if manifest_a.spec.suite != manifest_b.spec.suite:
        raise RunError(f"cannot compare a {manifest_a.spec.suite} run with a {manifest_b.spec.suite} run")
    if manifest_a.spec.dataset_hash != manifest_b.spec.dataset_hash:
        raise RunError(
            f"the runs used different datasets ({manifest_a.spec.dataset_hash[:19]} vs "
            f"{manifest_b.spec.dataset_hash[:19]}); a paired comparison needs the same episodes"
            + _subset_hint(manifest_a.spec.options, manifest_b.spec.options)
        )
    suite = get_suite(manifest_a.spec.suite)
    return suite, list(suite.compare(records_a, records_b, resamples=resamples, seed=seed))


def compare_text(
    run_a: Path | str, run_b: Path | str, *, resamples: int = 10_000, seed: int = 0, strict: bool = False
) -> str:
    """The paired comparison as a terminal table, in the suite's own layout where it has one."""
    from heedful.report.labels import differences_line

    loaded_a, loaded_b = run_records(run_a), run_records(run_b)
    suite, rows = _paired(loaded_a, loaded_b, resamples=resamples, seed=seed, strict=strict)  # both of one suite
    pairs = pairing_line(loaded_a[1], loaded_b[1])
    differences = differences_line(loaded_a[0], loaded_b[0])
    line_a, line_b = _run_line(run_a, *loaded_a, suite), _run_line(run_b, *loaded_b, suite)
    return str(suite.render_comparison(rows, f"A: {line_a}\nB: {line_b}\n{differences}\n{pairs}"))


def _subset_hint(options_a: dict[str, Any], options_b: dict[str, Any]) -> str:
    conditions = {options_a.get("condition", "structured"), options_b.get("condition", "structured")}
    if "visual" not in conditions or {options_a.get("subset"), options_b.get("subset")} & {"visual"}:
        return ""
    return "; to pair a structured run with a visual one, run the structured one with --subset visual"
