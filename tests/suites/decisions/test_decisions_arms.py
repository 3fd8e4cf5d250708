"""Instruction arms on decisions: the substitute family, paired hashes, counterfactual scores, no leak of the
original words into what the agent sees (issue 42)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from heedful.agents.decisions import MajorityAgent, OracleAgent
from heedful.errors import ConfigError
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.arms import DecisionRunEpisode
from heedful.suites.decisions.observation import DecisionObservation
from heedful.suites.decisions.suite import SUITE
from instruction_leaks import leaks


@pytest.fixture(scope="module")
def sample(default_episodes: list[Any]) -> list[Any]:
    return [ep for ep in default_episodes if ep.anchor_id == default_episodes[0].anchor_id]  # its families, whole


@pytest.fixture(scope="module")
def with_other(sample: list[Any]) -> list[DecisionRunEpisode]:
    return list(SUITE.episodes_for_run(sample, {"instruction": "other"}))


def _roll(episode: Any, agent: Any, arm: str | None, seed: int = 5) -> Any:
    options = {} if arm is None else {"instruction": arm}
    return SUITE.rollout_episode(episode, agent, RolloutContext(seed=seed, index=0, options=options))


class Recorder:
    """A privileged agent that keeps every observation and answers the first candidate."""

    name = "recorder"
    privileged = True

    def __init__(self) -> None:
        self.seen: list[DecisionObservation] = []

    def decide(self, observation: DecisionObservation) -> AgentReply:
        self.seen.append(observation)
        return AgentReply(text=json.dumps({"decision": observation.candidate_ids[0]}))


def test_other_takes_the_words_of_another_family_on_the_same_anchor(
    sample: list[Any], with_other: list[DecisionRunEpisode]
) -> None:
    by_id = {ep.episode_id: ep for ep in sample}
    for ep in with_other:
        assert ep.other is not None
        donor = by_id[ep.other.episode_id]
        assert donor.anchor_id == ep.anchor_id and donor.family_id != ep.family_id
        assert donor.candidates == ep.candidates and donor.decision_type == ep.decision_type
        assert (ep.other.instruction, ep.other.gold) == (donor.instruction, donor.gold)
        assert ep.other.gold != ep.gold  # following the words and following the scene can be told apart
    assert SUITE.dataset_hash(with_other) == SUITE.dataset_hash(sample)
    line = with_other[0].model_dump_json()
    assert SUITE.parse_episode(line) == with_other[0]
    plain = sample[0]
    assert SUITE.parse_episode(plain.model_dump_json()).model_dump_json() == plain.model_dump_json()


def test_given_is_the_run_without_the_option(sample: list[Any]) -> None:
    for ep in sample[:8]:
        assert _roll(ep, OracleAgent(), "given").model_dump_json() == _roll(ep, OracleAgent(), None).model_dump_json()


def test_the_oracle_follows_the_given_words_and_a_blind_agent_does_not_move(
    default_episodes: list[Any], sample: list[Any], with_other: list[DecisionRunEpisode]
) -> None:
    for ep in with_other:
        record = _roll(ep, OracleAgent(), "other")
        assert record.scores == {"followed_given": 1.0, "followed_scene": 0.0}
        assert record.inputs["other_episode"] == ep.other.episode_id and not record.correct
        assert record.inputs["instruction"] == ep.other.instruction
    majority = MajorityAgent()
    majority.fit(SUITE.training_episodes(default_episodes))
    for ep, armed in zip(sample, with_other, strict=True):
        runs = ((ep, None), (ep, "empty"), (ep, "shuffled"), (armed, "other"))
        answers = {json.dumps(_roll(e, majority, arm).prediction) for e, arm in runs}
        assert len(answers) == 1, ep.episode_id


@pytest.mark.parametrize("arm", ["empty", "shuffled", "other"])
def test_the_original_words_never_reach_the_agent(arm: str, sample: list[Any], with_other: list[Any]) -> None:
    recorder = Recorder()
    episodes = with_other if arm == "other" else sample
    for ep in episodes[:12]:
        record = _roll(ep, recorder, arm)
        assert not leaks(ep.instruction, recorder.seen[-1:]), ep.episode_id
        assert record.inputs["instruction"] == recorder.seen[-1].instruction  # the record says what was shown
    _roll(sample[0], recorder, None)
    assert leaks(sample[0].instruction, recorder.seen[-1:])  # the probe finds the words where they are given


def test_mask_is_its_own_arm() -> None:
    with pytest.raises(ConfigError, match="--mask is its own instruction arm"):
        SUITE.check_options({"mask": True, "instruction": "empty"})
    with pytest.raises(ConfigError, match="instruction"):
        SUITE.check_options({"instruction": "blank"})
