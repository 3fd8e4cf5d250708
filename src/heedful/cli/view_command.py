"""`heedful view RUN [RUN ...] --out DIR`: a static site of runs, with an episode browser, that opens offline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.common import note_rerun_agents, rerun_agent_arg


def add_view(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "view",
        formatter_class=formatter,
        help=command_help("view"),
        description=(
            "Write a static site of one or more runs into --out: open DIR/index.html in a browser (from file://, "
            "offline: no server, nothing fetched). It shows each suite's figure of its runs side by side (as `heedful "
            "plot` draws it, with matplotlib: the plots extra), each run's suite, agent, status counts and metric rows "
            "(as `heedful report`); for two or more runs of one suite, their rows side by side and the paired "
            "comparison of the first run (A) with each other one (as `heedful compare`); and an episode browser: "
            "every record, filtered by status, correct / wrong, a group (level, category, task type: the suite's "
            "keys) and a search of ids and instructions, each showing what the agent saw and did (instruction, "
            "inputs, gold and prediction, raw model text, scores, tabletop stages with their reasons, household "
            "actions and model questions). An instruction-arms job (heedful run ... --arms) stands for its arms' "
            "runs and adds its language-dependence table (as heedful report JOB), as do runs of one agent and "
            "selection under distinct arms. Media are made for the episodes --episodes chooses: household replay "
            "GIFs, and tabletop videos: copied from a run made with `heedful run tabletop ... --video`, else made "
            "from the records (a planner's skill calls replayed, a controller re-run) and shown only when the "
            "rolled-out trial reproduces the stored record (stages, steps, scores); otherwise a note says why. A run "
            "directory is read as data: no code it names is imported (only registered agents are re-run, or one "
            "--rerun-agent names) and no file outside it is read."
        ),
        epilog="example: heedful view runs/oracle runs/llm --out site --episodes failed && open site/index.html",
    )
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="run directories (the first is the baseline A)")
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="the site's folder (created; the files of an earlier site there are overwritten)",
    )
    p.add_argument(
        "--episodes",
        default="failed",
        metavar="failed|all|none|N",
        help="which episodes get media: failed (not correct, the default), all, none, or N (the first N of each "
        "run); a household replay or a tabletop video takes a second or a few",
    )
    p.add_argument(
        "--max-media",
        type=int,
        default=None,
        metavar="N",
        help="at most N episodes of each run get media (default 200: a tabletop video made from the records re-runs "
        "its trial); the run's page says how many were left without",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar while media are made")
    rerun_agent_arg(p)
    p.set_defaults(handler=cmd_view)


def cmd_view(args: argparse.Namespace) -> int:
    from heedful.report.site import build_site

    built = build_site(
        list(args.runs),
        args.out,
        episodes=args.episodes,
        max_media=args.max_media,
        progress=not args.no_progress,
        rerun_agents=note_rerun_agents(args.rerun_agent),
    )
    print(
        f"wrote {built['index']}: {built['runs']} run(s), {built['episodes']} episodes, {built['media']} media "
        f"in {built['seconds']:.1f} s",
        file=sys.stdout,
    )
    return 0
