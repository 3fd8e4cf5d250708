"""Mid-episode re-instruction on household (`--reinstruct`, issue 42): the new words reach the planner at the switch,
the oracle re-plans and meets the new goal, a planner that sticks to the first words keeps the old task."""

from __future__ import annotations

from typing import Any

from household_data import small_episodes

from heedful.agents.household import OracleAgent
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext
from heedful.suites.household.observation import HouseholdObservation
from heedful.suites.household.suite import SUITE

RULE = {"reinstruct": "after-first-choice"}


def _pnp() -> Any:
    return next(ep for ep in SUITE.episodes_for_run(list(small_episodes()), RULE) if ep.task_type == "pnp")


def _roll(episode: Any, agent: Any) -> Any:
    return SUITE.rollout_episode(episode, agent, RolloutContext(seed=11, index=0, options=RULE))


class FirstWords:
    """Does the oracle's plan of the task it was first given, whatever it is told later (a privileged stand-in for a
    policy that reads the instruction once); keeps every command it saw."""

    name = "first-words"
    privileged = True

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.first: Any = None

    def act(self, observation: HouseholdObservation) -> AgentReply:
        self.commands.append(observation.command)
        env = observation.privileged
        assert env is not None
        self.first = self.first or env.episode
        return OracleAgent().act(_with_episode(observation, self.first))


def _with_episode(observation: HouseholdObservation, episode: Any) -> HouseholdObservation:
    from dataclasses import replace

    assert observation.privileged is not None
    return replace(observation, privileged=replace(observation.privileged, episode=episode))


def test_the_oracle_re_plans_and_a_first_words_planner_keeps_the_old_task() -> None:
    episode = _pnp()
    plain = next(ep for ep in small_episodes() if ep.episode_id == episode.episode_id)
    assert episode.switch is not None and SUITE.dataset_hash([episode]) == SUITE.dataset_hash([plain])
    assert SUITE.parse_episode(episode.model_dump_json()) == episode
    oracle = _roll(episode, OracleAgent())
    s = oracle.scores
    assert (s["switched"], s["success"], s["kept_old_task"], s["old_done_at_switch"]) == (1.0, 1.0, 0.0, 0.0)
    assert "spl" not in s and oracle.inputs["switch_step"] > 0
    assert oracle.inputs["reinstruct_instruction"] == episode.switch.to.instruction
    stubborn = FirstWords()
    s = _roll(episode, stubborn).scores
    assert (s["switched"], s["success"], s["kept_old_task"]) == (1.0, 0.0, 1.0)
    assert episode.switch.to.instruction not in stubborn.commands[0]
    assert all(episode.switch.to.instruction in c for c in stubborn.commands[1:]) and len(stubborn.commands) > 1
