"""`heedful show RUN EPISODE_ID`: one episode of a run, in the terminal."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_show(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "show",
        formatter_class=formatter,
        help="print one episode of a run: input, gold, prediction, raw text, scores",
        description=(
            "Print one episode of a run: the instruction the agent was given, what it observed (the state and "
            "candidates, the layout, the house) or the image path, the exact prompt of a language agent, the gold, "
            "the prediction and the raw model text, the scores (tabletop: every stage's Intent and Execution with "
            "its reason), the status and the error. Episode ids are in `heedful export RUN` (tabletop trials "
            "look like s1_L0_000_pickup/t0)."
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
