"""Red-team table of issue 38: every red-team double of `heedful.agents.tabletop_redteam` on every task it
applies to (round 0, the protocol's trial seed), scored by the scorer and checked by the independent
verifier. Prints per agent and level the task-macro Intent / Execution / Completion / clean completion (%)
and the disturbance rate, the number of tasks, and any scorer-verifier disagreement.

    PYTHONPATH=src python benchmarks/tabletop_redteam.py --workers 16            # all 554 tasks
    PYTHONPATH=src python benchmarks/tabletop_redteam.py --every 6 --workers 2   # a sample

A double replays a motion planned in a private copy of the trial's scene (a `ReplayController`); scoring
the planned trajectory is what `heedful run` scores, since the replay is deterministic.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

from heedful.agents.tabletop_redteam import REDTEAM
from heedful.suites.tabletop.model import LEVELS
from heedful.suites.tabletop.registry import evaluation_tasks, horizon
from heedful.suites.tabletop.replay import record
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.scoring import score_trajectory
from heedful.suites.tabletop.suite import SUITE
from heedful.suites.tabletop.verifier import verify

Row = tuple[str, str, str, float, float, float, float, float, bool]


def run_agent_task(job: tuple[str, str]) -> Row | None:
    """(agent, task, level, intent, execution, complete, complete_clean, disturbed, verifier agrees)."""
    name, task_id = job
    task = next(t for t in evaluation_tasks() if t.task == task_id)
    trial = SUITE.episodes_for_run([task], {"trials": 1})[0]
    layout = trial_layout(trial)
    double = REDTEAM[name]()
    if not double.applies(task.grounded, layout):
        return None
    traj = record(layout, horizon(task.spec), double.plan(task.grounded, layout, trial))
    s = score_trajectory(traj, task.grounded, layout, task.scene)
    v = verify(traj, task.grounded, layout, task.scene)
    agree = (v.intent, v.execution, v.complete, sorted(v.disturbed)) == (
        s.intent,
        s.execution,
        s.complete,
        sorted(s.disturbed),
    )
    return (
        name,
        task_id,
        task.level,
        s.intent,
        s.execution,
        float(s.complete),
        float(s.complete_clean),
        float(bool(s.disturbed)),
        agree,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=int, default=1, help="every n-th task only")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--agents", help="comma-separated names (default: all)")
    args = parser.parse_args(argv)
    names = args.agents.split(",") if args.agents else list(REDTEAM)
    tasks = [t.task for t in evaluation_tasks()][:: args.every]
    jobs = [(n, t) for n in names for t in tasks]
    start = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            rows = list(pool.map(run_agent_task, jobs, chunksize=4))
    else:
        rows = [run_agent_task(j) for j in jobs]
    seconds = time.perf_counter() - start
    by: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        if row is not None:
            by[(row[0], row[2])].append(row)
            by[(row[0], "all")].append(row)
    print(
        f"{'agent':20} {'level':5} {'tasks':>5} {'intent':>7} {'exec':>7} {'compl':>7} {'clean':>7} "
        f"{'disturb':>7} {'disagree':>8}"
    )
    for name in names:
        for level in (*LEVELS, "all"):
            group = by.get((name, level), [])
            if not group:
                continue
            mean = [100 * sum(r[k] for r in group) / len(group) for k in range(3, 8)]
            bad = sum(1 for r in group if not r[8])
            cells = " ".join(f"{v:7.1f}" for v in mean)
            print(f"{name:20} {level:5} {len(group):5d} {cells} {bad:8d}")
    done = sum(1 for r in rows if r is not None)
    print(f"{done} trials in {seconds:.0f} s ({done / max(seconds, 1e-9):.2f} trials/s, {args.workers} workers)")
    return 1 if any(r is not None and not r[8] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
