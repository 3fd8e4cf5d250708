"""The situated control: commonsense plus the human's motion, and nothing privileged.

Where the evidence decides (hand-built row houses, `household_row_house.py`) it must beat commonsense; on PnP
and clear tasks it must act exactly like commonsense; it must never touch the live state.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from household_data import small_episodes
from household_row_house import s_hum_two_bathrooms, s_obj_human_in_view

from heedful.agents.base import AgentReply
from heedful.agents.household import HUMAN_STOPPED, CommonsenseAgent, SituatedAgent, _facts
from heedful.agents.household_text import FOLLOWING
from heedful.agents.registry import make_agent
from heedful.errors import ConfigError
from heedful.runner import RunSpec, load_run, run
from heedful.suites.household import language as lang
from heedful.suites.household.executors import execute
from heedful.suites.household.observation import HouseholdObservation, HumanView, build_observation
from heedful.suites.household.rollout import EpisodeRun, run_episode
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.suite import SUITE
from heedful.suites.household.tools import ToolCall


def _go(run_: EpisodeRun) -> list[str]:
    return [o.action for o in run_.outcomes]


def _first_room_of(run_: EpisodeRun, action: str) -> int | None:
    return next((o.room for o in run_.outcomes if o.action == action), None)


def test_registered_with_a_checked_follow_budget() -> None:
    agent = make_agent("situated", suite="household")
    assert isinstance(agent, SituatedAgent) and agent.follow_budget == 0
    assert make_agent("situated", {"follow_budget": 60}, suite="household").follow_budget == 60
    for bad in (-1, "60", True, 2.5):
        with pytest.raises(ConfigError, match="follow_budget must be a whole number"):
            SituatedAgent(follow_budget=bad)  # type: ignore[arg-type]


def test_s_hum_with_a_follow_budget_it_follows_until_the_walk_shows_the_farther_bathroom() -> None:
    episode = s_hum_two_bathrooms()
    assert episode.candidate_rooms == (0, 6) and episode.human.destination_room == 6
    blind = run_episode(episode, CommonsenseAgent(), 0)
    situated = run_episode(episode, SituatedAgent(follow_budget=150), 0)
    assert blind.score is not None and situated.score is not None
    # commonsense tries the nearer bathroom first and has to walk the whole row back
    assert _first_room_of(blind, "Give to Human") == 0
    # situated follows 40 steps (two 20-step chunks: 30 steps of track are needed), then goes straight to room 6
    assert _go(situated)[:2] == ["Follow Human", "Follow Human"] and "Follow Human" not in _go(situated)[2:]
    assert situated.score.followed_steps == 40
    assert [o.room for o in situated.outcomes if o.action == "Give to Human"] == [6]
    assert situated.score.success and blind.score.success
    assert situated.score.steps < blind.score.steps - 60
    assert situated.score.spl > blind.score.spl + 0.15


def test_s_hum_by_default_it_orders_the_fitting_rooms_by_distance_plus_the_motion_it_saw() -> None:
    episode = s_hum_two_bathrooms()
    observed = build_observation(TaskEnv.start(episode), 0)
    command, facts = lang.parse_command(observed.command), _facts(observed.rooms)
    assert command is not None

    def order(distances: tuple[float, float], towards: tuple[int, ...], seen: int | None = None) -> list[int]:
        metres = list(observed.room_distances)
        metres[0], metres[6] = distances
        human = HumanView(first_room=2, last_room=seen, last_step=observed.step, walking_towards=towards)
        obs = replace(observed, room_distances=tuple(metres), human=human)
        assert CommonsenseAgent()._human_rooms(obs, command.human_place, facts) == [0, 6]  # blind: nearest first
        return SituatedAgent()._human_rooms(obs, command.human_place, facts)

    assert SituatedAgent().follow_budget == 0 and "Follow Human" not in _go(run_episode(episode, SituatedAgent(), 0))
    assert order((10.0, 11.0), ()) == [0, 6]  # no motion seen: commonsense's order
    assert order((10.0, 11.0), (6,)) == [6, 0]  # a near tie: the room the human walks towards first
    assert order((10.0, 25.0), (6,)) == [0, 6]  # weak evidence does not send it across the house
    assert order((10.0, 25.0), (), seen=6) == [6, 0]  # the human in view now, in room 6: there


def test_s_obj_it_searches_first_where_it_saw_the_human() -> None:
    episode = s_obj_human_in_view()
    assert episode.candidate_rooms == (0, 2)
    blind, situated = run_episode(episode, CommonsenseAgent(), 0), run_episode(episode, SituatedAgent(), 0)
    assert blind.score is not None and situated.score is not None
    assert _go(blind)[:2] == ["Go to Room 0", "Explore Room 0"]  # the nearer bathroom, searched in vain
    assert _go(situated)[0] == "Go to Room 2" and "Follow Human" not in _go(situated)
    assert situated.score.success and blind.score.success
    assert situated.score.steps == episode.oracle_steps and situated.score.spl == 1.0
    assert blind.score.spl < 0.6


def test_s_obj_it_ranks_the_fitting_rooms_by_what_the_carry_walk_showed() -> None:
    episode = s_obj_human_in_view()
    observed = build_observation(TaskEnv.start(episode), 0)
    place = lang.moved_object_place(observed.communication, "cup")
    assert place is not None
    facts = _facts(observed.rooms)

    def order(
        distances: tuple[float, float], heading: tuple[int, ...] = (), towards: tuple[int, ...] = (), left: int = 1
    ) -> list[int]:
        metres = list(observed.room_distances)
        metres[0], metres[2] = distances
        # seen only before the task (last_step < 0: not standing anywhere now), carrying the cup out of `left`
        human = HumanView(left, 1, -5, walking_towards=towards, heading_for=heading)
        obs = replace(observed, room_distances=tuple(metres), human=human)
        assert CommonsenseAgent()._search_rooms(obs, place, facts) == sorted([0, 2], key=lambda r: metres[r])
        return SituatedAgent()._search_rooms(obs, place, facts)

    assert order((5.0, 12.0)) == [0, 2]  # no walk seen: commonsense's order
    assert order((5.0, 12.0), heading=(2,)) == [2, 0]  # the walk went straight for room 2
    assert order((5.0, 40.0), heading=(2,)) == [0, 2]  # ... but not across the whole house for it
    assert order((5.0, 12.0), heading=(0, 2), towards=(2,)) == [2, 0]  # headed for both, room 2 also ahead
    assert order((5.0, 12.0), heading=(0, 2), left=0) == [2, 0]  # the room it carried the cup out of: last


def test_the_follow_tool_says_the_human_stopped_in_the_words_situated_reads() -> None:
    walk = s_hum_two_bathrooms()
    near = walk.model_copy(update={"human": walk.human.model_copy(update={"destination": (12.75, 2.25)})})
    env = TaskEnv.start(near)  # the human stops 2.25 m on, in the middle of the next room
    messages = []
    while not messages or messages[-1].startswith(FOLLOWING):
        messages.append(execute(env, ToolCall("follow_human")).message)
    assert messages[-1] == HUMAN_STOPPED and len(messages) < 6


@pytest.mark.slow
def test_pnp_and_clear_tasks_get_exactly_the_commonsense_actions() -> None:
    chosen = [ep for ep in small_episodes() if ep.task_type == "pnp" or ep.ambiguous is False]
    assert {ep.task_type for ep in chosen} == {"pnp", "s_obj", "s_hum"}
    for episode in chosen:
        blind, situated = run_episode(episode, CommonsenseAgent(), 0), run_episode(episode, SituatedAgent(), 0)
        assert _go(situated) == _go(blind), episode.episode_id
        assert situated.score == blind.score and situated.env.followed_steps == 0


class _FollowsFirst(CommonsenseAgent):
    """A cheat to rule out: follow the human 60 steps on every S_hum task, then act like commonsense."""

    def decide(self, obs: HouseholdObservation) -> str:
        followed = sum(h.steps for h in obs.history if h.action == "Follow Human")
        if obs.human_walks and followed < 60 and "Follow Human" in obs.available_actions:
            return "Follow Human"
        return super().decide(obs)


def test_following_on_clear_tasks_fails_by_the_50_step_rule_so_situated_does_not() -> None:
    clear = [ep for ep in small_episodes() if ep.task_type == "s_hum" and ep.ambiguous is False]
    for episode in clear:
        prober = run_episode(episode, _FollowsFirst(), 0).score
        assert prober is not None and prober.followed_steps > 50 and not prober.success
        assert "followed the human" in prober.reason  # it reached the goal, and still failed
        # situated never follows there, so it scores what commonsense does (sif-v2's val_unseen-s_hum-000 is
        # missed by both at the step limit, not by the following rule)
        situated = run_episode(episode, SituatedAgent(), 0).score
        assert situated is not None and situated.followed_steps == 0 and "followed" not in situated.reason
        assert situated == run_episode(episode, CommonsenseAgent(), 0).score


class _Poison:
    """Stands in for the live state: any use of it raises."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the situated control read the privileged state (.{name})")

    def __bool__(self) -> bool:
        raise AssertionError("the situated control tested the privileged state")


class _PoisonedSituated:
    """Declares privilege so that the rollout hands over the live state, then hands the agent a poison instead."""

    name = "situated"
    privileged = True

    def __init__(self) -> None:
        self.inner = SituatedAgent()
        self.saw_state = 0

    def act(self, observation: HouseholdObservation) -> AgentReply:
        self.saw_state += observation.privileged is not None
        poisoned = observation.__class__(**{**observation.__dict__, "privileged": _Poison()})
        return self.inner.act(poisoned)


def test_it_never_reads_the_privileged_state() -> None:
    assert not getattr(SituatedAgent, "privileged", False)  # the rollout hands it no live state ...
    for episode in (s_hum_two_bathrooms(), s_obj_human_in_view()):
        spy = _PoisonedSituated()
        poisoned = run_episode(episode, spy, 0)  # ... and had it one, it would not touch it
        assert spy.saw_state > 0 and poisoned.error is None
        assert _go(poisoned) == _go(run_episode(episode, SituatedAgent(), 0))


@pytest.mark.slow
def test_serial_and_two_workers_give_identical_records(tmp_path: Path) -> None:
    suite = SUITE
    episodes = [ep for ep in small_episodes() if ep.task_type != "pnp"][:8]
    assert any(ep.task_type == "s_hum" and ep.ambiguous for ep in episodes)
    spec = RunSpec(
        suite="household",
        suite_version=suite.version,
        dataset_hash=suite.dataset_hash(episodes),
        dataset_source="test",
        agent="situated",
        agent_args={"follow_budget": 40},  # the follow path is the one with the most state to get wrong
        seed=0,
    )
    run(spec, episodes, tmp_path / "serial", progress=False)
    run(spec, episodes, tmp_path / "pool", workers=2, progress=False)
    serial = [r.deterministic_dict() for r in load_run(tmp_path / "serial")[1]]
    pooled = [r.deterministic_dict() for r in load_run(tmp_path / "pool")[1]]
    assert serial == pooled
    assert any(r["scores"]["followed_steps"] > 0 for r in serial)
