"""Every performance measure of heedful in one run: one table, and the same as JSON to compare two commits.

    MUJOCO_GL=egl python benchmarks/run_all.py [--quick] [--json OUT] [--only NAME ...] [--scaling]

Each row is a ratio against a reference measured in the same run (these machines are shared and noisy), with
its target and whether it is met. Each measure runs in its own child process, whose peak resident memory is
reported beside it (in brackets: the largest of the processes it starts, pool workers or CLI runs). `--quick`
runs tiny sizes: it checks that every benchmark runs (CI runs it), never a time. `--scaling` adds the table
of episodes/s and peak memory against dataset size and workers (`scaling.py`). Measures (see `measures.py`):
decisions_runner, household_runner, tabletop_runner, cli_startup, tabletop_env, tabletop_protocol,
lerobot_export.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measures import MEASURES, Sizes

CHILD_FLAG = "--child"


class DescendantPeak:
    """The largest peak RSS (VmHWM) of any process below this one, polled from /proc while a measure runs (the
    worker processes of a pool are gone when it ends; rusage's child maximum counts the parent's pages at fork)."""

    def __init__(self, every_s: float = 0.2) -> None:
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, args=(every_s,), daemon=True)

    def __enter__(self) -> DescendantPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            for pid in _descendants(os.getpid()):
                self.peak_kb = max(self.peak_kb, _hwm_kb(pid))


def _descendants(pid: int) -> list[int]:
    try:
        found = [int(c) for t in Path(f"/proc/{pid}/task").iterdir() for c in (t / "children").read_text().split()]
    except OSError:  # not Linux, or the process ended
        return []
    return found + [d for c in found for d in _descendants(c)]


def _hwm_kb(pid: int) -> int:
    try:
        line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return 0
    return int(line.split()[1])


def run_child(name: str, quick: bool) -> None:
    """In the child process: run one measure and print its rows as one JSON line."""
    sizes = Sizes(quick=quick, rounds=1 if quick else 3)
    start = time.perf_counter()
    with DescendantPeak() as workers:
        rows = [row.as_dict() for row in MEASURES[name](sizes)]
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    result = {"rows": rows, "peak_mb": round(own, 1), "worker_peak_mb": round(workers.peak_kb / 1024, 1)}
    print(json.dumps({**result, "wall_s": round(time.perf_counter() - start, 1)}))


def run_measure(name: str, quick: bool) -> dict[str, Any]:
    """Run one measure in a fresh child process; a measure that fails is reported with its error, not hidden."""
    args = [sys.executable, __file__, CHILD_FLAG, name] + (["--quick"] if quick else [])
    done = subprocess.run(
        args, capture_output=True, text=True, env={**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"measure": name, "error": (done.stderr.strip().splitlines() or ["no output"])[-1], "rows": []}
    result: dict[str, Any] = json.loads(lines[-1])
    return {"measure": name, **result}


def _cell(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def render(results: list[dict[str, Any]]) -> str:
    header = ["measure", "value", "reference", "ratio", "target", "met", "peak MB (workers)"]
    table = [header]
    for result in results:
        if "error" in result:
            table.append([result["measure"], f"FAILED: {result['error']}", "", "", "", "no", ""])
            continue
        peak = f"{result['peak_mb']:.0f}" + (
            f" ({result['worker_peak_mb']:.0f})" if result["worker_peak_mb"] > 1 else ""
        )
        for row in result["rows"]:
            met = {True: "yes", False: "NO", None: "-"}[row["met"]]
            table.append(
                [row["measure"], row["value"], row["reference"], _cell(row["ratio"]), row["target"] or "-", met, peak]
            )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(r, widths, strict=True)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"  {row['measure']}: {row['note']}" for result in results for row in result["rows"] if row.get("note")]
    return "\n".join(lines + (["notes:", *notes] if notes else []))


def machine() -> dict[str, Any]:
    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
    )
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "git": revision.stdout.strip() or None,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that each benchmark runs (CI)")
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    parser.add_argument("--only", nargs="+", choices=sorted(MEASURES), help="run only these measures")
    parser.add_argument("--scaling", action="store_true", help="also the scaling table (size x workers)")
    parser.add_argument(CHILD_FLAG, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_child(args.child, args.quick)
        return 0
    results = []
    for name in args.only or list(MEASURES):
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.append(run_measure(name, args.quick))
    print(render(results))
    report: dict[str, Any] = {"machine": machine(), "quick": args.quick, "results": results}
    if args.scaling:
        from scaling import render_scaling, scaling_table

        report["scaling"] = scaling_table(args.quick)
        print(render_scaling(report["scaling"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    failed = [r["measure"] for r in results if "error" in r]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
