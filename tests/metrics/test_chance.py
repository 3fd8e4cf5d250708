"""Exact chance levels: the formulas, and the random-valid agent's measured scores converging on them."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from heedful.agents.decisions import RandomValidAgent
from heedful.records import Record, Status
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.chance import answer_count, common_answers, decisions_chance
from heedful.suites.decisions.metrics import SPEC, family_counts, index_families
from heedful.suites.decisions.suite import SUITE
from heedful.suites.household.metrics import groups_of, household_chance


def test_answer_counts_follow_the_parsers_valid_answers() -> None:
    assert [answer_count("single", m) for m in (1, 4)] == [1, 4]
    assert [answer_count("set", m) for m in (1, 3, 6)] == [1, 7, 63]
    assert answer_count("sequence", 3) == 3 + 6 + 6
    ids = frozenset({"a1", "a2", "a3"})
    assert common_answers(("set", ids), ("set", ids - {"a3"})) == 3
    assert common_answers(("single", ids), ("set", ids)) == 0
    assert common_answers(("set", ids), ("sequence", ids)) == 7  # every sorted subset is also a sequence


class _Agent:
    def __init__(self, draw: int) -> None:
        self.inner, self.draw = RandomValidAgent(), draw

    def decide(self, observation: Any) -> Any:
        # a new seed per draw: the agent is uniform over valid answers for any seed
        from dataclasses import replace

        return self.inner.decide(replace(observation, seed=observation.seed * 7919 + self.draw))


def test_random_valid_answers_score_the_computed_chance_on_every_metric(default_episodes: Any) -> None:
    suite = SUITE
    families: dict[str, list[Any]] = defaultdict(list)
    for ep in default_episodes:
        families[ep.family_id].append(ep)
    rng = np.random.default_rng(3)
    chosen = [families[f] for f in rng.choice(sorted(families), size=24, replace=False)]
    episodes = [ep for family in chosen for ep in family]
    draws = 300
    num: dict[str, float] = defaultdict(float)
    den: dict[str, float] = defaultdict(float)
    records: list[Record] = []
    for d in range(draws):
        agent = _Agent(d)
        records = [suite.rollout_episode(ep, agent, RolloutContext(seed=i, index=i)) for i, ep in enumerate(episodes)]
        for family in index_families(records).values():
            k, n = family_counts(family)
            for metric, a, b in zip(SPEC.names, k, n, strict=True):
                num[metric] += a
                den[metric] += b
    chance = decisions_chance(records)
    for metric in SPEC.names:
        measured, exact = num[metric] / den[metric], chance[("all", metric)]
        se = math.sqrt(max(exact * (1 - exact), 1e-4) / den[metric])
        assert measured == pytest.approx(exact, abs=5 * se + 1e-3), metric
    assert 0 < chance[("all", "accuracy")] < 0.5 and chance[("all", "parse_success")] == 1.0


def test_records_without_their_inputs_give_no_chance(default_episodes: Any) -> None:
    suite = SUITE
    ep = default_episodes[0]
    record = suite.rollout_episode(ep, RandomValidAgent(), RolloutContext(seed=0, index=0))
    assert decisions_chance([record])
    old = record.model_copy(update={"inputs": {}})
    assert decisions_chance([old]) == {}


def _household(task_type: str, rooms: list[int], ambiguous: str) -> Record:
    keys = {"split": "val_seen", "task_type": task_type, "ambiguous": ambiguous}
    return Record(
        episode_id=f"{task_type}-{len(rooms)}", index=0, status=Status.OK, keys=keys, gold={"candidate_rooms": rooms}
    )


def test_household_chance_is_one_uniform_guess_among_the_fitting_rooms() -> None:
    records = [
        _household("pnp", [1, 2], "n/a"),
        _household("s_obj", [1, 2, 3], "true"),
        _household("s_hum", [4], "false"),
    ]
    chance = household_chance(records, groups_of)
    assert chance[("PnP", "success")] == 1.0 and chance[("S_obj", "success")] == pytest.approx(1 / 3)
    assert chance[("S_hum / clear", "success")] == 1.0
    assert chance[("all", "success")] == pytest.approx((1 + 1 / 3 + 1) / 3)


def test_household_records_without_fitting_rooms_give_no_level() -> None:
    assert household_chance([_household("s_obj", [], "true")], groups_of) == {}
