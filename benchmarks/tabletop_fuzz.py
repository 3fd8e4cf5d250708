"""Trajectory fuzzer of the tabletop scores (issue 38): random programs of skills and free motions on every
scene and level in MuJoCo, each trial scored by the suite's scorer and by the independent reference
verifier; prints the disagreements (task, trial, seed: rerun one with `fuzz_trial`) and the counts per scene.

Needs only heedful's tabletop extra (mujoco, numpy, pydantic, gymnasium). Standalone on a many-core machine:

    PYTHONPATH=src python benchmarks/tabletop_fuzz.py --workers 16 --trials-per-scene 5000 --out fuzz.json

Trials are spread round-robin over each scene's tasks (all levels) and the 10 trial seeds; the program
seed is `--seed` + the trial's index, so a run is deterministic and splits over workers freely.
Exit status 1 when any disagreement was found.

`--mutants` instead measures the fuzzer's power: on the same trials it scores every trajectory with
verifiers whose one number is nudged (`MUTANTS`), and counts the trials on which each mutant disagrees with
the scorer. A mutant that no trial exposes marks a rule the fuzzer does not exercise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

from heedful.suites.tabletop import verifier
from heedful.suites.tabletop.fuzz import FuzzResult, compare, describe, fuzz_trajectory, fuzz_trial
from heedful.suites.tabletop.model import SCENES
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.scoring import score_trajectory


def plan(trials_per_scene: int, seed: int, scenes: tuple[int, ...]) -> list[tuple[str, int, int]]:
    """(task, trial, program seed) of every fuzzed trial."""
    jobs = []
    for scene in scenes:
        tasks = [t.task for t in evaluation_tasks() if t.scene == scene]
        for k in range(trials_per_scene):
            jobs.append((tasks[k % len(tasks)], (k // len(tasks)) % 10, seed + k))
    return jobs


MUTANTS: dict[str, tuple[str, float]] = {
    "down at: 0.015 -> 0.03 m above the top": ("DOWN", 0.03),
    "put down gap: 0.03 -> 0.05 m": ("PUT_DOWN_GAP", 0.05),
    "drop heading radius: 0.10 -> 0.15 m": ("HEAD_R", 0.15),
    "support gap: 0.01 -> 0.02 m": ("SUPPORT", 0.02),
    "on the table: 0.01 -> 0.02 m": ("TABLE", 0.02),
    "at rest: 0.02 -> 0.05 m/s": ("REST_V", 0.05),
    "reference may move: 0.02 -> 0.05 m": ("REF_D", 0.05),
    "unexplained motion: 0.02 -> 0.05 m": ("LOOSE_D", 0.05),
    "grace rows: 10 -> 3": ("GRACE_ROWS", 3),
    "disturbance: 0.03 -> 0.05 m": ("DIST_XY", 0.05),
}


def mutant_chunk(chunk: list[tuple[str, int, int]]) -> list[tuple[str, int, int, list[str]]]:
    """Per trial: the mutants that disagree with the scorer on it."""
    tasks = {t.task: t for t in evaluation_tasks()}
    out = []
    for name, trial, seed in chunk:
        task = tasks[name]
        traj, layout, _ = fuzz_trajectory(task, trial, seed)
        if traj is None:
            continue
        score = score_trajectory(traj, task.grounded, layout, task.scene)
        caught = []
        for label, (const, value) in MUTANTS.items():
            saved = getattr(verifier, const)
            setattr(verifier, const, value)
            try:
                if compare(score, verifier.verify(traj, task.grounded, layout, task.scene)):
                    caught.append(label)
            finally:
                setattr(verifier, const, saved)
        out.append((name, trial, seed, caught))
    return out


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
    parser.add_argument("--mutants", action="store_true", help="measure which nudged verifier numbers are caught")
    args = parser.parse_args(argv)
    jobs = plan(args.trials_per_scene, args.seed, tuple(args.scene or SCENES))
    chunks = [jobs[i : i + 25] for i in range(0, len(jobs), 25)]
    if args.mutants:
        with ProcessPoolExecutor(max(args.workers, 1)) as pool:
            found = [r for done in pool.map(mutant_chunk, chunks) for r in done]
        for label in MUTANTS:
            hits = [r for r in found if label in r[3]]
            example = f" (e.g. {hits[0][0]} trial {hits[0][1]} seed {hits[0][2]})" if hits else ""
            print(f"{label:42} caught on {len(hits):5d} of {len(found)} trials{example}")
        return 0
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
