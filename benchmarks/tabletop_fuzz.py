"""Trajectory fuzzer of the tabletop scores (issue 38): random programs of skills and free motions on every
scene and level in MuJoCo, each trial scored by the suite's scorer and by the independent reference
verifier; prints the disagreements (task, trial, seed: rerun one with `fuzz_trial`) and the counts per scene.

Needs only heedful's tabletop extra (mujoco, numpy, pydantic, gymnasium). Standalone on a many-core machine:

    PYTHONPATH=src python benchmarks/tabletop_fuzz.py --workers 16 --trials-per-scene 5000 --out fuzz.json

Trials are spread round-robin over each scene's tasks (all levels) and the 10 trial seeds; the program
seed is `--seed` + the trial's index, so a run is deterministic and splits over workers freely.
Exit status 1 when any disagreement (or an unexpected error) was found.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

from heedful.suites.tabletop.fuzz import FuzzResult, describe, fuzz_trial
from heedful.suites.tabletop.model import SCENES
from heedful.suites.tabletop.registry import evaluation_tasks


def plan(trials_per_scene: int, seed: int, scenes: tuple[int, ...]) -> list[tuple[str, int, int]]:
    """(task, trial, program seed) of every fuzzed trial."""
    jobs = []
    for scene in scenes:
        tasks = [t.task for t in evaluation_tasks() if t.scene == scene]
        for k in range(trials_per_scene):
            jobs.append((tasks[k % len(tasks)], (k // len(tasks)) % 10, seed + k))
    return jobs


def run_chunk(chunk: list[tuple[str, int, int]]) -> list[FuzzResult]:
    tasks = {t.task: t for t in evaluation_tasks()}
    return [fuzz_trial(tasks[name], trial, seed) for name, trial, seed in chunk]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials-per-scene", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scene", type=int, action="append", choices=SCENES, help="only these scenes")
    parser.add_argument("--out", help="write every disagreement and the counts as JSON here")
    args = parser.parse_args(argv)
    jobs = plan(args.trials_per_scene, args.seed, tuple(args.scene or SCENES))
    chunks = [jobs[i : i + 25] for i in range(0, len(jobs), 25)]
    start = time.perf_counter()
    results: list[FuzzResult] = []
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            for done in pool.map(run_chunk, chunks):
                results += done
                print(f"{len(results)}/{len(jobs)} trials", file=sys.stderr, flush=True)
    else:
        for chunk in chunks:
            results += run_chunk(chunk)
            print(f"{len(results)}/{len(jobs)} trials", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    per_scene: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        c = per_scene[r.task[:2]]
        c["trials"] += 1
        c["errors"] += r.error is not None
        c["complete"] += bool(r.scorer.get("complete"))
        c["intent_full"] += r.scorer.get("intent") == 1.0
        c["disturbed"] += bool(r.scorer.get("disturbed"))
        c["disagreements"] += bool(r.diffs)
    bad = [r for r in results if r.diffs]
    for r in bad:
        print("DISAGREEMENT", describe(r))
    for r in results:
        if r.error:
            print("ERROR", r.task, r.trial, r.seed, r.error)
    print(f"{'scene':6} {'trials':>7} {'errors':>7} {'complete':>9} {'intent=1':>9} {'disturbed':>10} {'disagree':>9}")
    for scene, c in sorted(per_scene.items()):
        row = (c["trials"], c["errors"], c["complete"], c["intent_full"], c["disturbed"], c["disagreements"])
        print(f"{scene:6} {row[0]:7d} {row[1]:7d} {row[2]:9d} {row[3]:9d} {row[4]:10d} {row[5]:9d}")
    print(
        f"{len(results)} trials in {seconds:.0f} s with {args.workers} workers: {len(results) / seconds:.2f} trials/s"
    )
    if args.out:
        body = {
            "counts": {k: dict(v) for k, v in per_scene.items()},
            "seconds": seconds,
            "workers": args.workers,
            "disagreements": [asdict(r) for r in bad],
        }
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(body, fh, indent=1, default=str)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
