"""Why ambiguous S_hum barely needs the human's motion (issue 40): a diagnosis, not a score.

For each agent on the ambiguous S_hum episodes of a dataset: SR and SPL; how often the first room it tried to
give in after the pick-up was the human's destination (what its evidence was worth: chance is about one in the
number of fitting rooms); how the successful Give found the human (standing in the destination room, or in
another room: walking there, or seen through a doorway); Gives per episode. Then, for the dataset: after how
many steps of the human's walk, watched from its start, `towards.heading_for` singles out the destination among
the fitting rooms (the paper's "temporal" dimension: when the motion could tell).

    python benchmarks/household_shum_diagnosis.py DATASET_DIR [--agents situated,commonsense,sweep]
        [--follow 40] [--workers 2]

`--follow N` adds `situated` with a follow budget of N steps (`situated-fN`). Numbers in
docs/household-controls.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from heedful.agents.household import CommonsenseAgent, OracleAgent, SituatedAgent
from heedful.agents.household_sweep import SweepAgent
from heedful.protocols import PlannerAgent
from heedful.suites.household import executors
from heedful.suites.household.executors import entry_fields
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.runtime import TaskEnv, human_path, room_of
from heedful.suites.household.suite import SUITE
from heedful.suites.household.towards import heading_for

AGENTS: dict[str, Callable[[], PlannerAgent]] = {
    "oracle": OracleAgent,
    "commonsense": CommonsenseAgent,
    "situated": SituatedAgent,
    "sweep": SweepAgent,
}
_EPISODES: list[HouseholdEpisode] = []


@dataclass(frozen=True)
class Outcome:
    success: bool
    spl: float
    first_try_is_goal: bool
    found: str
    """How the successful Give found the human: 'goal room' or 'other room'; 'failed' otherwise."""
    gives: int


def _agent(name: str) -> PlannerAgent:
    if name.startswith("situated-f"):
        return SituatedAgent(follow_budget=int(name.removeprefix("situated-f")))
    return AGENTS[name]()


def _rollout(name: str, index: int) -> Outcome:
    episode = _EPISODES[index]
    found_in: list[int] = []  # the human's room when each Give found it
    look = executors._look_for_human

    def watched(env: TaskEnv) -> bool:
        ok = look(env)
        found_in.append(room_of(env.episode.house, *env.sim.human_xy) if ok else -1)
        return ok

    executors._look_for_human = watched  # forked worker: the patch ends with the process
    try:
        run = run_episode(episode, _agent(name), seed=0)
    finally:
        executors._look_for_human = look
    assert run.score is not None
    goal = episode.human.destination_room
    history = run.env.history
    picked = next((i for i, h in enumerate(history) if h.action.startswith("Pick up") and h.ok), len(history))
    first_give = next((h.room for h in history[picked:] if h.action == "Give to Human"), None)
    found = "failed"
    if run.score.success:
        found = "goal room" if found_in and found_in[-1] == goal else "other room"
    gives = sum(h.action == "Give to Human" for h in history)
    return Outcome(run.score.success, run.score.spl, first_give == goal, found, gives)


def split_step(episode: HouseholdEpisode, every: int = 5) -> int | None:
    """The first step (in multiples of `every`) at which the walk seen from its start heads for the destination
    alone among the fitting rooms; None when it never does before the human arrives."""
    env = TaskEnv.start(episode)
    walk = human_path(episode, env.grid)
    fields = entry_fields(env.grid, episode.house)
    fits = set(episode.candidate_rooms)
    for step in range(every, walk.arrival_step + 1, every):
        track = [(t, *walk.position(t)) for t in range(step + 1)]
        if set(heading_for(env.grid, track, fields)) & fits == {episode.human.destination_room}:
            return step
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--agents", default="situated,commonsense,sweep")
    parser.add_argument("--follow", type=int, action="append", default=[], help="add situated-fN (follow budget)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    episodes = [ep for ep in SUITE.load_dataset(args.dataset) if ep.task_type == "s_hum" and ep.ambiguous]
    _EPISODES[:] = episodes
    fits = np.mean([len(ep.candidate_rooms) for ep in episodes])
    print(f"{args.dataset}: {len(episodes)} ambiguous S_hum episodes, {fits:.2f} fitting rooms on average")
    names = args.agents.split(",") + [f"situated-f{n}" for n in args.follow]
    for name in names:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            outcomes = pool.map(partial(_rollout, name), range(len(episodes)), chunksize=4)
        found = Counter(o.found for o in outcomes)
        print(
            f"  {name:14} SR {100 * np.mean([o.success for o in outcomes]):5.1f}"
            f"  SPL {100 * np.mean([o.spl for o in outcomes]):5.1f}"
            f"  first room tried = destination {sum(o.first_try_is_goal for o in outcomes):2d}/{len(outcomes)}"
            f"  found in destination room {found['goal room']:2d}, elsewhere {found['other room']:2d}"
            f"  Gives/episode {np.mean([o.gives for o in outcomes]):.1f}",
            flush=True,
        )
    steps = [split_step(ep) for ep in episodes]
    known = np.array([s for s in steps if s is not None])
    quantiles = ", ".join(f"{q}%: {np.percentile(known, q):.0f}" for q in (10, 25, 50, 75)) if known.size else "-"
    print(
        f"  walk singles out the destination among the fitting rooms (heading_for, watched from its start) "
        f"after steps {quantiles} of those that do; never before arrival: {steps.count(None)}/{len(steps)}"
    )


if __name__ == "__main__":
    main()
