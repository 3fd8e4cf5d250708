"""Household perception conditions: the cost of the simulated noisy detector against oracle perception.

Both measured in the same run, same process, same episodes (these machines are shared and noisy):

- semantic-map updates: a random walk of low-level steps with an oracle-perception map (reference) and
  with a map fed through the simulated noisy detector;
- rollouts: the commonsense agent on every `--every`-th default episode under oracle perception
  (reference) and noisy perception (default rates), serially; episodes/s, mean steps and success.

    python benchmarks/household_perception.py [--every 4]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from heedful.agents.household import CommonsenseAgent
from heedful.seeding import derive_rng
from heedful.sims.household.grid import grid_for
from heedful.sims.household.house import generate_house, reachable_floor
from heedful.sims.household.human import standing
from heedful.sims.household.perception import Detector, NoiseRates
from heedful.sims.household.semantic_map import SemanticMap
from heedful.sims.household.sim import HouseSim, ObjectState, Pose
from heedful.suites.household.perception import detector_for
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import SUITE

STEPS = 4000
NOISY = {"perception": "noisy"}


def _walk(detector: Detector | None) -> float:
    house = generate_house("house-09", 0)
    grid = grid_for(house, 0.1)
    cells = np.argwhere(reachable_floor(grid) & (grid.clearance >= 0.4))
    x, y = grid.centre(*map(int, cells[len(cells) // 2]))
    objects = [ObjectState(o.id, o.category, o.x, o.y, o.receptacle) for o in house.objects]
    sim = HouseSim(house, grid, objects, Pose(x, y, 0), standing(x + 1.0, y), max_steps=10 * STEPS)
    SemanticMap(house, detector=detector).attach(sim)
    actions = derive_rng(0, "bench-walk").integers(0, 4, size=STEPS)
    start = time.perf_counter()
    for a in actions:
        if a < 2:
            sim.forward()
        else:
            sim.turn(1 if a == 2 else -1)
    return time.perf_counter() - start


def bench_map() -> None:
    house = generate_house("house-09", 0)
    t_oracle = _walk(None)
    t_noisy = _walk(Detector.draw(NoiseRates(), house, derive_rng(0, "bench-detector")))
    print(f"semantic-map updates ({STEPS} low-level steps, house-09):")
    print(f"  oracle perception (reference): {STEPS / t_oracle:8.0f} steps/s")
    print(f"  noisy (simulated) detector:    {STEPS / t_noisy:8.0f} steps/s ({t_noisy / t_oracle:.2f}x the cost)")


def bench_rollouts(every: int) -> None:
    episodes = SUITE.generate(0)[::every]
    for name, options in (("oracle perception (reference)", {}), ("noisy (simulated) perception", NOISY)):
        start = time.perf_counter()
        runs = [run_episode(ep, CommonsenseAgent(), 0, detector=detector_for(ep, options, 0)) for ep in episodes]
        seconds = time.perf_counter() - start
        scores = [r.score for r in runs if r.score is not None]
        success = np.mean([s.success for s in scores])
        steps = np.mean([s.steps for s in scores])
        print(
            f"  {name:<30} {len(episodes) / seconds:6.1f} episodes/s, {seconds:6.1f} s, "
            f"mean steps {steps:6.1f}, success {success:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=int, default=4, help="run every N-th default episode (1: all 480)")
    args = parser.parse_args()
    bench_map()
    print(f"commonsense agent, every {args.every}-th default episode, serial:")
    bench_rollouts(max(1, args.every))


if __name__ == "__main__":
    main()
