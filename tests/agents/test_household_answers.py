"""The paper's parsing rule: the text after the last "Action:" must be one of the actions available now."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
from household_data import first

from heedful.agents.household_answers import read_action, read_evidence, read_plan, read_room
from heedful.suites.household.executors import execute
from heedful.suites.household.observation import HouseholdObservation, build_observation
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.tools import parse_tool


def _after(task_type: str, actions: list[str]) -> HouseholdObservation:
    env = TaskEnv.start(first(task_type))
    for text in actions:
        call = parse_tool(text).call
        assert call is not None
        env.history.append(execute(env, call))
    return build_observation(env, seed=0)


def states() -> list[HouseholdObservation]:
    """Several states: the start of a PnP task, holding its object, and an S_hum task with the human in view."""
    pnp = first("pnp")
    holding = list(pnp.oracle_actions[: pnp.oracle_actions.index(f"Pick up {pnp.target_category}") + 1])
    return [_after("pnp", []), _after("pnp", holding), _after("s_hum", ["Follow Human"])]


ALL_TOOLS = [
    *(f"Go to Room {i}" for i in range(12)),
    *(f"Explore Room {i}" for i in range(12)),
    "Follow Human",
    *(f"Pick up {c}" for c in ("basket", "book", "bowl", "cup", "hat", "plate", "shoe", "stuffed_toy")),
    *(f"Put on {r}" for r in ("chair", "shelves", "bed", "toilet", "bench", "bathtub", "couch", "counter", "table")),
    "Put down",
    "Give to Human",
    "Done",
]


def test_every_available_action_is_accepted_in_several_states() -> None:
    seen = set()
    for obs in states():
        available = obs.available_actions
        seen.update(available)
        for action in available:
            for answer in (
                f"Reasoning: it is the best next step.\nAction: {action}",
                f"Reasoning: first I thought Action: Done, but no. Action: '{action}'.",
                f"RESPONSE FORMAT: Reasoning: ok. Action: {action.lower()}!\n",
            ):
                assert read_action(answer, available).value == action, answer
    assert {"Follow Human", "Put down", "Give to Human"} <= seen  # the states cover every kind of tool
    assert read_action("Reasoning: finished. Action: Done!", states()[0].available_actions).value == "Done"


def test_everything_else_is_rejected_with_a_reason() -> None:
    for obs in states():
        available = obs.available_actions
        others = [tool for tool in ALL_TOOLS if tool not in available]
        assert others
        rejected = [
            *(f"Reasoning: x. Action: {tool}" for tool in others),  # real tools, not available now
            "",
            "   ",
            "I'm sorry, but I can't comply with that request.",
            f"{available[0]}",  # the right words without the marker
            f"Reasoning: {available[0]} is best.",
            "Reasoning: nothing. Action:",
            f"Action: {available[0]} and then {available[1]}",
            f"Action: {available[0]}\nReasoning: later. Action: dance",  # the LAST marker counts
            "Action: Go to the kitchen",
            "Action: Room 0",
        ]
        for answer in rejected:
            reading = read_action(answer, available)
            assert reading.value is None and reading.reason, answer


def test_the_last_action_marker_counts() -> None:
    available = states()[0].available_actions
    assert read_action("Action: dance\nReasoning: no. Action: Done", available).value == "Done"


def test_evidence_plan_and_room_answers() -> None:
    assert read_evidence("Reasoning: the human walks on. Action: Not Enough Evidence").value == "Not Enough Evidence"
    assert read_evidence("Action: 'Enough Evidence'").value == "Enough Evidence"
    for bad in ("Enough Evidence", "Action: maybe", "Action: Enough"):
        assert read_evidence(bad).value is None
    steps, reason = read_plan("Plan: [Pick up stuffed_toy, Put on the couch]")
    assert reason is None and steps == (("pick", "stuffed_toy"), ("put_on", "couch"))
    steps, _ = read_plan("[Follow Human, Pick up a cup, Give cup to Human]")
    assert steps == (("follow", ""), ("pick", "cup"), ("give", "cup"))
    assert read_plan("[Pick up hat, Put in the living room]")[0][1] == ("put_in", "living room")
    for bad in ("I'm sorry, but I can't comply with that request.", "[]", "[Pick up saltshaker, Put on the bed]"):
        assert read_plan(bad)[0] == () and read_plan(bad)[1]
    assert read_room("Answer: Room 3.", rooms=5).value == "3"
    for bad in ("Room 3", "Answer: Room 7", "Answer: the kitchen", "Answer: Room"):
        assert read_room(bad, rooms=5).value is None


@pytest.mark.parametrize("answer", ["Action: Explore Room 0 ", "action:explore room 0", "Action: `Explore Room 0`"])
def test_spacing_case_and_quotes_do_not_matter(answer: str) -> None:
    assert read_action(answer, ("Explore Room 0", "Done")).value == "Explore Room 0"
