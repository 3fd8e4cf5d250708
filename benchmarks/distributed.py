"""Episodes/s of the serial, process-pool and Ray backends on the same work, Ray's cost per chunk, and the
driver's records/s ceiling (issue 17).

    MUJOCO_GL=egl python benchmarks/distributed.py [--quick] [--workers 2] [--json OUT]

Work: the decisions oracle on the default dataset (4,036 episodes: milliseconds each, so transport and the
driver dominate) and a short tabletop oracle run (48 tasks, one trial each: about a second each, so the simulator
dominates). Ray runs in a local instance started once before the runs (its start-up is reported apart, as a
cluster would be up already); the pool's start-up is inside its runs, as in every pool run.

- Ray / pool: episodes/s of Ray with N actors over the pool with N processes (issue 17's target: >= 0.9).
- Per-chunk overhead: a round trip of one chunk (8 decisions episodes as JSON out, 8 record-sized JSON texts back)
  to an actor that does nothing else, two chunks in flight as the backend keeps them.
- Driver ceiling: records/s the driver alone can parse and commit into a run store (the one writer of every
  backend): a run on any number of nodes cannot store records faster than this.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")


def timed_run(suite: str, out: Path, workers: int, backend: str, **kwargs: Any) -> tuple[float, int]:
    """Wall seconds and records of one oracle run through `heedful.api.evaluate`."""
    from heedful.api import evaluate

    start = time.perf_counter()
    result = evaluate(suite=suite, agent="oracle", out=out, workers=workers, backend=backend, progress=False, **kwargs)
    wall = time.perf_counter() - start
    return wall, sum(result.counts.values())


def backends_on(suite: str, workers: int, tmp: Path, **kwargs: Any) -> dict[str, dict[str, float]]:
    """episodes/s of serial, pool and Ray on the same run; records checked equal (timing aside)."""
    from heedful.runner import load_run

    rows: dict[str, dict[str, float]] = {}
    records: dict[str, list[dict[str, Any]]] = {}
    for name, n, backend in (("serial", 1, "local"), ("pool", workers, "local"), ("ray", workers, "ray")):
        out = tmp / f"{suite}-{name}"
        wall, count = timed_run(suite, out, n, backend, **kwargs)
        rows[name] = {"wall_s": wall, "episodes": count, "episodes_per_s": count / wall}
        records[name] = [r.deterministic_dict() for r in load_run(out)[1]]
    if not records["serial"] == records["pool"] == records["ray"]:
        raise SystemExit(f"{suite}: the backends' records differ")
    return rows


def chunk_overhead(ray: Any, chunks: int) -> float:
    """Milliseconds per chunk round trip to an actor that only echoes sizes, two chunks in flight."""
    from heedful.dataset_cache import cached_dataset
    from heedful.suites.decisions.suite import SUITE

    episodes = cached_dataset(SUITE, 0)[0]
    chunk = [(i, e.model_dump_json()) for i, e in enumerate(episodes[:8])]
    reply = ["x" * 1500] * len(chunk)  # what a decisions record weighs as JSON

    @ray.remote(num_cpus=1)
    class Echo:
        def run_chunk(self, items: list[tuple[int, str]]) -> dict[str, list[str]]:
            return {"records": reply[: len(items)]}

    actor = Echo.remote()  # type: ignore[attr-defined]
    ray.get(actor.run_chunk.remote(chunk))
    start = time.perf_counter()
    pending = [actor.run_chunk.remote(chunk) for _ in range(2)]
    for _ in range(chunks - 2):
        ready, pending = ray.wait(pending, num_returns=1)
        ray.get(ready)
        pending.append(actor.run_chunk.remote(chunk))
    ray.get(pending)
    elapsed = time.perf_counter() - start
    ray.kill(actor)
    return 1000 * elapsed / chunks


def driver_ceiling(run_dir: Path, tmp: Path) -> float:
    """Records/s of parsing record JSON texts and committing them through the runner's BatchedWriter."""
    from heedful.records import Record
    from heedful.runner import RunStore, load_run
    from heedful.runner.commits import BatchedWriter, CommitPolicy

    texts = [r.model_dump_json() for r in load_run(run_dir)[1]]
    out = tmp / "ceiling"
    out.mkdir()
    with RunStore(out) as store:
        writer = BatchedWriter(store, "benchmark", CommitPolicy())
        start = time.perf_counter()
        for i in range(0, len(texts), 8):  # as chunks arrive
            writer.add([Record.model_validate_json(text) for text in texts[i : i + 8]])
        writer.flush()
        elapsed = time.perf_counter() - start
    return len(texts) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test, not a measurement)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()

    import ray

    start = time.perf_counter()
    ray.init(address="local", num_cpus=max(args.workers, os.cpu_count() or 1), include_dashboard=False)
    ray_start = time.perf_counter() - start
    results: dict[str, Any] = {"workers": args.workers, "ray_start_s": ray_start}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        decisions_limit = 200 if args.quick else None
        results["decisions"] = backends_on("decisions", args.workers, tmp, limit=decisions_limit)
        results["tabletop"] = backends_on(
            "tabletop", args.workers, tmp, limit=4 if args.quick else 48, options={"trials": 1}
        )
        results["chunk_overhead_ms"] = chunk_overhead(ray, 100 if args.quick else 2000)
        results["driver_records_per_s"] = driver_ceiling(tmp / "decisions-serial", tmp)
    ray.shutdown()

    print(f"workers {args.workers}; Ray local start-up {ray_start:.1f} s (not in the runs below)")
    print(f"{'work':<10} {'backend':<8} {'episodes':>8} {'wall s':>8} {'episodes/s':>11} {'/ pool':>7}")
    for suite in ("decisions", "tabletop"):
        pool = results[suite]["pool"]["episodes_per_s"]
        for name, row in results[suite].items():
            ratio = row["episodes_per_s"] / pool
            print(
                f"{suite:<10} {name:<8} {row['episodes']:>8.0f} {row['wall_s']:>8.2f} "
                f"{row['episodes_per_s']:>11.1f} {ratio:>7.2f}"
            )
    print(
        f"Ray per-chunk overhead (8 decisions episodes out, 8 records back, 2 in flight): "
        f"{results['chunk_overhead_ms']:.2f} ms"
    )
    print(f"driver ceiling (parse + commit records, one writer): {results['driver_records_per_s']:.0f} records/s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
