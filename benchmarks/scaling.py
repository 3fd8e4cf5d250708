"""Episodes/s and peak memory against dataset size and worker processes (`run_all.py --scaling`).

    MUJOCO_GL=egl python benchmarks/scaling.py [--quick]

Every point runs in a fresh process: generate the dataset at k times the default size, then run the oracle
through the runner. Cost must grow linearly in episodes (episodes/s flat) and the run must not hold its
records: the memory the run adds on top of the loaded dataset ("run MB") must stay flat as episodes grow.
Points: decisions at 1x, 5x, 10x with 1 worker and 1x with 2 (4x is not a size its generator can fill: one
anchor finds too few distinct families at that setting); household at 1x and 4x (per_split_type).
`--quick` uses small fractions of those sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DECISIONS_DEFAULT = {"object_anchors": 21, "action_anchors": 64, "atomic_families": 988, "multi_families": 21}
HOUSEHOLD_DEFAULT = {"per_split_type": 40}


def _config(suite: str, factor: float) -> dict[str, Any]:
    base = DECISIONS_DEFAULT if suite == "decisions" else HOUSEHOLD_DEFAULT
    config: dict[str, Any] = {key: max(1, round(value * factor)) for key, value in base.items()}
    if suite == "decisions":
        config["visual_families"] = 0  # the visual subset renders images; this is about the runner
    return config


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def point(suite_name: str, factor: float, workers: int) -> dict[str, Any]:
    """One scaling point, in this process."""
    from heedful.runner import RunSpec, run
    from heedful.suites.registry import get_suite

    suite = get_suite(suite_name)
    episodes = suite.generate(0, _config(suite_name, factor))
    loaded = _rss_mb()
    spec = RunSpec(
        suite=suite_name,
        suite_version=suite.version,
        dataset_hash=suite.dataset_hash(episodes),
        dataset_source="benchmark",
        agent="oracle",
        seed=0,
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run(spec, episodes, Path(tmp) / "run", workers=workers, progress=False)
        wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "suite": suite_name,
        "factor": factor,
        "workers": workers,
        "episodes": len(episodes),
        "episodes_per_s": round(len(episodes) / wall, 1),
        "dataset_mb": round(loaded, 1),
        "peak_mb": round(peak, 1),
        "run_mb": round(peak - loaded, 1),
    }


def scaling_table(quick: bool, suites: tuple[str, ...] = ("decisions", "household")) -> list[dict[str, Any]]:
    """Every point of `suites`, each in its own process (so each peak is its own)."""
    shrink = 0.05 if quick else 1.0
    points = [("decisions", f, 1) for f in (1, 5, 10)] + [("decisions", 1, 2)]
    points += [("household", f, 1) for f in (1, 4)]
    points = [p for p in points if p[0] in suites]
    rows = []
    for suite, factor, workers in points:
        print(f"scaling: {suite} x{factor}, {workers} worker(s) ...", file=sys.stderr, flush=True)
        args = [sys.executable, __file__, "--point", suite, str(factor * shrink), str(workers)]
        done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "MUJOCO_GL": "egl"})
        if done.returncode != 0:
            rows.append({"suite": suite, "factor": factor, "workers": workers, "error": done.stderr.strip()[-300:]})
            continue
        rows.append({**json.loads(done.stdout.strip().splitlines()[-1]), "factor": factor})
    return rows


def render_scaling(rows: list[dict[str, Any]]) -> str:
    header = ["suite", "size", "workers", "episodes", "episodes/s", "dataset MB", "peak MB", "run MB"]
    table = [header]
    for r in rows:
        if "error" in r:
            table.append([r["suite"], f"{r['factor']}x", str(r["workers"]), "FAILED", r["error"][-60:], "", "", ""])
            continue
        table.append(
            [r["suite"], f"{r['factor']}x", str(r["workers"]), str(r["episodes"]), f"{r['episodes_per_s']:.1f}"]
            + [f"{r[k]:.0f}" for k in ("dataset_mb", "peak_mb", "run_mb")]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in table)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small fractions of the sizes (checks that it runs)")
    parser.add_argument("--suite", action="append", choices=["decisions", "household"], help="only this suite")
    parser.add_argument("--point", nargs=3, metavar=("SUITE", "FACTOR", "WORKERS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.point:
        suite, factor, workers = args.point
        print(json.dumps(point(suite, float(factor), int(workers))))
        return 0
    print(render_scaling(scaling_table(args.quick, tuple(args.suite or ("decisions", "household")))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
