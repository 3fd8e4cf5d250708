"""Skill calls: strict parsing with reasons, the JSON Schema for structured output, the planner's prompt."""

from __future__ import annotations

import json

import jsonschema
import pytest

from heedful.agents.tabletop import OracleAgent
from heedful.errors import InvalidActionError
from heedful.suites.tabletop.observation import observe
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.runtime import HorizonReachedError, TrialRuntime
from heedful.suites.tabletop.skillcalls import SkillCallError, execute, parse_call, skill_call_schema

OBJECTS = ("red_cube", "green_bowl")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("pick up the cube", "not JSON"),
        ("[1, 2]", '"skill" string'),
        ('{"skill": "fly"}', "unknown skill 'fly'"),
        ('{"skill": "pick", "args": {"object": "blue_cube"}}', "no object 'blue_cube'"),
        ('{"skill": "pick", "args": {}}', "needs the argument 'object'"),
        ('{"skill": "pick", "args": {"object": "red_cube", "speed": 2}}', "no argument 'speed'"),
        ('{"skill": "place_at", "args": {"x": "0.1", "y": 0.5}}', "finite number"),
        ('{"skill": "place_at", "args": {"x": NaN, "y": 0.5}}', "finite number"),
        ('{"skill": "push", "args": {"object": "red_cube", "direction": "up", "distance": 0.05}}', "direction"),
        ('{"skill": "carry", "args": {"waypoints": [[0.1]]}}', "points"),
        ('{"skill": "go_home", "args": {"open_gripper": "yes"}}', "true or false"),
    ],
)
def test_bad_calls_are_rejected_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(SkillCallError, match=reason):
        parse_call(text, OBJECTS)


def test_good_calls_parse_and_validate_against_the_schema() -> None:
    schema = skill_call_schema(OBJECTS)
    for text in (
        '{"skill": "pick", "args": {"object": "red_cube"}}',
        '{"skill": "place_in", "args": {"bowl": "green_bowl"}}',
        '{"skill": "carry", "args": {"waypoints": [[0.1, 0.4], [0.1, 0.6, 0.2]]}}',
        '{"skill": "done"}',
    ):
        call = parse_call(text, OBJECTS)
        jsonschema.validate(json.loads(call.text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"skill": "pick", "args": {"object": "blue_cube"}}, schema)


def test_the_planner_prompt_names_objects_skills_and_history() -> None:
    task = next(t for t in evaluation_tasks() if t.task == "s2_L0_004_stack")
    rt = TrialRuntime(task.layout, task.horizon)
    try:
        first = observe(rt.sim, task, task.layout, [], [], task.horizon, seed=1, privileged=True)
        call = parse_call(OracleAgent().act(first).text, rt.sim.object_names)
        result = execute(call, rt.skills)
        second = observe(rt.sim, task, task.layout, [result], [call.text()], task.horizon, seed=1)
    finally:
        rt.close()
    text = second.text
    assert task.instruction in text and "small red cube" in text and "place_on(target)" in text
    assert "1. " in text and "ok" in text and "holding red_cube" in text
    assert second.steps_used == result.steps and second.steps_left == task.horizon - result.steps


def test_a_trial_steps_the_gymnasium_environments_core() -> None:
    from heedful.sims.tabletop.env import TabletopEnv

    task = next(t for t in evaluation_tasks() if t.task == "s2_L0_004_stack")
    rt = TrialRuntime(task.layout, horizon=3)
    try:
        assert isinstance(rt.env, TabletopEnv) and rt.sim is rt.env.sim and rt.recorder is rt.env.recorder
        rt.step(rt.hold_action())
        assert rt.env.sim.steps == 1 and len(rt.trajectory().actions) == 1
        assert rt.idle_to_horizon() == 2
        with pytest.raises(HorizonReachedError):
            rt.step(rt.hold_action())
        broken = TrialRuntime(task.layout, horizon=3)
        with pytest.raises(InvalidActionError):  # the environment's step validates like the sim's
            broken.step([float("nan")] * 7)
        broken.close()
    finally:
        rt.close()
