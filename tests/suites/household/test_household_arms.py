"""Instruction arms on household: the substitute task of the same house, counterfactual scores, a language-blind
planner unmoved, no leak of the original words into the observation (issue 42)."""

from __future__ import annotations

from typing import Any

import pytest
from household_data import small_episodes

from heedful.agents.household import OracleAgent
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext
from heedful.suites.household.observation import HouseholdObservation
from heedful.suites.household.suite import SUITE
from instruction_leaks import leaks


def _episodes(arm: str | None) -> list[Any]:
    options = {} if arm is None else {"instruction": arm}
    return list(SUITE.episodes_for_run(list(small_episodes()), options))


def _roll(episode: Any, agent: Any, arm: str | None) -> Any:
    options = {} if arm is None else {"instruction": arm}
    return SUITE.rollout_episode(episode, agent, RolloutContext(seed=11, index=0, options=options))


class Wanderer:
    """Language-blind: walks to the room the premap lists first, then says Done; keeps what it saw."""

    name = "wanderer"
    privileged = True

    def __init__(self) -> None:
        self.seen: list[HouseholdObservation] = []

    def act(self, observation: HouseholdObservation) -> AgentReply:
        self.seen.append(observation)
        if len(self.seen) == 1:
            return AgentReply(text=observation.available_actions[0])
        return AgentReply(text="Done")


def test_other_takes_another_task_of_the_same_house() -> None:
    armed = _episodes("other")
    by_id = {ep.episode_id: ep for ep in small_episodes()}
    for ep in armed:
        donor = by_id[ep.other.episode_id]
        assert donor.house_id == ep.house_id and donor.instruction != ep.instruction
    assert SUITE.dataset_hash(armed) == SUITE.dataset_hash(list(small_episodes()))
    assert SUITE.parse_episode(armed[0].model_dump_json()) == armed[0]


def test_the_oracle_follows_the_given_words_and_a_blind_planner_does_not_move() -> None:
    pnp = [ep for ep in _episodes("other") if ep.task_type == "pnp"][:2]
    for ep in pnp:
        record = _roll(ep, OracleAgent(), "other")
        assert record.scores["followed_given"] == 1.0 and record.scores["followed_scene"] == 0.0
        assert record.scores["success"] == 0.0 and record.inputs["instruction"] == ep.other.instruction
    plain = small_episodes()[0]
    assert _roll(plain, OracleAgent(), "given").model_dump_json() == _roll(plain, OracleAgent(), None).model_dump_json()
    armed = next(ep for ep in _episodes("other") if ep.episode_id == plain.episode_id)
    runs = ((plain, None), (plain, "empty"), (plain, "shuffled"), (armed, "other"))
    assert len({str(_roll(ep, Wanderer(), arm).prediction["actions"]) for ep, arm in runs}) == 1


@pytest.mark.parametrize("arm", ["empty", "shuffled", "other"])
def test_the_original_words_never_reach_the_agent(arm: str) -> None:
    episode = next(ep for ep in _episodes(arm) if ep.task_type == "pnp")
    agent = Wanderer()
    record = _roll(episode, agent, arm)
    assert agent.seen and not leaks(episode.instruction, agent.seen)
    assert not leaks(episode.episode_id, agent.seen)  # nor the id a privileged agent could look the words up by
    assert record.inputs["instruction"] == agent.seen[0].command
    probe = Wanderer()
    _roll(episode, probe, None)
    assert leaks(episode.instruction, probe.seen)  # the probe finds the words where they are given
