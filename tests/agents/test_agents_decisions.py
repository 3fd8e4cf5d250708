"""Validity controls on the full default dataset: oracle perfect, baselines at their analytic chance level."""

from __future__ import annotations

import pytest

from heedful.agents.decisions import random_valid_expectation, well_formed_count
from heedful.agents.registry import make_agent
from heedful.records import Record
from heedful.seeding import derive_seed
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.suite import SUITE

PERFECT = ("accuracy", "parse_success", "pair_success", "decision_invariance", "decision_sensitivity", "family_success")


def run_agent(name: str, episodes, mask: bool = False) -> list[Record]:  # type: ignore[no-untyped-def]
    agent = make_agent(name, suite="decisions")
    if hasattr(agent, "fit"):
        agent.fit(SUITE.training_episodes(episodes))
    return [
        SUITE.rollout_episode(
            ep, agent, RolloutContext(seed=derive_seed(0, ep.episode_id), index=i, options={"mask": mask})
        )
        for i, ep in enumerate(episodes)
    ]


def metric(rows, name: str, group: str = "all"):  # type: ignore[no-untyped-def]
    return next(r for r in rows if r.metric == name and r.group == group)


@pytest.fixture(scope="module")
def oracle_rows(default_episodes):  # type: ignore[no-untyped-def]
    return decision_metrics(run_agent("oracle", default_episodes), resamples=1000)


def test_oracle_is_perfect_on_every_metric_and_group(oracle_rows) -> None:  # type: ignore[no-untyped-def]
    scored = [r for r in oracle_rows if r.group != "status"]
    for row in scored:
        if row.metric in PERFECT:
            assert row.value == 1.0, (row.metric, row.group)
        elif row.metric in ("over_invariance", "over_sensitivity"):
            assert row.value == 0.0, (row.metric, row.group)


def test_masking_does_not_change_the_oracle(default_episodes) -> None:  # type: ignore[no-untyped-def]
    plain = run_agent("oracle", default_episodes[:400])
    masked = run_agent("oracle", default_episodes[:400], mask=True)
    assert [r.prediction for r in plain] == [r.prediction for r in masked]


def test_random_valid_sits_at_its_analytic_expectation(default_episodes) -> None:  # type: ignore[no-untyped-def]
    expected = random_valid_expectation([(ep.decision_type, len(ep.candidates)) for ep in default_episodes])
    for mask in (False, True):
        rows = decision_metrics(run_agent("random-valid", default_episodes, mask=mask), resamples=2000)
        acc = metric(rows, "accuracy")
        assert acc.ci_low <= expected <= acc.ci_high, (mask, acc, expected)
        assert acc.value < 0.2
        assert metric(rows, "decision_sensitivity").value < 0.05


def test_majority_is_far_below_the_oracle(default_episodes) -> None:  # type: ignore[no-untyped-def]
    records = run_agent("majority", default_episodes)
    rows = decision_metrics(records, resamples=1000)
    acc = metric(rows, "accuracy")
    assert acc.value < 0.3
    # a constant pattern cannot follow a task change: sensitivity stays at zero, over-invariance near one
    assert metric(rows, "decision_sensitivity").value == 0.0
    assert metric(rows, "over_invariance").value > 0.9


def test_majority_answers_the_most_frequent_training_pattern(default_episodes) -> None:  # type: ignore[no-untyped-def]
    from collections import Counter

    agent = make_agent("majority", suite="decisions")
    train = SUITE.training_episodes(default_episodes)
    agent.fit(train)
    singles = Counter([c.id for c in ep.candidates].index(ep.gold) for ep in train if ep.decision_type == "single")
    assert agent.patterns["single"][0] == (singles.most_common(1)[0][0],)


def test_well_formed_counts() -> None:
    assert well_formed_count("single", 5) == 5
    assert well_formed_count("set", 3) == 7
    assert well_formed_count("sequence", 3) == 3 + 6 + 6
