"""The subcommands. Each handler only parses its arguments and calls the Python API."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from heedful.cli.llm_args import add_llm_args, llm_agent_args
from heedful.cli.parser import key_values
from heedful.cli.remote_args import add_remote_args, remote_agent_args
from heedful.cli.serve import add_serve

SUITE_NAMES = ["decisions"]


def _suite_arg(p: argparse.ArgumentParser) -> None:
    from heedful.suites.registry import SUITES

    p.add_argument("suite", choices=SUITES.names() or SUITE_NAMES, help="benchmark suite")


class LazyProgress:
    """A tqdm bar created on the first update, so an error raised before any work prints no empty bar.

    Call it as `progress(n, total)`; `total` is read on the first call.
    """

    def __init__(self, enabled: bool, unit: str, desc: str) -> None:
        self.enabled, self.unit, self.desc = enabled, unit, desc
        self.bar: Any = None

    def __call__(self, n: int = 1, total: int | None = None) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=self.unit, desc=self.desc, file=sys.stderr, dynamic_ncols=True)
        self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --- generate


def add_generate(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "generate",
        formatter_class=formatter,
        help="generate a benchmark dataset as files",
        description=(
            "Generate a suite's frozen, seeded episodes into DIR/episodes.jsonl and DIR/dataset.json "
            "(counts and a content hash). The same seed always gives byte-identical files. decisions --images also "
            "renders the visual subset's states to DIR/images/<anchor>.png, named (with their sha256) in the "
            "episode lines, for `heedful run decisions --condition visual`."
        ),
    )
    _suite_arg(p)
    p.add_argument("--seed", type=int, default=0, help="generation seed")
    p.add_argument("--out", type=Path, required=True, help="output directory")
    p.add_argument(
        "--set",
        dest="config",
        action="append",
        metavar="KEY=VALUE",
        help="override a generation count, e.g. --set atomic_families=200 (repeatable)",
    )
    p.add_argument(
        "--images",
        action="store_true",
        help="decisions: render each visual-subset state into DIR/images/ for `run --condition visual` "
        "(needs heedful[tabletop])",
    )
    p.add_argument("--image-size", type=int, default=448, help="decisions: image width and height with --images")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> int:
    from heedful.suites.registry import get_suite

    suite = get_suite(args.suite)
    config = key_values(args.config, "--set")
    if args.images:
        from heedful.api import image_renderer

        render = image_renderer(suite, size=args.image_size)  # checks before generating anything
    progress = LazyProgress(not args.no_progress, "anchor", f"generate {args.suite}")
    try:
        episodes = suite.generate(args.seed, config, progress=progress)
    finally:
        progress.close()
    if args.images:
        bar = LazyProgress(not args.no_progress, "image", f"render {args.suite}")
        try:
            episodes = render(episodes, args.out, progress=bar)
        finally:
            bar.close()
    summary = suite.save_dataset(episodes, args.out, {"seed": args.seed, "config": config})
    counts = summary["counts"]
    groups = f" in {counts['families']} families" if "families" in counts else ""
    print(f"wrote {counts['instances']} episodes{groups} to {args.out}")
    print(f"content hash {summary['content_hash']}")
    return 0


# --- run


def add_run(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "run",
        formatter_class=formatter,
        help="evaluate an agent on a suite (resumable)",
        description=(
            "Roll every episode out with an agent and store one record per episode in the run directory as it "
            "finishes. A killed or interrupted run continues with --resume, losing and duplicating nothing. "
            "Without --dataset the suite's default benchmark is generated in memory from --seed."
        ),
    )
    _suite_arg(p)
    p.add_argument("--agent", required=True, help="agent name (see `heedful list`)")
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE", help="agent keyword argument (repeatable)")
    p.add_argument("--dataset", type=Path, help="dataset directory from `heedful generate` or your own")
    p.add_argument("--seed", type=int, default=0, help="run seed (and generation seed without --dataset)")
    p.add_argument(
        "--split",
        choices=["all", "train", "val", "test", "val_seen", "val_unseen", "test_seen", "test_unseen"],
        default="all",
        help="episodes to run (household: val / test select both their seen and unseen parts)",
    )
    p.add_argument(
        "--limit",
        type=int,
        help="run only the first N episodes (the dataset order keeps each family's instances together)",
    )
    p.add_argument("--mask", action="store_true", help="feed the agent masked instructions (validity control)")
    p.add_argument(
        "--condition",
        choices=["structured", "visual"],
        default="structured",
        help="decisions: how the state is shown; visual = an image instead of the object list (visual subset "
        "only; needs --dataset generated with --images)",
    )
    p.add_argument(
        "--subset",
        choices=["all", "visual"],
        help="decisions: run only the visual families (e.g. a structured run to compare with a visual one)",
    )
    p.add_argument("--workers", type=int, default=1, help="local worker processes")
    p.add_argument("--out", type=Path, help="run directory (default runs/SUITE-AGENT[-masked]-seedS)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--level", action="append", choices=["L0", "L1", "L2", "L3"], help="tabletop: run this level only (repeatable)"
    )
    p.add_argument(
        "--scene", action="append", type=int, choices=[1, 2, 3, 4], help="tabletop: run this scene only (repeatable)"
    )
    p.add_argument("--trials", type=int, help="tabletop: trials per task (default 10, RoboFollow's protocol)")
    p.add_argument("--video", action="store_true", help="tabletop: write an agentview MP4 of every trial to OUT/videos")
    p.add_argument(
        "--perception",
        choices=["oracle", "noisy"],
        help="household: what enters the agent's semantic map: oracle (default, exact) or noisy, a SIMULATED "
        "stand-in for learned segmentation (per-instance misses, look-alike confusions, phantom objects)",
    )
    p.add_argument(
        "--noise",
        action="append",
        metavar="KEY=VALUE",
        help="household, with --perception noisy: a rate of the simulated detector, e.g. --noise miss_rate=0.3 "
        "(keys miss_rate, false_positive_rate, confusion_rate; defaults 0.15, 0.1, 0.1; repeatable)",
    )
    add_llm_args(p)
    add_remote_args(p)
    p.set_defaults(handler=cmd_run)


def _run_options(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """The suite's run options from the command line (only those given)."""
    options: dict[str, Any] = {"mask": True} if args.mask else {}
    if args.condition != "structured":
        options["condition"] = args.condition
    if args.subset is not None:
        options["subset"] = args.subset
    if args.level:
        options["level"] = sorted(set(args.level))
    if args.scene:
        options["scene"] = sorted(set(args.scene))
    if args.trials is not None:
        options["trials"] = args.trials
    if args.video:
        options["video_dir"] = str(out / "videos")
    if args.perception is not None:
        options["perception"] = args.perception
    options.update(key_values(args.noise, "--noise"))
    return options


def cmd_run(args: argparse.Namespace) -> int:
    from heedful.agents.registry import agent_class
    from heedful.api import evaluate
    from heedful.errors import BudgetExceededError

    tags = ("-masked" if args.mask else "") + ("-visual" if args.condition == "visual" else "")
    out = args.out or Path("runs") / f"{args.suite}-{args.agent}{tags}-seed{args.seed}"
    agent_args = key_values(args.agent_arg, "--agent-arg")
    agent_args = llm_agent_args(args, agent_class(args.agent, args.suite), args.agent, agent_args)
    agent_args = remote_agent_args(args, agent_class(args.agent, args.suite), args.agent, agent_args)
    try:
        result = evaluate(
            suite=args.suite,
            agent=args.agent,
            agent_args=agent_args,
            out=out,
            dataset=args.dataset,
            seed=args.seed,
            split=args.split,
            limit=args.limit,
            options=_run_options(args, out),
            workers=args.workers,
            resume=args.resume,
            progress=not args.no_progress,
        )
    except BudgetExceededError as exc:
        print(f"heedful: run {out} stopped: {exc}", file=sys.stderr)
        print(f"heedful: rerun the same command with --resume --out {out} and a larger budget", file=sys.stderr)
        return 3
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.counts.items()))
    print(f"run {out}: {counts}")
    print(f"report: heedful report {out}")
    return 0


# --- report, export, compare


def add_report(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "report",
        formatter_class=formatter,
        help="metrics of a run with confidence intervals",
        description=(
            "Compute the suite's metrics from a run directory: point estimates, 95%% cluster-bootstrap intervals, "
            "Wilson intervals and raw counts, overall and per group."
        ),
    )
    p.add_argument("run", type=Path, help="run directory")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    p.add_argument("--cluster", choices=["family", "anchor"], default="family", help="bootstrap cluster")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from heedful.api import report, report_text
    from heedful.report.render import rows_to_json

    options = {"resamples": args.resamples, "cluster": args.cluster, "seed": args.seed}
    if args.format == "json":
        rows, _ = report(args.run, **options)
        print(rows_to_json(rows))
    else:
        print(report_text(args.run, **options))
    return 0


def add_export(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "export",
        formatter_class=formatter,
        help="write a run or a dataset as JSONL or Parquet",
        description=(
            "One row per episode. For a run: episode_id, family_id, anchor_id, role, category, split, "
            "decision_type, gold, prediction, status, correct and more. Nested values are JSON text in Parquet."
        ),
    )
    p.add_argument("source", type=Path, help="run directory or dataset directory")
    p.add_argument("--format", choices=["jsonl", "parquet"], required=True)
    p.add_argument("--out", type=Path, required=True, help="output file")
    p.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from heedful.report.export import export

    n = export(args.source, args.out, args.format)
    print(f"wrote {n} rows to {args.out}")
    return 0


def add_compare(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "compare",
        formatter_class=formatter,
        help="paired comparison of two runs on the same dataset",
        description=(
            "Match the two runs' episodes, then give each metric's difference (A - B) with a paired family "
            "bootstrap interval, and an exact McNemar test on instance correctness."
        ),
    )
    p.add_argument("run_a", type=Path)
    p.add_argument("run_b", type=Path)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from heedful.api import compare, describe_run
    from heedful.report.render import render_comparison_table, rows_to_json

    rows = compare(args.run_a, args.run_b, resamples=args.resamples, seed=args.seed)
    title = f"A: {describe_run(args.run_a)}\nB: {describe_run(args.run_b)}"
    print(rows_to_json(rows) if args.format == "json" else render_comparison_table(rows, title=title))
    return 0


# --- schema, list


def add_schema(sub: Any, formatter: Any) -> None:
    p = sub.add_parser("schema", formatter_class=formatter, help="print the JSON Schema of a suite's episode lines")
    _suite_arg(p)
    p.set_defaults(handler=cmd_schema)


def cmd_schema(args: argparse.Namespace) -> int:
    from heedful.suites.registry import get_suite

    sys.stdout.write(get_suite(args.suite).episode_schema())
    return 0


def add_list(sub: Any, formatter: Any) -> None:
    p = sub.add_parser("list", formatter_class=formatter, help="list suites and agents")
    p.set_defaults(handler=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    from heedful.agents.registry import agent_names
    from heedful.suites.registry import SUITES

    for suite in SUITES.names():
        print(f"suite {suite}: agents {', '.join(agent_names(suite))}")
    return 0


# --- replay


def add_replay(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "replay",
        formatter_class=formatter,
        help="animate one episode of a household run (GIF)",
        description=(
            "Re-execute the tool calls an agent made in one episode of a household run (the simulator is "
            "deterministic) and draw every step top-down: the agent with its field of view, the human, the "
            "objects. Writes an animated GIF, or the last frame as PNG when FILE ends in .png."
        ),
    )
    p.add_argument("run", type=Path, help="run directory")
    p.add_argument("episode_id", help="episode id, e.g. val_seen-s_hum-001")
    p.add_argument("--out", type=Path, required=True, help="output file (.gif or .png)")
    p.add_argument("--dataset", type=Path, help="dataset directory (default: the run's own source)")
    p.add_argument("--every", type=int, default=2, help="draw every N-th step")
    p.set_defaults(handler=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from heedful.suites.household.replay import write_replay

    summary = write_replay(args.run, args.episode_id, args.out, dataset=args.dataset, every=args.every)
    print(summary)
    return 0


# --- entropy, demos (tabletop)


def add_entropy(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "entropy",
        formatter_class=formatter,
        help="scene entropy H(T | S) of a task set",
        description=(
            "Group task labels by their task-independent initial scene and report H(T | S) = sum_g p_g log2 n_g "
            "in bits: of the tabletop training set (default), of your own task set (--tasks, JSON lines with "
            '"task" and "scene"), or of LIBERO\'s suites (--libero).'
        ),
    )
    p.add_argument("--tasks", type=Path, help='JSON lines, one task per line: {"task": ..., "scene": {...}}')
    p.add_argument("--libero", action="store_true", help="LIBERO's four suites and their mean")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(handler=cmd_entropy)


def cmd_entropy(args: argparse.Namespace) -> int:
    import json

    from heedful.api import entropy

    result = entropy(args.tasks, libero=args.libero)
    if args.format == "json":
        print(json.dumps(result, indent=2))
        return 0
    for group in result["groups"]:
        name = group.get("scene", group.get("suite"))
        size = f"{group['tasks']} tasks" if "tasks" in group else f"{group['bits']:.3f} bits"
        print(f"{name}: {size}")
    print(f"H(T | S) = {result['bits']:.3f} bits" + (" (mean over suites)" if args.libero else ""))
    return 0


def add_demos(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "demos",
        formatter_class=formatter,
        help="write expert demonstrations as HDF5 (LIBERO / robomimic layout) or a LeRobot dataset",
        description=(
            "Run the scripted expert on every training task (50 demos each by default: 3,750), each in a fresh "
            "1-2 cm perturbation of its scene with a sampled paraphrase, into DIR/<task>_demo.hdf5. Resumable: "
            "run the same command again to continue. The layout is documented in heedful.suites.tabletop.demo_file. "
            "--format lerobot writes the same demos as a LeRobot dataset rooted at DIR instead (one episode per "
            "demo, the instruction as its task, 20 fps, images upright) through the lerobot library, an optional "
            'extra (pip install "heedful[lerobot]"); layout in heedful.suites.tabletop.lerobot_demos. Nothing is '
            "pushed to a hub."
        ),
    )
    p.add_argument("suite", choices=["tabletop"], help="suite (only tabletop has demonstrations)")
    p.add_argument("--out", type=Path, required=True, help="output directory")
    p.add_argument("--cameras", action="store_true", help="also store agentview and wrist images")
    p.add_argument("--image-size", type=int, default=128, help="image height and width with --cameras")
    p.add_argument("--per-task", type=int, default=50, help="demonstrations per training task")
    p.add_argument(
        "--task", action="append", dest="tasks", metavar="LABEL", help="only this training task (repeatable)"
    )
    p.add_argument("--seed", type=int, default=0, help="perturbation and paraphrase seed")
    p.add_argument("--format", choices=["hdf5", "lerobot"], default="hdf5", help="output format")
    p.add_argument(
        "--repo-id",
        default=argparse.SUPPRESS,
        help="with --format lerobot: the dataset's repo id, local only (default: heedful/tabletop-demos)",
    )
    p.add_argument(
        "--video", action="store_true", help="with --format lerobot: store the cameras as video instead of PNG frames"
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=cmd_demos)


def cmd_demos(args: argparse.Namespace) -> int:
    from heedful.api import demos

    progress = LazyProgress(not args.no_progress, "demo", "demos tabletop")
    try:
        summary = demos(
            args.out,
            per_task=args.per_task,
            cameras=args.cameras,
            image_size=args.image_size,
            seed=args.seed,
            tasks=args.tasks,
            progress=progress,
            format=args.format,
            repo_id=getattr(args, "repo_id", None),
            video=args.video,
        )
    finally:
        progress.close()
    print(
        f"{summary['demos']} demos of {summary['tasks']} tasks in {args.out} "
        f"({summary['written']} written now, {summary['rejected']} expert attempts rejected)"
    )
    return 0


REGISTRARS = [
    add_generate,
    add_run,
    add_report,
    add_export,
    add_compare,
    add_schema,
    add_list,
    add_replay,
    add_entropy,
    add_demos,
    add_serve,
]
