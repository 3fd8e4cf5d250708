"""Household: can geometry alone predict the goal room of an ambiguous task? (issue 40)

For each seed, the top-1 accuracy on the ambiguous test tasks (S_obj and S_hum apart) of the nearest,
farthest, largest and farthest-from-the-human rules and of a conditional-logit prior over room geometry
fitted on the val splits, against uniform chance among the fitting rooms and the 95% range a uniform
generator would give on the same tasks (`heedful.suites.household.goal_prior`).

    python benchmarks/household_prior.py [--seeds 0 1] [--dataset DIR ...] [--set per_split_type=120] [--drafts N]

With --drafts N (and --dataset), also N ambiguous drafts per house and task type in that dataset's houses, without
the oracle filter (the only filter after the goal draw): the rules on hundreds of goal draws.

Datasets come from the dataset cache (generated once per seed) unless given with --dataset.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from heedful.dataset_cache import cached_dataset
from heedful.suites.household.goal_prior import draft_candidates, prior_table, render_prior_table, rule_rows
from heedful.suites.household.suite import SUITE


def _config(pairs: list[str]) -> dict[str, int]:
    return {key: int(value) for key, value in (pair.split("=", 1) for pair in pairs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1])
    parser.add_argument("--dataset", type=Path, action="append", default=[], help="a generated dataset directory")
    parser.add_argument("--set", action="append", default=[], help="generation override, e.g. per_split_type=120")
    parser.add_argument(
        "--drafts", type=int, default=0, help="also N ambiguous drafts per house and task type (no oracle filter)"
    )
    args = parser.parse_args()
    suite = SUITE
    if args.dataset:
        for path in args.dataset:
            summary = json.loads((path / "dataset.json").read_text())
            episodes = suite.load_dataset(path)
            title = f"{summary.get('version')} seed {summary.get('seed')} ({path})"
            print(render_prior_table(prior_table(episodes), title), flush=True)
            if args.drafts:
                rows = [
                    row
                    for task_type in ("s_obj", "s_hum")
                    for row in rule_rows(
                        draft_candidates(episodes, task_type, args.drafts, int(summary.get("seed", 0))),
                        task_type,
                        "drafts",
                    )
                ]
                print(render_prior_table(rows, f"{title}: {args.drafts} drafts per house and type"), flush=True)
        return
    config = _config(args.set) or None
    for seed in args.seeds:
        episodes, _ = cached_dataset(suite, seed, config, announce=True)
        print(render_prior_table(prior_table(list(episodes)), f"{suite.version} seed {seed} {config or ''}"))


if __name__ == "__main__":
    main()
