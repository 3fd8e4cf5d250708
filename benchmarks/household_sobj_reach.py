"""Household: do the words alone leave time to look in every room they fit? (issue 40, the sif-v7 reach rule)

For each ambiguous S_obj episode of a dataset, the words-only search of `heedful.suites.household.reach` (nearest
fitting room first, a scan in each, then the delivery) from the agent's start:

- `reach all`: the search looks in every fitting room and delivers within the step limit (sif-v7 drops such drafts);
- `goal in reach`: it finds the object's actual room and delivers in time;
- with --scores (a `household_controls.py --save` file of the same dataset), how often `goal in reach` agrees with
  commonsense's (words only, no motion) actual success: the estimate's check against the agent it models.

    python benchmarks/household_sobj_reach.py --dataset DIR [--scores s0.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from heedful.sims.household.grid import grid_for
from heedful.sims.household.sim import MAX_STEPS
from heedful.suites.household.dataset import load_episodes
from heedful.suites.household.reach import search_tour, steps_if_found_in
from heedful.suites.household.tasks import rooms_with_goal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--scores", type=Path, help="a household_controls.py --save file of the same dataset")
    args = parser.parse_args()
    episodes = [e for e in load_episodes(args.dataset) if e.task_type == "s_obj" and e.ambiguous]
    commonsense = json.loads(args.scores.read_text())["scores"]["commonsense"] if args.scores else None
    reach_all = goal_reached = agree = 0
    for episode in episodes:
        house = episode.house
        grid = grid_for(house, episode.cell_m)  # cached per house
        goals = rooms_with_goal(house, episode.goal)
        tour = search_tour(grid, house, episode.agent_start[:2], episode.candidate_rooms)
        reach_all += steps_if_found_in(grid, house, tour, tour[-1][0], goals) <= MAX_STEPS
        target = next(r for r in episode.relocations if r.category == episode.target_category)
        room = house.receptacle(target.to_receptacle).room
        in_reach = steps_if_found_in(grid, house, tour, room, goals) <= MAX_STEPS
        goal_reached += in_reach
        if commonsense is not None:
            agree += in_reach == (commonsense[episode.episode_id][0] > 0)
    n = len(episodes)
    print(f"{args.dataset}: {n} ambiguous S_obj episodes")
    print(f"  words-only search reaches every fitting room in time: {reach_all} of {n}")
    print(f"  ... reaches the object's room in time: {goal_reached} of {n}")
    if commonsense is not None:
        print(f"  'goal in reach' agrees with commonsense's success in {agree} of {n}")


if __name__ == "__main__":
    main()
