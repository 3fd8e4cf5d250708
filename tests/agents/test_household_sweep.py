"""The sweep control: the instruction's object and goal only, blind to the place words and to the human."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from household_data import small_episodes
from household_row_house import s_hum_two_bathrooms

from heedful.agents.base import AgentReply
from heedful.agents.household import CommonsenseAgent
from heedful.agents.household_sweep import SweepAgent
from heedful.agents.registry import make_agent
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.observation import HouseholdObservation, HumanView
from heedful.suites.household.rollout import run_episode

BLANK = HumanView(first_room=None, last_room=None, last_step=None, walking_towards=())


class Checked(SweepAgent):
    """Sweep that asserts at every decision that it decides the same with the human's motion blanked."""

    def act(self, observation: HouseholdObservation) -> AgentReply:
        reply = super().act(observation)
        assert reply.text == self.decide(replace(observation, human=BLANK, human_walks=False, human_carrying=None))
        return reply


def _rewritten(episode: HouseholdEpisode) -> HouseholdEpisode:
    """The same task with other place words: every "I am / I will be ..." says something else."""
    relocations = tuple(
        r.model_copy(update={"statement": r.statement.split(". I am ")[0] + ". I am in the garage."})
        for r in episode.relocations
    )
    human = episode.human
    if human.statement is not None:
        human = human.model_copy(update={"statement": "I will be next to the toilet."})
    communication = tuple(r.statement for r in relocations)
    return episode.model_copy(update={"relocations": relocations, "human": human, "communication": communication})


def _actions(episode: HouseholdEpisode, agent: SweepAgent | CommonsenseAgent) -> list[str]:
    return [o.action for o in run_episode(episode, agent, 0).outcomes]


def test_registered() -> None:
    assert isinstance(make_agent("sweep", suite="household"), SweepAgent)


def test_it_never_reads_the_place_words_or_the_human() -> None:
    for episode in small_episodes()[1::4]:  # S_obj and S_hum, clear and ambiguous, of each split
        assert _actions(episode, Checked()) == _actions(_rewritten(episode), Checked()), episode.episode_id


def test_pnp_is_commonsense_action_for_action() -> None:
    for episode in [ep for ep in small_episodes() if ep.task_type == "pnp"][:3]:
        assert _actions(episode, SweepAgent()) == _actions(episode, CommonsenseAgent()), episode.episode_id


def test_s_hum_it_gives_where_it_stands_whatever_the_words_say() -> None:
    episode = s_hum_two_bathrooms()
    result = run_episode(episode, SweepAgent(), 0)
    # the words fit the bathrooms (rooms 0 and 6); sweep picks the cup up in the kitchen (room 2) and tries to give
    # it right there, the nearest room it has not tried. Give to Human looks around and walks up to a human in view:
    # here the human is still walking away in view, so that blind try succeeds (what sweep measures on S_hum)
    actions = [(o.action, o.room) for o in result.outcomes]
    assert actions[:2] == [("Pick up cup", 2), ("Give to Human", 3)] and 2 not in episode.candidate_rooms
    assert result.score is not None and result.score.success
