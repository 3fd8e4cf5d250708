"""`heedful show RUN EPISODE_ID` (one episode of a run, in the terminal) and `heedful merge` (shard runs into one)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.common import add_max_errors


def add_show(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "show",
        formatter_class=formatter,
        help=command_help("show"),
        description=(
            "Print one episode of a run: the instruction the agent was given, what it observed (the state and "
            "candidates, the layout, the house) or the image path, the exact prompt of a language agent, the gold, "
            "the prediction and the raw model text, the scores (tabletop: every stage's Intent and Execution with "
            "its reason), the status and the error. Episode ids are in `heedful export RUN --format jsonl --out -` "
            "(tabletop trials look like s1_L0_000_pickup/t0)."
        ),
        epilog=(
            "examples:\n  heedful show runs/quickstart obj-12-f08-base\n"
            "  heedful show runs/t-oracle s2_L1_000_place_bowl/t0 --full"
        ),
    )
    p.add_argument("run", type=Path, help="the run directory")
    p.add_argument("episode_id", help="the episode to show")
    p.add_argument("--dataset", type=Path, help="the run's dataset directory, when it has moved")
    p.add_argument("--full", action="store_true", help="print long texts (prompt, raw output) whole")
    p.set_defaults(handler=cmd_show)


def cmd_show(args: argparse.Namespace) -> int:
    from heedful.report.show import show_episode

    print(show_episode(args.run, args.episode_id, dataset=args.dataset, full=args.full))
    return 0


def add_merge(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "merge",
        formatter_class=formatter,
        help=command_help("merge"),
        description=(
            "Join the N run directories that `heedful run ... --shard I/N` wrote (I = 1..N, the same command "
            "otherwise) into one run: all records, the prompts they reference and one manifest. The result "
            "reports, compares, exports and resumes like a run made in one piece. Shards of different runs, a "
            "missing or repeated shard, or an episode in two shards are refused."
        ),
        epilog=(
            "example:\n  heedful run decisions --agent oracle --shard 1/2 --out runs/o-1of2\n"
            "  heedful run decisions --agent oracle --shard 2/2 --out runs/o-2of2\n"
            "  heedful merge runs/o-1of2 runs/o-2of2 --out runs/o"
        ),
    )
    p.add_argument("shards", type=Path, nargs="+", help="the shard run directories")
    p.add_argument("--out", type=Path, required=True, help="the merged run directory (new or empty)")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out")
    add_max_errors(p)
    p.set_defaults(handler=cmd_merge)


def cmd_merge(args: argparse.Namespace) -> int:
    from heedful.outcome import parse_max_errors
    from heedful.runner.merge import merge_runs
    from heedful.runner.verdict import run_verdict

    max_errors = parse_max_errors(args.max_errors)
    merged = merge_runs(args.shards, args.out, force=args.force)
    counts = ", ".join(f"{k} {v}" for k, v in merged.counts.items())
    print(f"merged {len(args.shards)} shards into {args.out}: {counts} (state {merged.state})")
    print(f"report: heedful report {args.out}")
    found = run_verdict(args.out, merged, max_errors)
    if found.code:
        print(f"heedful: {found.line}", file=sys.stderr)
    return found.code
