"""Household controls: does each task type need what it claims? (issues 14 and 40)

For each seed, the four scripted agents (oracle, commonsense, situated, sweep) on every episode of the default
dataset; per task type x clarity, SR and SPL with 95% episode-bootstrap intervals, and the paired differences
situated - sweep and situated - commonsense (paired episode bootstrap). Then the calibration targets:

- commonsense (words and priors, blind to the human) at least 15 SR points below PnP on ambiguous S_obj and S_hum;
- situated (commonsense plus the human's motion) above sweep (blind to the place words and the human) on ambiguous
  S_hum, with a paired 95% interval excluding 0, on SR and on SPL.

    python benchmarks/household_controls.py [--seeds 0 1] [--workers 2] [--set per_split_type=8] [--dataset DIR ...]

Datasets come from the dataset cache (generated once per seed and config) or --dataset. The tests check the
generated world on a slice of the default dataset (`tests/suites/household/test_household_default.py`); the
controls are measured here, on all of it (numbers in docs/household-controls.md). The oracle scores 100 / 100 by
construction (generation keeps only the episodes it solves), so `--agents commonsense,situated,sweep` saves time.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from functools import partial
from pathlib import Path

import numpy as np

from heedful.agents.household import CommonsenseAgent, OracleAgent, SituatedAgent
from heedful.agents.household_sweep import SweepAgent
from heedful.dataset_cache import cached_dataset
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import SUITE

AGENTS = {"oracle": OracleAgent, "commonsense": CommonsenseAgent, "situated": SituatedAgent, "sweep": SweepAgent}
GROUPS = ("pnp", "s_obj/clear", "s_obj/ambiguous", "s_hum/clear", "s_hum/ambiguous")
PAIRS = (("situated", "sweep"), ("situated", "commonsense"), ("oracle", "sweep"))
RESAMPLES = 2000
_EPISODES: list[HouseholdEpisode] = []


def group_of(episode: HouseholdEpisode) -> str:
    if episode.ambiguous is None:
        return episode.task_type
    return f"{episode.task_type}/{'ambiguous' if episode.ambiguous else 'clear'}"


def _score(agent: str, index: int) -> tuple[float, float]:
    result = run_episode(_EPISODES[index], AGENTS[agent](), seed=0)
    if result.score is None:
        raise RuntimeError(f"{_EPISODES[index].episode_id}: {agent} ended without a score")
    return float(result.score.success), float(result.score.spl)


def scores(episodes: list[HouseholdEpisode], agent: str, workers: int) -> np.ndarray:
    """(episodes x 2) success and SPL; forked workers inherit the episodes, only indices cross."""
    global _EPISODES
    _EPISODES = episodes
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        found = pool.map(partial(_score, agent), range(len(episodes)), chunksize=8)
    return np.array(found)


def bootstrap(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    """95% percentile interval of the mean over episodes (paired when `values` are differences)."""
    picks = rng.integers(0, len(values), size=(RESAMPLES, len(values)))
    means = values[picks].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _cell(values: np.ndarray, rng: np.random.Generator) -> str:
    low, high = bootstrap(values, rng)
    return f"{100 * values.mean():5.1f} [{100 * low:5.1f}, {100 * high:5.1f}]"


def report(seed: int, episodes: list[HouseholdEpisode], table: dict[str, np.ndarray]) -> list[str]:
    rng = np.random.default_rng(seed)
    groups = np.array([group_of(ep) for ep in episodes])
    lines = [f"seed {seed}: SR and SPL in % [95% episode bootstrap]"]
    lines.append(f"  {'group':16} {'n':>3}  {'agent':11} {'SR':>21}  {'SPL':>21}")
    for group in [g for g in GROUPS if g in set(groups)]:
        rows = groups == group
        for agent, values in table.items():
            sr, spl = _cell(values[rows, 0], rng), _cell(values[rows, 1], rng)
            lines.append(f"  {group:16} {int(rows.sum()):3d}  {agent:11} {sr}  {spl}")
    lines.append(f"seed {seed}: paired differences in points [95% paired episode bootstrap]")
    for group in [g for g in GROUPS if g in set(groups)]:
        rows = groups == group
        for a, b in [(a, b) for a, b in PAIRS if a in table and b in table]:
            diff = table[a][rows] - table[b][rows]
            lines.append(f"  {group:16} {a} - {b:11} SR {_cell(diff[:, 0], rng)}  SPL {_cell(diff[:, 1], rng)}")
    if {"commonsense", "situated", "sweep"} <= set(table) and {"pnp", "s_obj/ambiguous", "s_hum/ambiguous"} <= set(
        groups
    ):
        lines += targets(groups, table, rng)
    return lines


def targets(groups: np.ndarray, table: dict[str, np.ndarray], rng: np.random.Generator) -> list[str]:
    out = []
    common = table["commonsense"]
    pnp = common[groups == "pnp", 0].mean()
    for group in ("s_obj/ambiguous", "s_hum/ambiguous"):
        gap = 100 * (pnp - common[groups == group, 0].mean())
        out.append(
            f"  target: commonsense SR PnP - {group} = {gap:.1f} points (>= 15): {'met' if gap >= 15 else 'MISSED'}"
        )
    rows = groups == "s_hum/ambiguous"
    diff = table["situated"][rows] - table["sweep"][rows]
    for j, metric in enumerate(("SR", "SPL")):
        low, high = bootstrap(diff[:, j], rng)
        ok = low > 0
        out.append(
            f"  target: situated - sweep on ambiguous S_hum, {metric} {100 * diff[:, j].mean():+.1f} "
            f"[{100 * low:+.1f}, {100 * high:+.1f}] excludes 0: {'met' if ok else 'MISSED'}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated (default: all four)")
    parser.add_argument("--set", action="append", default=[], help="generation override, e.g. per_split_type=8")
    parser.add_argument("--dataset", type=Path, action="append", default=[], help="a generated dataset directory")
    parser.add_argument("--groups", default=",".join(GROUPS), help="comma-separated groups to run (default: all)")
    parser.add_argument("--save", type=Path, help="write every episode's (success, SPL) per agent to this JSON file")
    args = parser.parse_args()
    config = {key: int(value) for key, value in (pair.split("=", 1) for pair in args.set)} or None
    suite = SUITE
    sources = [(json.loads((d / "dataset.json").read_text())["seed"], d) for d in args.dataset]
    for seed, path in sources or [(seed, None) for seed in args.seeds]:
        if path is not None:
            episodes = list(suite.load_dataset(path))
        else:
            episodes = list(cached_dataset(suite, seed, config, announce=True)[0])
        groups = args.groups.split(",")
        episodes = [ep for ep in episodes if group_of(ep) in groups]
        table = {}
        for agent in args.agents.split(","):
            start = time.perf_counter()
            table[agent] = scores(episodes, agent, args.workers)
            print(
                f"seed {seed}: {agent} on {len(episodes)} episodes in {time.perf_counter() - start:.0f} s", flush=True
            )
        print("\n".join(report(seed, episodes, table)), flush=True)
        if args.save is not None:
            ids = [ep.episode_id for ep in episodes]
            saved = {agent: dict(zip(ids, values.tolist(), strict=True)) for agent, values in table.items()}
            args.save.write_text(json.dumps({"seed": seed, "scores": saved}, indent=1) + "\n")


if __name__ == "__main__":
    main()
