"""Tabletop protocol benchmark: oracle trials/s over the RoboFollow protocol and demonstrations/s, each as a
ratio against raw simulator steps/s measured in the same run (these machines are shared and noisy).

    MUJOCO_GL=egl python benchmarks/tabletop_protocol.py [--full] [--workers 2] [--demo-tasks 12]

Reference: control steps/s of a bare `TabletopSim.step` loop with hold actions, one process, scene 2.
Rows:
  oracle protocol  `heedful.api.evaluate(tabletop, oracle, workers=N)`, no cameras: the 554 tasks x 1 trial by
                   default, the whole protocol (554 x 10 = 5,540 trials) with --full. trials/s, and the ratio
                   (control steps run per second) / (reference steps/s x workers): every trial steps its full
                   horizon, so this is the share of the bare-stepping ceiling the protocol reaches.
  demos            `generate_demos` for --demo-tasks training tasks x 2 demos, without cameras and with agentview
                   + wrist at 128 x 128: demos/s, and the ratio (demo steps/s) / (reference steps/s).
It also prints the oracle's scores in the paper's Table 1 layout and every trial that is not full marks.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from heedful.api import evaluate
from heedful.metrics.tables import table_text
from heedful.runner import load_run
from heedful.suites.tabletop.demos import DemoSettings, generate_demos
from heedful.suites.tabletop.layouts import PAPER_TABLES
from heedful.suites.tabletop.metrics import tabletop_metrics
from heedful.suites.tabletop.registry import evaluation_tasks, training_layouts, training_tasks
from heedful.suites.tabletop.runtime import TrialRuntime

STEPS = 3000


def reference_steps_per_s(rounds: int = 3) -> float:
    """Best of `rounds` bare stepping loops (hold actions) on the scene 2 layout."""
    best = 0.0
    for _ in range(rounds):
        rt = TrialRuntime(training_layouts()["s2/default"], STEPS)
        hold = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0])
        start = time.perf_counter()
        for _ in range(STEPS):
            rt.sim.step(hold)
        best = max(best, STEPS / (time.perf_counter() - start))
        rt.close()
    return best


def bench_protocol(out: Path, trials: int, workers: int, reference: float) -> dict[str, float]:
    start = time.perf_counter()
    evaluate(suite="tabletop", agent="oracle", out=out, options={"trials": trials}, workers=workers, progress=True)
    wall = time.perf_counter() - start
    _, records = load_run(out)
    steps = sum(int(r.prediction["steps"]) for r in records)
    not_full = [
        f"{r.episode_id}: {r.scores} failed {r.prediction['failed_stage']}"
        for r in records
        if not (r.scores.get("intent") == r.scores.get("execution") == r.scores.get("complete") == 1.0)
    ]
    print(table_text(PAPER_TABLES[0], tabletop_metrics(records, resamples=200)))
    print(f"trials not at full marks: {len(not_full)} of {len(records)}")
    for line in not_full[:20]:
        print("  ", line)
    return {
        "trials": len(records),
        "wall_s": round(wall, 1),
        "trials_per_s": round(len(records) / wall, 2),
        "steps_per_s": round(steps / wall, 0),
        "ratio_vs_reference": round(steps / wall / (reference * workers), 3),
        "not_full": len(not_full),
    }


def bench_demos(out: Path, n_tasks: int, cameras: bool, reference: float) -> dict[str, float]:
    tasks = list(training_tasks())
    chosen = tasks[:: max(1, len(tasks) // n_tasks)][:n_tasks]
    settings = DemoSettings(per_task=2, cameras=cameras, image_size=128)
    start = time.perf_counter()
    summary = generate_demos(out, settings, chosen)
    wall = time.perf_counter() - start
    import h5py  # type: ignore[import-untyped]

    steps = 0
    for path in out.glob("*_demo.hdf5"):
        with h5py.File(path, "r") as f:
            steps += int(f["data"].attrs["total"])
    return {
        "demos": summary["demos"],
        "rejected": summary["rejected"],
        "wall_s": round(wall, 2),
        "demos_per_s": round(summary["demos"] / wall, 2),
        "steps_per_s": round(steps / wall, 0),
        "ratio_vs_reference": round(steps / wall / reference, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the whole protocol: 10 trials of each of the 554 tasks")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--demo-tasks", type=int, default=12)
    args = parser.parse_args()
    print(f"{len(evaluation_tasks())} evaluation tasks, {len(training_tasks())} training tasks")
    reference = reference_steps_per_s()
    print(f"reference: bare TabletopSim.step, one process: {reference:.0f} control steps/s")
    results: dict[str, object] = {"reference_steps_per_s": round(reference, 0)}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        results["demos_no_cameras"] = bench_demos(root / "demos", args.demo_tasks, False, reference)
        print("demos without cameras:", results["demos_no_cameras"])
        results["demos_cameras_128"] = bench_demos(root / "demos_cam", args.demo_tasks, True, reference)
        print("demos with two 128x128 cameras:", results["demos_cameras_128"])
        trials = 10 if args.full else 1
        results["oracle_protocol"] = bench_protocol(root / "run", trials, args.workers, reference)
        print(f"oracle protocol ({trials} trial(s) per task, {args.workers} workers):", results["oracle_protocol"])
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
