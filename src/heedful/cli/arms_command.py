"""`heedful run SUITE --agent A --arms given,empty,other`: one run per instruction arm, as one job
(heedful.arms_job)."""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable
from pathlib import Path

from heedful.errors import ConfigError


def run_arms(args: argparse.Namespace, run_one: Callable[[argparse.Namespace], int]) -> int:
    """Run each arm into JOB/ARM (`run_one` is `heedful run` itself), then point at the job's table; the exit code
    is the most severe of the runs'."""
    from heedful.arms_job import write_job
    from heedful.language.arms import parse_arms

    arms = parse_arms(args.arms)
    if getattr(args, "option_instruction", None) is not None:
        raise ConfigError("--arms runs every arm it names; drop --instruction")
    seed = f"-seed{args.seed}"
    job = Path(args.out) if args.out else Path("runs") / f"{args.suite}-{args.agent}-arms-{'-'.join(arms)}{seed}"
    write_job(job, args.suite, args.agent, arms)
    codes = []
    for arm in arms:
        one = copy.copy(args)
        one.arms, one.out, one.option_instruction = None, job / arm, arm
        print(f"arm {arm}:")
        codes.append(run_one(one))
    print(f"language dependence: heedful report {job}")
    return max(codes)
