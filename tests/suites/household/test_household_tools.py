"""Parsing tool calls and listing the actions available now."""

from __future__ import annotations

import pytest
from household_data import first, small_episodes

from heedful.suites.household.executors import execute
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.tools import ToolCall, available_actions, check_available, parse_tool


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("Go to Room 3", ToolCall("go_to_room", room=3)),
        ("Reasoning: the cup is there.\nAction: Explore Room 0", ToolCall("explore_room", room=0)),
        ("Action: 'Pick up stuffed_toy'", ToolCall("grab", category="stuffed_toy")),
        ("grab stuffed toy", ToolCall("grab", category="stuffed_toy")),
        ("Put on the table.", ToolCall("put", category="table")),
        ("Put the cup on table", ToolCall("put", category="table")),
        ("Put down", ToolCall("put")),
        ("Give Obj to Human", ToolCall("give")),
        ("Give to Human", ToolCall("give")),
        ("Follow Human", ToolCall("follow_human")),
        ("Action: Done!", ToolCall("done")),
    ],
)
def test_parse_tool_calls(text: str, call: ToolCall) -> None:
    assert parse_tool(text).call == call
    assert parse_tool(call.text).call == call  # canonical spellings parse back


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "names no action"),
        ("Pick up spoon", "unknown object 'spoon'"),
        ("Put on sink", "unknown receptacle 'sink'"),
        ("Fly to the moon", "not a tool call"),
    ],
)
def test_unparsable_calls_say_why(text: str, reason: str) -> None:
    result = parse_tool(text)
    assert result.call is None and reason in (result.reason or "")


def test_available_actions_follow_the_state() -> None:
    ep = first("pnp")
    env = TaskEnv.start(ep)
    actions = available_actions(env)
    rooms = len(ep.house.rooms)
    assert actions[: 2 * rooms] == [f"Go to Room {i}" for i in range(rooms)] + [
        f"Explore Room {i}" for i in range(rooms)
    ]
    assert actions[-1] == "Done" and "Give to Human" not in actions  # the hand is empty
    assert check_available(env, ToolCall("go_to_room", room=rooms)) == f"there is no room {rooms}"
    outcome = execute(env, ToolCall("go_to_room", room=rooms))
    assert not outcome.ok and outcome.steps == 0


def test_tools_count_every_step() -> None:
    ep = first("pnp")
    env = TaskEnv.start(ep)
    outcome = execute(env, ToolCall("explore_room", room=0))
    assert outcome.ok and outcome.steps == env.sim.step > 0
    before = env.sim.step
    outcome = execute(env, ToolCall("go_to_room", room=len(ep.house.rooms) - 1))
    assert outcome.steps == env.sim.step - before


def test_explore_room_maps_every_object_in_the_room() -> None:
    one_per_house = {ep.house_id: ep for ep in small_episodes()}
    for episode in one_per_house.values():
        for room in range(len(episode.house.rooms)):
            env = TaskEnv.start(episode)
            env.map.objects.clear()
            assert execute(env, ToolCall("explore_room", room=room)).ok
            here = {o.id for o in env.sim.free_objects() if episode.house.room_at(o.x, o.y) == room}
            assert here <= set(env.map.objects), (episode.episode_id, room)
