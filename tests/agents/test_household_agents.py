"""The household baselines: the oracle (privileged ground truth) and commonsense (words and priors only)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
from household_data import first, small_episodes

from heedful.agents.household import CommonsenseAgent, OracleAgent
from heedful.agents.registry import make_agent
from heedful.errors import ConfigError
from heedful.suites.household import language as lang
from heedful.suites.household.observation import build_observation
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.runtime import TaskEnv


def test_registered_under_the_suite() -> None:
    assert isinstance(make_agent("oracle", suite="household"), OracleAgent)
    assert isinstance(make_agent("commonsense", suite="household"), CommonsenseAgent)


def test_oracle_needs_the_privileged_state() -> None:
    obs = build_observation(TaskEnv.start(first("pnp")), seed=0)
    with pytest.raises(ConfigError, match="privileged"):
        OracleAgent().act(obs.__class__(**{**obs.__dict__, "privileged": None}))


def test_oracle_reproduces_the_stored_path_length() -> None:
    for episode in small_episodes()[:6]:
        result = run_episode(episode, OracleAgent(), seed=0)
        assert result.score is not None and result.score.success
        assert result.score.steps == episode.oracle_steps
        assert [o.action for o in result.outcomes] == list(episode.oracle_actions)


def test_reading_the_words() -> None:
    assert lang.parse_command("Put a cup on the table.") == lang.Command("cup", "receptacle", receptacle="table")
    assert lang.parse_command("Put a stuffed_toy in the dining room.") == lang.Command(
        "stuffed_toy", "room", function="dining room"
    )
    bring = lang.parse_command("Bring a hat to me. I will be washing my face.")
    assert bring is not None and bring.human_place == lang.Place(
        "doing", function="bathroom", activity="washing my face"
    )
    assert lang.parse_place("next to the bed, shelves and chair") == lang.Place(
        "next_to_three", receptacles=("bed", "shelves", "chair")
    )
    assert lang.parse_place("in the bedroom with the yellow walls") == lang.Place(
        "in_room_colour", function="bedroom", colour="yellow"
    )
    statements = [
        "I took a cup and moved it with me. I am in the kitchen.",
        "I took a hat and moved it with me. I am shaving.",
    ]
    assert lang.moved_object_place(statements, "hat") == lang.Place("doing", function="bathroom", activity="shaving")
    assert lang.moved_object_place(statements, "book") is None
    for place in (lang.Place("next_to", receptacles=("bathtub",)), lang.Place("in_room_with", "kitchen", ("table",))):
        assert lang.parse_place(place.text()) == place


def test_room_function_priors() -> None:
    assert lang.guess_function(["bed", "cabinet"]) == "bedroom"
    assert lang.guess_function(["toilet"]) == "bathroom"
    assert lang.guess_function(["counter", "fridge"]) == "kitchen"
    assert lang.guess_function(["couch", "table"]) == "living room"


def test_commonsense_goes_where_the_words_point() -> None:
    episode = first("s_hum", False)
    env = TaskEnv.start(episode)
    agent = CommonsenseAgent()
    answers = []
    for _ in range(8):
        obs = build_observation(env, seed=0)
        answer = agent.decide(obs)
        answers.append(answer)
        if answer == "Done":
            break
        from heedful.suites.household.executors import execute
        from heedful.suites.household.tools import parse_tool

        call = parse_tool(answer).call
        assert call is not None and answer in obs.available_actions
        env.history.append(execute(env, call))
    assert "Follow Human" not in answers  # it ignores the human's movement
    assert any(a == f"Pick up {episode.target_category}" for a in answers)


def test_commonsense_solves_static_tasks() -> None:
    pnp = [ep for ep in small_episodes() if ep.task_type == "pnp"]
    solved = sum(bool(run_episode(ep, CommonsenseAgent(), seed=0).score.success) for ep in pnp)  # type: ignore[union-attr]
    assert solved >= len(pnp) - 1
