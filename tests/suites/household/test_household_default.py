"""The default benchmark (480 episodes): counts, determinism, oracle solves all, commonsense pattern."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from heedful.agents.household import CommonsenseAgent, OracleAgent
from heedful.suites.episode_files import content_hash
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import HouseholdSuite

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def default_household() -> list[HouseholdEpisode]:
    return HouseholdSuite().generate(0)


def test_default_counts(default_household: list[HouseholdEpisode]) -> None:
    episodes = default_household
    assert len(episodes) == 480
    by_split_type = Counter((ep.split, ep.task_type) for ep in episodes)
    assert len(by_split_type) == 12 and set(by_split_type.values()) == {40}
    clarity = Counter((ep.split, ep.task_type, ep.ambiguous) for ep in episodes if ep.task_type != "pnp")
    assert set(clarity.values()) == {20}
    seen = {ep.house_id for ep in episodes if ep.split.endswith("_seen")}
    unseen = {ep.house_id for ep in episodes if ep.split.endswith("_unseen")}
    assert len(seen) == 6 and len(unseen) == 4 and not seen & unseen


def test_default_is_byte_identical_for_the_same_seed(default_household: list[HouseholdEpisode]) -> None:
    again = HouseholdSuite().generate(0)
    assert content_hash(again) == content_hash(default_household)


def test_oracle_solves_every_default_episode(default_household: list[HouseholdEpisode]) -> None:
    for episode in default_household:
        result = run_episode(episode, OracleAgent(), seed=0)
        assert result.score is not None and result.score.success, episode.episode_id
        assert result.score.steps == episode.oracle_steps, episode.episode_id


def test_commonsense_does_worse_on_situated_tasks(default_household: list[HouseholdEpisode]) -> None:
    spl: dict[str, list[float]] = {"pnp": [], "s_obj": [], "s_hum": []}
    for episode in default_household:
        result = run_episode(episode, CommonsenseAgent(), seed=0)
        assert result.score is not None
        spl[episode.task_type].append(result.score.spl)
    mean = {kind: float(np.mean(values)) for kind, values in spl.items()}
    assert mean["pnp"] > 0.9
    assert mean["pnp"] - mean["s_obj"] > 0.05
    assert mean["pnp"] - mean["s_hum"] > 0.05
