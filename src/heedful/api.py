"""The Python API behind the command line: everything `heedful` does can be done from here.

from heedful.api import evaluate, report
result = evaluate(suite="decisions", agent="oracle", out="runs/oracle")
rows, title = report("runs/oracle")
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from heedful.capabilities import capabilities
from heedful.errors import ConfigError, DatasetError, RunError
from heedful.metrics.rows import MetricRow
from heedful.records import Record
from heedful.sampling import Order


def load_or_generate(
    suite: Any, dataset: Path | None, seed: int, progress: bool = False, *, verify: bool = True
) -> tuple[Sequence[Any], str]:
    """The suite's episodes from `dataset` (its content hash checked unless `verify` is False), or its default
    dataset for `seed` (generated once into the dataset cache, `heedful.dataset_cache`, then loaded from it);
    plus where they came from. `progress` announces a generation on stderr."""
    from heedful.dataset_cache import GENERATED, cached_dataset

    if dataset is not None:
        return list(suite.load_dataset(Path(dataset), verify=verify)), str(dataset)
    episodes, _ = cached_dataset(suite, seed, announce=progress)
    return episodes, f"{GENERATED}{seed}"


def check_shard(shard: str | None) -> None:
    """`I/N` with 1 <= I <= N, or None.

    Raises:
        ConfigError: anything else, naming the form.
    """
    if shard is None:
        return
    index, sep, count = shard.partition("/")
    if not (sep and index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ConfigError(f"--shard must look like I/N with 1 <= I <= N (e.g. 2/4), got {shard!r}")


def select(suite: Any, episodes: Sequence[Any], split: str) -> Sequence[Any]:
    """Episodes of one of the suite's splits ("all" keeps every episode, in dataset order, as given: a cached
    dataset stays lazy, see `heedful.suites.lazy_episodes`)."""
    if split not in suite.splits:
        raise ConfigError(f"{suite.name} has no split {split!r}; choose one of {', '.join(suite.splits)}")
    if split == "all":
        return episodes
    # household splits are val_seen, val_unseen, ...: "val" selects both of its parts
    return [ep for ep in episodes if split in (ep.split, str(ep.split).rsplit("_", 1)[0])]


def evaluate(
    *,
    suite: str,
    agent: str,
    out: Path | str,
    agent_args: dict[str, Any] | None = None,
    dataset: Path | None = None,
    seed: int = 0,
    split: str = "all",
    limit: int | None = None,
    order: Order = "stratified",
    shard: str | None = None,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    resume: bool = False,
    progress: bool = True,
    verify: bool = True,
    backend: str = "local",
    address: str | None = None,
    resources: str | dict[str, Any] | None = None,
) -> Any:
    """Evaluate `agent` on `suite` into the run directory `out` (see `heedful run --help`); `verify=False` loads a
    dataset whose files no longer match their recorded content hash (a deliberate edit). `backend="ray"` runs on
    `workers` Ray actors (`address`, `resources`: see `heedful.runner.run`)."""
    from heedful.agents.registry import agent_class
    from heedful.requirements import check_requirements
    from heedful.runner import RunSpec, run
    from heedful.suites.registry import get_suite

    suite_obj = get_suite(suite)
    agent_cls = agent_class(agent, suite)  # fail on an unknown agent before generating anything
    options = dict(options or {})
    suite_obj.check_options(options)
    check_requirements(suite, suite_obj.requirements(options))  # a missing simulator stops here, not per episode
    options = suite_obj.prepare_options(options, dataset)  # decisions: where the dataset's images are
    kind = capabilities(agent_cls).kind
    if kind not in suite_obj.agent_kinds:
        raise ConfigError(
            f"agent {agent} is a {kind} agent; {suite} runs {' or '.join(suite_obj.agent_kinds)} agents "
            "(see heedful.protocols; `heedful check agent SUITE/NAME` checks one)"
        )
    check_agent_inputs(agent_cls, agent, dict(agent_args or {}), suite_obj.required_inputs(options))
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {limit}")
    if order not in ("stratified", "file"):
        raise ConfigError(f"--order must be stratified or file, got {order!r}")
    check_shard(shard)
    episodes, source = load_or_generate(suite_obj, dataset, seed, progress, verify=verify)
    chosen = select(suite_obj, episodes, split)
    chosen = suite_obj.episodes_for_run(chosen, options)  # tabletop: the trials of the chosen tasks
    if not chosen:
        raise ConfigError(f"no {split} episodes in {source}")
    spec = RunSpec(
        suite=suite,
        suite_version=suite_obj.version,
        dataset_hash=suite_obj.dataset_hash(chosen),
        dataset_source=source if split == "all" else f"{source} split={split}",
        agent=agent,
        agent_args=dict(agent_args or {}),
        seed=seed,
        options=options,
        limit=limit,
        order="file" if limit is None else order,  # without a limit every episode runs: no order to record
        shard=shard,
    )
    return run(
        spec,
        chosen,
        Path(out),
        workers=workers,
        resume=resume,
        progress=progress,
        train=episodes,
        backend=backend,
        address=address,
        resources=resources,
    )


def check_agent_inputs(agent_cls: Any, agent: str, agent_args: dict[str, Any], inputs: Sequence[str]) -> None:
    """Fail before a run starts when the agent cannot read an input the run shows (e.g. an image).

    An agent class may define `cannot_read(kind, agent_args) -> str | None`, the reason it cannot read that
    kind of input with those arguments; agents without it read or ignore every input.

    Raises:
        ConfigError: naming the input and the agent's reason.
    """
    cannot_read = capabilities(agent_cls).cannot_read
    for kind in inputs:
        reason = cannot_read(kind, agent_args) if cannot_read is not None else None
        if reason:
            raise ConfigError(f"agent {agent} cannot read the {kind} input this run shows: {reason}")


def _records(run_dir: Path | str) -> tuple[Any, list[Record]]:
    from heedful.runner import load_run

    manifest, records = load_run(Path(run_dir))
    if not records:
        raise RunError(f"run {run_dir} has no records yet; start it with `heedful run`")
    return manifest, records


def report(
    run_dir: Path | str, *, resamples: int = 10_000, cluster: str | None = None, seed: int = 0
) -> tuple[list[MetricRow], str]:
    """Metric rows of a run and a one-line title describing it."""
    found = _report(run_dir, resamples=resamples, cluster=cluster, seed=seed)
    return found.rows, found.title


def report_text(
    run_dir: Path | str, *, format: str = "table", resamples: int = 10_000, cluster: str | None = None, seed: int = 0
) -> str:
    """The report as text in `format` (heedful.report.REPORT_FORMATS): "table", the terminal table in the suite's
    own layout with a usage line for model runs; "json" or "csv", every row; "markdown" or "latex", the suite's
    paper tables and then every row (booktabs `table` floats with a caption naming suite, agent and records)."""
    from heedful.report.formats import check_format, render

    check_format(format)
    found = _report(run_dir, resamples=resamples, cluster=cluster, seed=seed)
    return render(
        format, found.suite, found.rows, title=found.title, caption=found.caption, agent=found.manifest.spec.agent
    )


class _Report(NamedTuple):
    suite: Any
    manifest: Any
    rows: list[MetricRow]
    title: str
    caption: str
    """Suite, agent and records, for a table's caption."""
    records: int


def _report(run_dir: Path | str, *, resamples: int, cluster: str | None, seed: int) -> _Report:
    from heedful.metrics.usage import usage_rows
    from heedful.suites.registry import get_suite

    manifest, records = _records(run_dir)
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
        f"{spec.suite} | agent {spec.agent}{mode} | {coverage} | "
        f"state {manifest.state} | "
        f"dataset {spec.dataset_hash[:19]}"
    )
    caption = f"{spec.suite} suite, agent {run_name(manifest, suite)}: {coverage}"
    return _Report(suite, manifest, rows, title, caption, len(records))


def plot(runs: Sequence[Path | str], out: Path | str, *, resamples: int = 10_000, seed: int = 0) -> Path:
    """Draw the main figure of one suite's runs into `out` (.pdf or .svg, vector; .png) and return its path: the
    suite's `figure` layout filled with each run's report rows, several runs side by side (one bar per run, the
    legend naming each run's agent). See `heedful plot --help`.

    Raises:
        ConfigError: no run, an unknown extension, or runs of different suites.
        MissingDependencyError: matplotlib is not installed (heedful[plots]).
        RunError: a path that is not a run.
    """
    from heedful.report.plot import (
        RunRows,
        figure_format,
        figure_title,
        legend_labels,
        require_matplotlib,
        write_figure,
    )
    from heedful.runner.manifest import read_manifest

    out = Path(out)
    figure_format(out)  # a wrong extension, a missing matplotlib or mixed suites fail before any report is computed
    require_matplotlib()
    if not runs:
        raise ConfigError("name at least one run directory to plot: heedful plot RUN [RUN ...] --out FIG.pdf")
    suites = [read_manifest(Path(run)).spec.suite for run in runs]
    if len(set(suites)) > 1:
        listed = ", ".join(f"{run} ({suite})" for run, suite in zip(runs, suites, strict=True))
        raise ConfigError(
            f"runs of different suites cannot share a figure: {listed}; plot each suite's runs with its own "
            "heedful plot command"
        )
    found = [_report(run, resamples=resamples, cluster=None, seed=seed) for run in runs]
    layout = found[0].suite.figure
    if layout is None:
        raise ConfigError(f"suite {suites[0]} declares no figure (Suite.figure); use heedful report")
    labels = legend_labels([run_name(f.manifest, f.suite) for f in found], [Path(run).name for run in runs])
    series = [RunRows(label, f.rows) for label, f in zip(labels, found, strict=True)]
    write_figure(layout, series, out, figure_title(suites[0], [f.records for f in found]))
    return out


def _coverage(suite: Any, manifest: Any, n: int) -> str:
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

    manifest, records = _records(run_dir)
    spec = manifest.spec
    model = manifest.agent.get("model")
    agent = f"{spec.agent} {model}" if model else spec.agent
    mode = _run_mode(get_suite(spec.suite), spec.options)
    return f"{run_dir} | agent {agent}{mode} | {len(records)} records"


def run_name(manifest: Any, suite: Any) -> str:
    """The agent of a run as legends and captions name it: its name, its model, how the run showed the episodes
    (e.g. "llm SmolLM2-135M (masked)")."""
    model = manifest.agent.get("model")
    agent = f"{manifest.spec.agent} {model}" if model else str(manifest.spec.agent)
    parts = [part.strip() for part in _run_mode(suite, manifest.spec.options).split("|")]
    mode = [part[1:-1] if part[:1] + part[-1:] == "()" else part for part in parts if part]
    return f"{agent} ({', '.join(mode)})" if mode else agent


def _run_mode(suite: Any, options: dict[str, Any]) -> str:
    """How a run was shown its episodes, for titles: the suite's own label of its run options (decisions:
    masking and the condition; household: the perception condition)."""
    return str(suite.run_label(options))


def image_renderer(suite: Any, *, size: int = 448) -> Callable[..., list[Any]]:
    """`render(episodes, out, progress=None)`: writes the suite's images into `out` and returns the episodes
    that name them (decisions: the visual subset); `progress(1, total)` is called per image.

    Checks everything first, so that `heedful generate --images` fails before it generates anything.

    Raises:
        ConfigError: the suite has no images, or `size` is out of range.
        MissingDependencyError: the renderer (mujoco, heedful[tabletop]) is not installed.
    """
    if not suite.has_images:
        raise ConfigError(f"suite {suite.name} has no images to render; drop --images")
    if not 64 <= size <= 2048:
        raise ConfigError(f"--image-size must be between 64 and 2048 pixels, got {size}")
    from heedful.sims.tabletop.deps import require_mujoco

    require_mujoco()

    def render(episodes: Sequence[Any], out: Path | str, progress: Any = None) -> list[Any]:
        return list(suite.attach_images(episodes, Path(out), size=size, progress=progress))

    return render


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
    run_a: Path | str, run_b: Path | str, *, resamples: int = 10_000, seed: int = 0, strict: bool = False
) -> list[Any]:
    """Paired comparison of two runs of one suite on the same dataset; with `strict`, only of two runs that hold
    the same episodes."""
    from heedful.suites.registry import get_suite

    manifest_a, records_a = _records(run_a)
    manifest_b, records_b = _records(run_b)
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
    return list(get_suite(manifest_a.spec.suite).compare(records_a, records_b, resamples=resamples, seed=seed))


def compare_text(
    run_a: Path | str, run_b: Path | str, *, resamples: int = 10_000, seed: int = 0, strict: bool = False
) -> str:
    """The paired comparison as a terminal table, in the suite's own layout where it has one."""
    from heedful.runner.manifest import read_manifest
    from heedful.suites.registry import get_suite

    rows = compare(run_a, run_b, resamples=resamples, seed=seed, strict=strict)  # both runs of one suite
    pairs = pairing_line(_records(run_a)[1], _records(run_b)[1])
    title = f"A: {describe_run(run_a)}\nB: {describe_run(run_b)}\n{pairs}"
    return str(get_suite(read_manifest(Path(run_a)).spec.suite).render_comparison(rows, title))


def _subset_hint(options_a: dict[str, Any], options_b: dict[str, Any]) -> str:
    conditions = {options_a.get("condition", "structured"), options_b.get("condition", "structured")}
    if "visual" not in conditions or {options_a.get("subset"), options_b.get("subset")} & {"visual"}:
        return ""
    return "; to pair a structured run with a visual one, run the structured one with --subset visual"


def entropy(tasks_file: Path | str | None = None, *, libero: bool = False) -> dict[str, Any]:
    """Scene entropy H(T | S) in bits with its groups: of the tabletop training set (3.782 bits), of the task
    set in `tasks_file` (JSON lines with "task" and "scene", the task-independent scene spec), or with
    `libero=True` of LIBERO's four suites and their mean."""
    from heedful.metrics.entropy import entropy_report, libero_entropies

    if libero:
        values = libero_entropies()
        return {"bits": values["mean"], "groups": [{"suite": k, "bits": v} for k, v in values.items() if k != "mean"]}
    if tasks_file is None:
        from heedful.suites.tabletop.registry import training_entropy

        return training_entropy()
    pairs = []
    path = Path(tasks_file)
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            pairs.append((str(item["task"]), item["scene"]))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise DatasetError(f'{path}:{lineno}: need a JSON object with "task" and "scene" ({exc})') from None
    return entropy_report(pairs)


def demos(
    out: Path | str,
    *,
    per_task: int = 50,
    cameras: bool = False,
    image_size: int = 224,
    seed: int = 0,
    tasks: Sequence[str] | None = None,
    progress: Any = None,
    format: str = "hdf5",
    repo_id: str | None = None,
    video: bool = False,
    workers: int = 1,
) -> dict[str, int]:
    """Write tabletop demonstrations (see `heedful demos --help`); resumable. `tasks` limits the training labels.

    `format` is "hdf5" (LIBERO / robomimic files) or "lerobot" (a LeRobot dataset rooted at `out`, written
    through the lerobot library; `repo_id` names it, `video` stores the cameras as video, `workers` processes
    record the demos while this one writes them).
    """
    from heedful.suites.tabletop.demos import DemoSettings, generate_demos
    from heedful.suites.tabletop.registry import training_task, training_tasks

    if per_task < 1 or image_size < 16:
        raise ConfigError(f"--per-task must be at least 1 and --image-size at least 16, got {per_task}, {image_size}")
    if format not in ("hdf5", "lerobot"):
        raise ConfigError(f"unknown demonstration format {format!r}; choose 'hdf5' or 'lerobot'")
    if format == "hdf5" and (repo_id is not None or video or workers != 1):
        raise ConfigError("--repo-id, --video and --workers apply to --format lerobot only")
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    chosen = list(training_tasks())
    if tasks:
        for label in tasks:
            training_task(label)  # an unknown label: UnknownNameError with did-you-mean
        chosen = [t for t in chosen if t.label in set(tasks)]
    settings = DemoSettings(seed=seed, per_task=per_task, cameras=cameras, image_size=image_size)
    if format == "lerobot":
        from heedful.suites.tabletop.lerobot_demos import DEFAULT_REPO_ID, generate_lerobot_demos

        name = repo_id or DEFAULT_REPO_ID
        return generate_lerobot_demos(Path(out), settings, chosen, progress, repo_id=name, video=video, workers=workers)
    return generate_demos(Path(out), settings, chosen, progress)


def train(
    demos: Path | str,
    out: Path | str,
    *,
    device: str = "cpu",
    progress: Any = None,
    log: Callable[[str], None] = lambda _: None,
    tasks: Sequence[str] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Train a tabletop policy on HDF5 demos into `out` (see `heedful train --help`; `options` are the fields of
    `heedful.learning.trainer.TrainConfig`); resumes from `out`'s newest checkpoint. Returns the training summary."""
    from dataclasses import fields

    from heedful.learning.trainer import TrainConfig
    from heedful.learning.trainer import train as run_training

    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(f"unknown training options {unknown}; known: {', '.join(sorted(known))}")
    config = TrainConfig(**options, tasks=tuple(tasks or ()))
    return run_training(Path(demos), Path(out), config, device=device, progress=progress, log=log)
