"""Subcommands that read runs and datasets: report, plot, export, compare, schema, list, replay."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.common import add_max_errors, note_rerun_agents, rerun_agent_arg, suite_arg
from heedful.cli.parser import key_values
from heedful.errors import ConfigError
from heedful.report import REPORT_FORMATS

# --- report, export, compare


def add_report(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "report",
        formatter_class=formatter,
        help=command_help("report"),
        description=(
            "Compute the suite's metrics from a run directory: point estimates, 95% cluster-bootstrap intervals, "
            "Wilson intervals and raw counts, overall and per group (`heedful list SUITE` says what each metric means)."
        ),
    )
    p.add_argument(
        "run", type=Path, nargs="?", help="run directory (with --explain alone: a suite name, or nothing for all)"
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="print the glossary: what every column, mark and metric means (after the report when RUN is given)",
    )
    p.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        default="table",
        help="table: the suite's headline table, the overall row with its reference level and one line per group "
        "(every group's block: --full); json, csv: every row (metric, group, value, CI, n, "
        "k, Wilson, unit, method, chance; csv adds collapsed), plain numbers; markdown, latex: the suite's paper "
        "tables (tabletop: Table 1 per scene and level; household: SR and SPL per task type, Table 6), then every "
        "row, values in %% with 95%% intervals (latex: booktabs table floats to \\input, captions naming suite, "
        "agent, records and interval method)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="table: every group's block with intervals and k/n (scene x level, per category, ...), then the "
        "suite's paper layouts",
    )
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    p.add_argument(
        "--cluster",
        default=None,
        help="what the bootstrap resamples: decisions family (default) or anchor; household episodes and "
        "tabletop tasks take no other",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    add_max_errors(p)
    p.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from heedful.api import report_text
    from heedful.outcome import parse_max_errors
    from heedful.report.glossary import explain
    from heedful.suites.registry import SUITES, get_suite

    max_errors = parse_max_errors(args.max_errors)
    if args.run is None or (args.explain and not args.run.exists()):
        if not args.explain:
            raise ConfigError("name the run directory: heedful report RUN (or heedful report --explain [SUITE])")
        names = SUITES.names() if args.run is None else [str(args.run)]
        print(explain([get_suite(name) for name in names]))  # an unknown suite: did-you-mean
        return 0
    if is_sweep_dir(args.run):  # a sweep directory: one table of every cell (heedful.sweep)
        _sweep_report(args.run, args.format, args.resamples, None)
        return sweep_verdict(args.run, max_errors)
    if is_arms_job(args.run):  # one run per instruction arm: the language-dependence table (heedful.arms_job)
        if args.format != "table":
            raise ConfigError(f"an arms job is reported as a table, not {args.format}; report its runs JOB/ARM")
        return _arms_report(args.run, args.seed, max_errors)
    options = {"resamples": args.resamples, "cluster": args.cluster, "seed": args.seed}
    if args.explain:
        from heedful.runner.manifest import read_manifest

        print(report_text(args.run, full=args.full, **options))
        print()
        print(explain([get_suite(read_manifest(args.run).spec.suite)]))
        return 0
    print(report_text(args.run, format=args.format, full=args.full, **options))
    following = following_text(args.run, seed=args.seed) if args.format == "table" else None
    if following:  # a run under --instruction other: whose task did the episodes meet
        print(f"\n{following}")
    switching = _switch_text(args.run) if args.format == "table" else None
    if switching:  # a run under --reinstruct: the new task, and who kept the old one
        print(f"\n{switching}")
    return _run_verdict(args.run, max_errors)


def _switch_text(run: Path) -> str | None:
    from heedful.arms_job import arms_view
    from heedful.language.reinstruct import OPTION
    from heedful.metrics.reinstruct import render_switch_table, switch_rows
    from heedful.runner import load_run

    manifest, records = load_run(run)
    rule = manifest.spec.options.get(OPTION)
    if rule is None:
        return None
    return render_switch_table(switch_rows(arms_view(manifest.spec.suite).group_key, records), str(rule))


def _arms_report(job: Path, seed: int, max_errors: Any) -> int:
    from heedful.arms_job import arms_text, job_runs
    from heedful.outcome import worst

    runs = [run for run in job_runs(job) if run.is_dir()]
    print(arms_text(runs, seed=seed))
    return worst([_run_verdict(run, max_errors) for run in runs])


def _run_verdict(run: Path, max_errors: Any) -> int:
    """The exit code of a run that was read (heedful.outcome), its reason on stderr when it is not 0."""
    from heedful.runner.manifest import read_manifest
    from heedful.runner.verdict import run_verdict

    found = run_verdict(run, read_manifest(run), max_errors)
    if found.code:
        print(f"heedful: {found.line}", file=sys.stderr)
    return found.code


def sweep_verdict(out: Path, max_errors: Any) -> int:
    """The most severe exit code of a sweep's cells (a cell without a run is incomplete)."""
    from heedful.outcome import EXIT_INCOMPLETE, worst
    from heedful.sweep import cell_run_dirs

    codes = []
    for run_dir in cell_run_dirs(out):
        if not (run_dir / "manifest.json").is_file():
            print(f"heedful: run {run_dir}: not started", file=sys.stderr)
            codes.append(EXIT_INCOMPLETE)
            continue
        codes.append(_run_verdict(run_dir, max_errors))
    return worst(codes)


def add_plot(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "plot",
        formatter_class=formatter,
        help=command_help("plot"),
        description=(
            "Draw the suite's main figure from one or more runs of that suite, with 95% error bars from the report: "
            "decisions, the headline metrics per constraint category (several runs: one panel per metric, and "
            "decision invariance vs sensitivity per run); tabletop, Intent and Execution per level and per scene; "
            "household, SPL and SR per split and task type. Several runs stand side by side, one bar per run in "
            "each group, the legend naming each run's agent. Dashed error bars are Wilson intervals where every "
            "bootstrap resample scored alike; dotted ticks mark the chance level. The same runs give byte-identical "
            "files. An instruction-arms job (heedful run ... --arms, one JOB) gives the language-dependence figure: "
            "each arm's score per level / category / task type with its Wilson interval, and under other the share "
            'that followed the given words. Needs matplotlib: pip install "heedful[plots]".'
        ),
        epilog=(
            "examples:\n"
            "  heedful plot runs/oracle --out fig/decisions.pdf\n"
            "  heedful plot runs/oracle runs/majority-masked --out fig/decisions.svg   # side by side\n"
            "  heedful plot runs/tt-oracle --out fig/arms.svg   # an --arms job: the language-dependence figure"
        ),
    )
    p.add_argument(
        "runs", type=Path, nargs="+", metavar="RUN", help="run directories, all of one suite (or one --arms job)"
    )
    p.add_argument(
        "--out", type=Path, required=True, help="the figure file: .pdf or .svg (vector) or .png (raster, 200 dpi)"
    )
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples of each run's report")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.set_defaults(handler=cmd_plot)


def cmd_plot(args: argparse.Namespace) -> int:
    from heedful.api import plot

    if len(args.runs) == 1 and is_arms_job(args.runs[0]):  # an arms job: the language-dependence figure
        from heedful.arms_job import arms_figure

        out = arms_figure(args.runs[0], args.out, resamples=args.resamples, seed=args.seed)
        print(f"wrote {out}")
        return 0
    out = plot(args.runs, args.out, resamples=args.resamples, seed=args.seed)
    print(f"wrote {out} ({len(args.runs)} run{'s' if len(args.runs) > 1 else ''})")
    return 0


def add_export(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "export",
        formatter_class=formatter,
        help=command_help("export"),
        description=(
            "One row per episode. For a run: episode_id, family_id, anchor_id, role, category, split, "
            "decision_type, gold, prediction, status, correct and more. Nested values are JSON text in Parquet."
        ),
    )
    p.add_argument("source", type=Path, help="run directory or dataset directory")
    p.add_argument("--format", choices=["jsonl", "parquet"], required=True)
    p.add_argument("--out", type=Path, required=True, help="output file; - for JSON lines on standard output")
    p.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from heedful.report.export import export

    n = export(args.source, args.out, args.format)
    if str(args.out) != "-":  # on stdout the rows are the output
        print(f"wrote {n} rows to {args.out}")
    return 0


def add_compare(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "compare",
        formatter_class=formatter,
        help=command_help("compare"),
        description=(
            "Match the two runs' episodes, then give each metric's difference (A - B) with a paired bootstrap "
            "interval (decisions: over families; household: over episodes; tabletop: over tasks), and an exact "
            "McNemar test on the binary outcome (correctness, success, trial completion). Household runs start "
            "with SR and SPL side by side per task type and clear / ambiguous (SPL is the paper's primary metric)."
        ),
    )
    p.add_argument("run_a", type=Path, help="run directory A (differences are A - B), or a sweep directory")
    p.add_argument("run_b", type=Path, nargs="?", help="run directory B, a run of the same dataset")
    p.add_argument(
        "--baseline",
        metavar="AGENT",
        help="with a sweep directory: the agent label every other agent is compared with, paired, per suite, options "
        "and seed (default: the sweep file's baseline)",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse two runs that do not hold the same episodes (default: pair the shared ones and say how many)",
    )
    p.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from heedful.api import compare, compare_text
    from heedful.metrics.render import rows_to_json

    if args.run_b is None and is_arms_job(args.run_a):  # the arms of one job: the language-dependence table
        from heedful.arms_job import arms_text, job_runs

        if args.format != "table":
            raise ConfigError(f"an arms job is compared as a table, not {args.format}; compare its runs JOB/ARM")

        print(arms_text([run for run in job_runs(args.run_a) if run.is_dir()], seed=args.seed))
        return 0
    if args.run_b is None or args.baseline is not None:
        if not is_sweep_dir(args.run_a) or args.run_b is not None:
            raise ConfigError(
                "compare two runs (heedful compare RUN_A RUN_B) or the cells of one sweep directory against a "
                "baseline (heedful compare SWEEP_DIR [--baseline AGENT])"
            )
        return _sweep_report(args.run_a, args.format, args.resamples, args.baseline)
    options = {"resamples": args.resamples, "seed": args.seed, "strict": args.strict}
    if args.format == "json":
        print(rows_to_json(compare(args.run_a, args.run_b, **options), extra=_compare_flags(args.run_a, args.run_b)))
    else:
        print(compare_text(args.run_a, args.run_b, **options))
        if paired_arms(args.run_a, args.run_b):  # two instruction arms of one selection
            from heedful.arms_job import arms_text

            print(f"\n{arms_text([args.run_a, args.run_b], seed=args.seed)}")
    return 0


def _compare_flags(run_a: Path, run_b: Path) -> dict[str, list[str]] | None:
    """`a_flags` / `b_flags` for each JSON comparison row, where a run is flagged (heedful.report.flags)."""
    from heedful.report.flags import run_flags
    from heedful.runner.manifest import read_manifest

    flags = {"a_flags": run_flags(read_manifest(run_a)), "b_flags": run_flags(read_manifest(run_b))}
    return flags if any(flags.values()) else None


def is_arms_job(path: Path) -> bool:
    from heedful.arms_job import is_arms_job as is_job

    return is_job(path)


def following_text(run: Path, *, seed: int) -> str | None:
    from heedful.arms_job import following_text as text

    return text(run, seed=seed)


def paired_arms(run_a: Path, run_b: Path) -> bool:
    from heedful.arms_job import paired_arms as paired

    return paired(run_a, run_b)


def is_sweep_dir(path: Path) -> bool:
    from heedful.sweep import is_sweep

    return is_sweep(path)


def _sweep_report(out: Path, fmt: str, resamples: int, baseline: str | None) -> int:
    """Print a sweep directory's combined table (or its rows as JSON)."""
    from heedful.sweep import sweep_rows, sweep_table

    if fmt == "json":
        print(json.dumps(sweep_rows(out, resamples=resamples, baseline=baseline), indent=2))
    elif fmt == "table":
        print(sweep_table(out, resamples=resamples, baseline=baseline))
    else:
        raise ConfigError(f"a sweep directory is reported as a table or as json, not {fmt}")
    return 0


# --- schema, list


def add_schema(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "schema",
        formatter_class=formatter,
        help=command_help("schema"),
        description="Print the JSON Schema of one episode line of SUITE's dataset, or with --export of one row of "
        "`heedful export` of a SUITE run (typed and versioned columns, see heedful.report.export_schema).",
    )
    suite_arg(p)
    p.add_argument("--export", action="store_true", help="the schema of a run's export rows instead")
    p.set_defaults(handler=cmd_schema)


def cmd_schema(args: argparse.Namespace) -> int:
    from heedful.suites.registry import get_suite

    if args.export:
        from heedful.report.export_schema import json_schema

        print(json.dumps(json_schema(args.suite), indent=2))
        return 0
    sys.stdout.write(get_suite(args.suite).episode_schema())
    return 0


def add_list(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "list",
        formatter_class=formatter,
        help=command_help("list"),
        description=(
            "List the suites and their agents; with SUITE, each agent of that suite and what it does, the suite's "
            "run options and its splits. `heedful list tasks SUITE` lists the suite's tasks (its dataset lines: "
            "tabletop's 554 evaluation tasks, household's 480 episodes, decisions' 4,036 instances) with their "
            "groups, instruction and a one-line description; the same as `heedful.tasks(SUITE, ...)` in Python."
        ),
        epilog=(
            "examples:\n"
            "  heedful list tasks tabletop --where level=L1 --where scene=2\n"
            "  heedful list tasks household --where task_type=S_hum --format json\n"
            "  heedful list tasks tabletop --training      # the 75 training labels of `heedful demos --task`"
        ),
    )
    p.add_argument("suite", nargs="?", help="describe this suite's agents (first line of each agent's docstring)")
    p.add_argument("tasks_of", nargs="?", metavar="SUITE", help="after `tasks`: the suite whose tasks to list")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="list tasks: keep those whose group KEY is VALUE (repeatable; e.g. level=L1, scene=2, split=test)",
    )
    p.add_argument("--dataset", type=Path, help="list tasks: of this dataset directory (default: the default dataset)")
    p.add_argument("--seed", type=int, default=0, help="list tasks: seed of the default dataset")
    p.add_argument("--training", action="store_true", help="list tasks (tabletop): the 75 training labels instead")
    p.add_argument("--format", choices=("text", "json"), default="text", help="list tasks: text or JSON lines")
    p.set_defaults(handler=cmd_list)


def cmd_list_tasks(args: argparse.Namespace) -> int:
    import json

    from heedful.task_catalog import TaskInfo, tasks

    if args.tasks_of is None:
        raise ConfigError("say whose tasks: heedful list tasks SUITE (e.g. heedful list tasks tabletop)")
    if args.training:
        if args.tasks_of != "tabletop":
            raise ConfigError("--training lists the tabletop suite's training labels; drop it for other suites")
        from heedful.suites.tabletop.registry import training_tasks

        found = [
            TaskInfo("tabletop", t.label, t.paraphrases[0], f"{len(t.paraphrases)} phrasings, layout {t.config}")
            for t in training_tasks()
        ]
        columns: tuple[str, ...] = ()
    else:
        from heedful.suites.registry import get_suite

        filters = key_values(args.where, "--where")
        for name in ("dataset", "seed"):
            if name in filters:
                raise ConfigError(f"--where {name}=...: choose the dataset with --{name}, not as a filter")
        found = tasks(args.tasks_of, dataset=args.dataset, seed=args.seed, **filters)
        columns = get_suite(args.tasks_of).task_columns
    for t in found:
        if args.format == "json":
            print(json.dumps({"id": t.id, "instruction": t.instruction, "description": t.description, **t.groups}))
        else:
            print("  ".join([t.id, *(t.groups[c] for c in columns), t.instruction]))
            print(f"    {t.description}")
    if args.format == "text":
        print(f"{len(found)} tasks", file=sys.stderr)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from heedful.agents.arguments import agent_arguments
    from heedful.agents.registry import agent_class, agent_names
    from heedful.suites.registry import SUITES, get_suite

    if args.suite == "tasks":
        return cmd_list_tasks(args)
    if args.tasks_of is not None:
        raise ConfigError(f"unexpected {args.tasks_of!r}: heedful list [SUITE], or heedful list tasks SUITE")
    if args.suite is None:
        for suite in SUITES.names():
            print(f"suite {suite}: agents {', '.join(agent_names(suite))}")
        return 0
    from heedful.suites.options import describe

    chosen = get_suite(args.suite)  # an unknown suite fails with a suggestion
    print("agents:")
    for name in agent_names(args.suite):
        doc = (agent_class(name, args.suite).__doc__ or "").strip().splitlines()
        print(f"  {name:18s} {doc[0] if doc else ''}")
    print("agent arguments (--agent-arg NAME=VALUE; name: type = default, meaning):")
    for name in agent_names(args.suite):
        arguments = agent_arguments(agent_class(name, args.suite))
        print(f"  {name}" + ("" if arguments else ": none"))
        for argument in arguments:
            print(f"    {argument.line()}")
    print(f"run options (flags: heedful run {args.suite} --help):")
    for name, text in describe(chosen.run_options).items():
        print(f"  {name:18s} {text}")
    print(f"splits: {', '.join(chosen.splits)}")
    if len(chosen.metric_spec):
        print("metrics of heedful report (name, what n counts, meaning; * not paired by heedful compare):")
        for metric in chosen.metric_spec:
            mark = "" if metric.compared else " *"
            print(f"  {metric.name + mark:24s} {metric.unit:9s} {metric.description}")
    return 0


# --- replay


def add_replay(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "replay",
        formatter_class=formatter,
        help=command_help("replay"),
        description=(
            "Household: re-execute the tool calls an agent made in one episode (the simulator is deterministic) and "
            "draw every step top-down: the agent with its field of view, the human, the objects. Tabletop: the "
            "trial's agentview video, made from the records of a run without --video: a planner's skill calls are "
            "replayed, a controller is re-run (from the manifest's agent, arguments and seed: a registered agent, or "
            "one --rerun-agent names), and the file is written only when the new record reproduces the stored one "
            "(stages, steps, scores). Writes an MP4 "
            "(.mp4, needs the tabletop extra), an animated GIF (.gif) or the last frame as PNG (.png)."
        ),
    )
    p.add_argument("run", type=Path, help="run directory")
    p.add_argument("episode_id", help="episode id, e.g. val_seen-s_hum-001 or s1_L1_000_pickup/t0")
    p.add_argument("--out", type=Path, required=True, help="output file (.gif, .mp4 or .png)")
    p.add_argument("--dataset", type=Path, help="dataset directory (default: the run's own source)")
    p.add_argument("--every", type=int, default=2, help="household: draw every N-th step")
    rerun_agent_arg(p)
    p.set_defaults(handler=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from heedful.report.site.media import replay

    trusted = note_rerun_agents(args.rerun_agent)
    print(replay(args.run, args.episode_id, args.out, dataset=args.dataset, every=args.every, rerun_agents=trusted))
    return 0
