"""`heedful sweep SWEEP.toml`: run a matrix of runs as one resumable job and print its combined table;
`heedful sweep DIR` prints the table of a sweep directory (see `heedful.sweep`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.common import add_max_errors


def add_sweep(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "sweep",
        formatter_class=formatter,
        help=command_help("sweep"),
        description=(
            "Run every cell of a sweep file (agents or checkpoints x suites x seeds x option sets), each into its "
            "own resumable run directory OUT/SUITE/AGENT[/OPTIONS]/seedS, then print one table of every cell's "
            "overall metrics with 95% intervals and, with `baseline = AGENT`, the paired differences against that "
            "agent. Run the same command again to continue a stopped sweep. The file format is in heedful.sweep's "
            "docstring (python -c 'import heedful.sweep; help(heedful.sweep)')."
        ),
    )
    p.add_argument("sweep", type=Path, help="a sweep file (.toml), or a sweep directory to print its table")
    p.add_argument("--out", type=Path, help="the sweep directory (default: the file's `out`)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples of the table's intervals")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    add_max_errors(p)
    p.set_defaults(handler=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    from heedful.cli.results_commands import sweep_verdict
    from heedful.outcome import parse_max_errors
    from heedful.sweep import load_sweep, run_sweep, sweep_table

    max_errors = parse_max_errors(args.max_errors)
    if args.sweep.is_dir():
        print(sweep_table(args.sweep, resamples=args.resamples))
        return sweep_verdict(args.sweep, max_errors)
    sweep = load_sweep(args.sweep, args.out)
    run_sweep(sweep, progress=not args.no_progress, say=lambda line: print(line, file=sys.stderr))
    print(sweep_table(sweep.out, resamples=args.resamples))
    return sweep_verdict(sweep.out, max_errors)
