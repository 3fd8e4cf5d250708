"""Household suite benchmark: simulator steps/s, planner field cost, and the full 480-episode oracle run.

Every number comes with a reference measured in the same run (these machines are shared and noisy):

- low-level steps/s with visibility and semantic-map updates (and with full view-cell coverage, as the
  explorer and Explore Room use) vs. bare steps without any observation;
- fast-marching distance fields (scikit-fmm) vs. an 8-connected Dijkstra in pure Python on the same grids;
- the full default oracle evaluation (480 episodes) through the runner on 2 worker processes vs. the same
  rollouts in a bare serial loop. Aim: under 120 s wall on 2 cores.

With --resolution it also replays the oracle of every 4th episode at 5 cm instead of 10 cm cells and
compares success, path lengths and time.

    python benchmarks/household.py [--workers 2] [--resolution]
"""

from __future__ import annotations

import argparse
import heapq
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from heedful.metrics.tables import table_text
from heedful.runner import RunSpec, run
from heedful.seeding import derive_rng
from heedful.sims.household.explore import CoverageTracker
from heedful.sims.household.fields import disk, distance_field
from heedful.sims.household.grid import Grid, clear_grid_cache, grid_for
from heedful.sims.household.house import generate_house, reachable_floor
from heedful.sims.household.human import standing
from heedful.sims.household.semantic_map import SemanticMap
from heedful.sims.household.sim import HouseSim, ObjectState, Pose
from heedful.suites.household.generate import OraclePolicy
from heedful.suites.household.layouts import PAPER_TABLES
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import SUITE

STEPS = 4000


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _walk(sim: HouseSim, steps: int, seed: int = 0) -> None:
    """A random walk of forwards and turns (bumping into things counts as a step too)."""
    rng = derive_rng(seed, "bench-walk")
    actions = rng.integers(0, 4, size=steps)
    for a in actions:
        if a < 2:
            sim.forward()
        else:
            sim.turn(1 if a == 2 else -1)


def _sim(house_seed: int = 0) -> HouseSim:
    house = generate_house("house-09", house_seed)
    grid = grid_for(house, 0.1)
    cells = np.argwhere(reachable_floor(grid) & (grid.clearance >= 0.4))
    x, y = grid.centre(*map(int, cells[len(cells) // 2]))
    objects = [ObjectState(o.id, o.category, o.x, o.y, o.receptacle) for o in house.objects]
    return HouseSim(house, grid, objects, Pose(x, y, 0), standing(x + 1.0, y), max_steps=10 * STEPS)


def bench_steps() -> None:
    bare = _sim()
    _, t_bare = timed(lambda: _walk(bare, STEPS))
    mapped = _sim()
    SemanticMap(mapped.house).attach(mapped)
    _, t_map = timed(lambda: _walk(mapped, STEPS))
    covered = _sim()
    SemanticMap(covered.house).attach(covered)
    CoverageTracker(covered)
    _, t_cov = timed(lambda: _walk(covered, STEPS))
    print(f"low-level steps ({STEPS} forward/turn steps, house-09 at 10 cm):")
    print(f"  bare (no observation):                 {STEPS / t_bare:9.0f} steps/s (reference)")
    print(f"  + visibility and semantic map:         {STEPS / t_map:9.0f} steps/s ({t_map / t_bare:.1f}x the cost)")
    print(f"  + view-cell coverage (ray fan):        {STEPS / t_cov:9.0f} steps/s ({t_cov / t_bare:.1f}x)")


def dijkstra(grid: Grid, goal: np.ndarray) -> np.ndarray:
    """8-connected Dijkstra over the planner-free cells, in pure Python (the reference)."""
    rows, cols = grid.shape
    free = grid.plan_free.ravel().tolist()
    dist = [math.inf] * (rows * cols)
    heap = []
    for r, c in np.argwhere(goal & grid.plan_free):
        dist[int(r) * cols + int(c)] = 0.0
        heap.append((0.0, int(r) * cols + int(c)))
    heapq.heapify(heap)
    steps = [(dr, dc, grid.cell * math.hypot(dr, dc)) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        r, c = divmod(u, cols)
        for dr, dc, w in steps:
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols:
                v = rr * cols + cc
                if free[v] and d + w < dist[v]:
                    dist[v] = d + w
                    heapq.heappush(heap, (d + w, v))
    return np.array(dist).reshape(rows, cols)


def bench_fields() -> None:
    house = generate_house("house-09", 0)
    for cell in (0.1, 0.05):
        grid = grid_for(house, cell)
        goals = [disk(grid, *room.rect.center, 0.3) for room in house.rooms]
        _, t_fmm = timed(lambda grid=grid, goals=goals: [distance_field(grid, g) for g in goals])
        _, t_dij = timed(lambda grid=grid, goals=goals: [dijkstra(grid, g) for g in goals])
        n = len(goals)
        print(
            f"distance field at {cell * 100:.0f} cm ({grid.shape[0]}x{grid.shape[1]} cells): scikit-fmm "
            f"{1000 * t_fmm / n:.1f} ms, pure-Python Dijkstra {1000 * t_dij / n:.1f} ms (reference): "
            f"{t_dij / t_fmm:.1f}x faster"
        )


def bench_oracle(episodes: list[HouseholdEpisode], workers: int) -> None:
    suite = SUITE
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        suite.save_dataset(episodes, data, {"seed": 0})
        spec = RunSpec(
            suite="household",
            suite_version=suite.version,
            dataset_hash=suite.dataset_hash(episodes),
            dataset_source=str(data),
            agent="oracle",
            seed=0,
        )
        result, t_pool = timed(lambda: run(spec, episodes, Path(tmp) / "run", workers=workers, progress=False))
        from heedful.api import report

        rows, _ = report(Path(tmp) / "run", resamples=1000)
    clear_grid_cache()  # start as cold as a fresh worker process: no cached grids or distance fields
    _, t_serial = timed(lambda: [run_episode(ep, OraclePolicy(), 0) for ep in episodes])
    print(f"full oracle evaluation, {len(episodes)} episodes: {result.counts}")
    print(f"  runner with {workers} workers:   {t_pool:6.1f} s wall (aim < 120 s)")
    print(f"  bare serial loop (reference): {t_serial:6.1f} s ({t_serial / t_pool:.2f}x the runner's wall time)")
    print("\n\n".join(table_text(table, rows) for table in PAPER_TABLES if table.pivot is not None))


def bench_resolution(episodes: list[HouseholdEpisode]) -> None:
    sample = episodes[::4]
    out = {}
    for cell in (0.1, 0.05):
        runs, seconds = timed(lambda cell=cell: [run_episode(ep, OraclePolicy(), 0, cell=cell) for ep in sample])
        out[cell] = (np.array([(r.score.success, r.score.steps) for r in runs], dtype=float), seconds)
    (a, ta), (b, tb) = out[0.1], out[0.05]
    rel = np.abs(a[:, 1] - b[:, 1]) / a[:, 1]
    print(f"grid resolution, oracle on {len(sample)} episodes (every 4th):")
    change = 100 * (b[:, 1].mean() / a[:, 1].mean() - 1)
    print(f"  success 10 cm {a[:, 0].mean():.3f}, 5 cm {b[:, 0].mean():.3f}")
    print(f"  mean steps 10 cm {a[:, 1].mean():.1f}, 5 cm {b[:, 1].mean():.1f} ({change:+.1f}%)")
    print(f"  per-episode |difference|: mean {100 * rel.mean():.1f}%, median {100 * np.median(rel):.1f}%")
    print(f"  time 10 cm {ta:.1f} s, 5 cm {tb:.1f} s ({tb / ta:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--resolution", action="store_true", help="also compare 5 cm and 10 cm grids")
    args = parser.parse_args()
    bench_steps()
    bench_fields()
    episodes, t_generate = timed(lambda: SUITE.generate(0))
    print(f"generate the default dataset: {len(episodes)} episodes in {t_generate:.1f} s (one process)")
    bench_oracle(episodes, args.workers)
    if args.resolution:
        bench_resolution(episodes)


if __name__ == "__main__":
    main()
