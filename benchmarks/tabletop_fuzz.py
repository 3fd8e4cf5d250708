"""Trajectory fuzzer of the tabletop scores (issue 38): random programs of skills and free motions on every
scene and level in MuJoCo, each trial scored by the suite's scorer and by the independent reference
verifier; prints the disagreements (task, trial, seed: rerun one with `fuzz_trial`) and the counts per scene.

Needs only heedful's tabletop extra (mujoco, numpy, pydantic, gymnasium). Standalone on a many-core machine:

    PYTHONPATH=src python benchmarks/tabletop_fuzz.py --workers 16 --trials-per-scene 5000 --out fuzz.json

Trials are spread round-robin over each scene's tasks (all levels) and the 10 trial seeds; the program
seed is `--seed` + the trial's index, so a run is deterministic and splits over workers freely. The scenes
are interleaved, so a run cut short by `--minutes` has about as many trials of each.
Exit status 1 when any disagreement was found.

Every trial's trajectory is also edited into boundary probes (`fuzz_edges.py`: copies just inside and just
outside each threshold of the specification); a probe on which the two disagree counts as a disagreement of
its trial. `--mutants` instead measures the fuzzer's power: on the same trials and probes it scores every
trajectory with a scorer or a verifier whose one threshold is moved (`fuzz_mutants.MUTANTS`), and counts the
trials on which each mutant disagrees with the other implementation. A mutant that no trial exposes marks
a rule the fuzzer does not exercise.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

from heedful.suites.tabletop.fuzz import FuzzResult, describe, fuzz_trajectory, fuzz_trial, probes_of, scorer_view
from heedful.suites.tabletop.fuzz_mutants import MUTANTS, mutated
from heedful.suites.tabletop.model import SCENES
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.scoring import score_trajectory
from heedful.suites.tabletop.verifier import verify


def plan(trials_per_scene: int, seed: int, scenes: tuple[int, ...]) -> list[tuple[str, int, int]]:
    """(task, trial, program seed) of every fuzzed trial, the scenes interleaved (a run stopped by --minutes
    has as many trials of each)."""
    per_scene = []
    for scene in scenes:
        tasks = [t.task for t in evaluation_tasks() if t.scene == scene]
        per_scene.append([(tasks[k % len(tasks)], (k // len(tasks)) % 10, seed + k) for k in range(trials_per_scene)])
    return [job for group in zip(*per_scene, strict=True) for job in group]


def mutant_chunk(chunk: list[tuple[str, int, int]]) -> list[tuple[str, int, int, list[str]]]:
    """Per trial: the mutants that disagree with the other implementation on it or on one of its probes."""
    tasks = {t.task: t for t in evaluation_tasks()}
    out = []
    for name, trial, seed in chunk:
        task = tasks[name]
        traj, layout, _ = fuzz_trajectory(task, trial, seed)
        if traj is None:
            continue
        cases = [traj] + [p for _, p in probes_of(traj, task, layout, trial, seed)]
        g, scene = task.grounded, task.scene
        base = [
            (scorer_view(score_trajectory(c, g, layout, scene)), verify(c, g, layout, scene).comparable())
            for c in cases
        ]
        caught = []
        for m in MUTANTS:
            for c, (mine, theirs) in zip(cases, base, strict=True):
                with mutated(m):
                    if m.module == "verifier":
                        moved, other = verify(c, g, layout, scene).comparable(), mine
                    else:
                        moved, other = scorer_view(score_trajectory(c, g, layout, scene)), theirs
                if moved != other:
                    caught.append(m.label)
                    break
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
    parser.add_argument("--minutes", type=float, help="stop starting new trials after this long; report those run")
    parser.add_argument("--out", help="write every disagreement and the counts as JSON here")
    parser.add_argument("--mutants", action="store_true", help="measure which nudged verifier numbers are caught")
    args = parser.parse_args(argv)
    jobs = plan(args.trials_per_scene, args.seed, tuple(args.scene or SCENES))
    chunks = [jobs[i : i + 25] for i in range(0, len(jobs), 25)]
    if args.mutants:
        with ProcessPoolExecutor(max(args.workers, 1)) as pool:
            found = [r for done in pool.map(mutant_chunk, chunks) for r in done]
        for m in MUTANTS:
            hits = [r for r in found if m.label in r[3]]
            example = f" (e.g. {hits[0][0]} trial {hits[0][1]} seed {hits[0][2]})" if hits else ""
            print(f"{m.label:52} caught on {len(hits):5d} of {len(found)} trials{example}")
        return 0 if all(any(m.label in r[3] for r in found) for m in MUTANTS) else 1
    start = time.perf_counter()
    deadline = start + 60 * args.minutes if args.minutes else None
    results: list[FuzzResult] = []
    with ProcessPoolExecutor(max(args.workers, 1)) as pool:
        pending = iter(chunks)
        running = [pool.submit(run_chunk, c) for c in itertools.islice(pending, 2 * max(args.workers, 1))]
        while running:  # in order, at most 2 chunks per worker in flight
            done = running.pop(0).result()
            results += done
            print(f"{len(results)}/{len(jobs)} trials", file=sys.stderr, flush=True)
            for r in done:  # as they come, so a long run can be stopped at the first one
                if r.diffs or r.probe_diffs:
                    print("FOUND", describe(r), file=sys.stderr, flush=True)
            if deadline is None or time.perf_counter() < deadline:
                running += [pool.submit(run_chunk, c) for c in itertools.islice(pending, 1)]
    if len(results) < len(jobs):
        print(f"stopped after --minutes {args.minutes}: {len(results)} of {len(jobs)} planned trials ran")
    seconds = time.perf_counter() - start
    per_scene: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        c = per_scene[r.task[:2]]
        c["trials"] += 1
        c["errors"] += r.error is not None
        c["complete"] += bool(r.scorer.get("complete"))
        c["intent_full"] += r.scorer.get("intent") == 1.0
        c["disturbed"] += bool(r.scorer.get("disturbed"))
        c["probes"] += r.probes
        c["probe_disagreements"] += len(r.probe_diffs)
        c["disagreements"] += bool(r.diffs or r.probe_diffs)
    bad = [r for r in results if r.diffs or r.probe_diffs]
    for r in bad:
        print("DISAGREEMENT", describe(r))
    for r in results:
        if r.error:
            print("ERROR", r.task, r.trial, r.seed, r.error)
    keys = (
        "trials",
        "errors",
        "complete",
        "intent_full",
        "disturbed",
        "probes",
        "probe_disagreements",
        "disagreements",
    )
    print(f"{'scene':6} " + " ".join(f"{k:>{max(len(k), 7)}}" for k in keys))
    for scene, c in sorted(per_scene.items()):
        print(f"{scene:6} " + " ".join(f"{c[k]:>{max(len(k), 7)}d}" for k in keys))
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
