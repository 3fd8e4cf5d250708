"""Constrained mode of the Reasoner and Prompter: the schemas, and JSON answers read by the paper's rule.

Models here are test doubles (`household_llm_doubles`); the real SmolLM2 runs in tests/llm.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from household_data import first, small_episodes
from household_llm_doubles import JsonModel, PerfectModel, ScriptedChatBackend, with_backend

from heedful.agents.household import OracleAgent
from heedful.agents.household_answers import EVIDENCE_CHOICES, read_action, read_plan, read_room, read_step
from heedful.agents.household_json import choice_question, plan_question, plan_steps, room_question
from heedful.agents.household_prompter import PrompterAgent
from heedful.agents.household_reasoner import ReasonerAgent
from heedful.cli import main
from heedful.llm.request import ChatRequest, Sampling, cache_key
from heedful.records import Status
from heedful.suites.base import RolloutContext
from heedful.suites.household.observation import build_observation
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.suite import SUITE

REMOTE = {"base_url": "http://127.0.0.1:9/v1", "model": "test-double", "api_key_env": "HEEDFUL_TEST_NO_KEY"}


def constrained(cls: type, script: Any, **args: Any) -> Any:
    return with_backend(cls(**REMOTE, constrain=True, **args), ScriptedChatBackend(script))


def test_the_action_schema_admits_exactly_the_available_actions() -> None:
    obs = build_observation(TaskEnv.start(first("s_hum", True)), seed=0)
    form = ReasonerAgent(**REMOTE, constrain=True).choice_form(obs.available_actions)
    assert form is not None and ReasonerAgent(**REMOTE).choice_form(obs.available_actions) is None
    jsonschema.Draft202012Validator.check_schema(form.schema)
    props = form.schema["properties"]
    assert list(props) == ["reasoning", "action"] and form.schema["required"] == ["reasoning", "action"]
    assert props["action"]["enum"] == list(obs.available_actions) and "Follow Human" in obs.available_actions
    assert props["reasoning"] == {"type": "string", "maxLength": 200}
    assert form.schema["additionalProperties"] is False
    for action in obs.available_actions:  # every admitted answer is accepted by the paper's rule as itself
        answer = {"reasoning": "Action: Done", "action": action}  # an "Action:" inside the reasoning is not read
        jsonschema.validate(answer, form.schema)
        text = form.text_of(json.dumps(answer), "stop")
        assert text.value == f"Reasoning: Action: Done\nAction: {action}"
        assert read_action(text.value, obs.available_actions).value == action
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"reasoning": "", "action": "Give to Human"}, form.schema)
    bare = choice_question(obs.available_actions, reasoning_chars=0)
    assert list(bare.schema["properties"]) == ["action"]
    assert bare.text_of('{"action": "Go to Room 0"}', "stop").value == "Action: Go to Room 0"


def test_the_evidence_plan_and_search_schemas() -> None:
    evidence = choice_question(EVIDENCE_CHOICES, 50).schema
    assert evidence["properties"]["action"]["enum"] == ["Enough Evidence", "Not Enough Evidence"]
    plan = plan_question()
    items = plan.schema["properties"]["plan"]
    assert (items["minItems"], items["maxItems"]) == (1, 4) and items["items"]["enum"] == list(plan_steps())
    steps = [read_step(step) for step in plan_steps()]
    assert None not in steps and len(set(steps)) == len(steps)  # each step reads back as a distinct step
    assert {kind for kind, _ in steps if kind} == {"follow", "pick", "put_on", "put_in", "give"}
    text = plan.text_of('{"plan": ["Pick up cup", "Put on the table"]}', "stop").value
    assert text == "[Pick up cup, Put on the table]" and read_plan(str(text)) == (
        (("pick", "cup"), ("put_on", "table")),
        None,
    )
    search = room_question(3)
    assert search.schema["properties"]["answer"]["enum"] == ["Room 0", "Room 1", "Room 2"]
    assert read_room(str(search.text_of('{"answer": "Room 2"}', "stop").value), 3).value == "2"
    for schema in (evidence, plan.schema, search.schema):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_json_that_cannot_be_read_is_a_reason_never_a_guess() -> None:
    form = choice_question(["Go to Room 0", "Done"])
    cut = form.text_of('{"reasoning": "I will go to', "length")
    assert cut.value is None and "does not parse (cut off by max_tokens" in str(cut.reason)
    assert "cut off" not in str(form.text_of("Action: Done", "stop").reason)  # free text is no JSON answer
    for wrong in ('{"action": "Done"}', '["Done"]', '{"reasoning": "", "action": "Done", "why": 1}'):
        assert "must be an object with the keys reasoning, action" in str(form.text_of(wrong, "stop").reason)
    assert "'action' must be a string" in str(form.text_of('{"reasoning": "", "action": 3}', "stop").reason)
    assert "must be a list of strings" in str(plan_question().text_of('{"plan": "Pick up cup"}', "stop").reason)


def test_the_cache_key_covers_the_schema() -> None:
    messages = (("user", "Which action?"),)
    plain = ChatRequest(messages, Sampling(seed=1))
    form = choice_question(["Done", "Go to Room 0"])
    schema = ChatRequest(messages, Sampling(seed=1), schema=form.schema, schema_name=form.name)
    other = choice_question(["Done", "Go to Room 1"])
    narrower = ChatRequest(messages, Sampling(seed=1), schema=other.schema, schema_name=other.name)
    identity = {"kind": "test-double", "model": "m"}
    assert len({cache_key(identity, r) for r in (plain, schema, narrower)}) == 3


def test_a_perfect_model_answering_json_reaches_the_oracles_success() -> None:
    episodes = small_episodes()
    oracle = [bool(run_episode(ep, OracleAgent(), seed=0).score.success) for ep in episodes]  # type: ignore[union-attr]
    for cls in (ReasonerAgent, PrompterAgent):
        agents = [constrained(cls, JsonModel(PerfectModel(ep))) for ep in episodes]
        runs = [run_episode(ep, agent, seed=0) for ep, agent in zip(episodes, agents, strict=True)]
        assert all(run.status is Status.OK for run in runs)
        # the open-loop Prompter's fixed rules can cost it S_obj and S_hum episodes in the calibrated houses
        # (sif-v2; see test_household_llm_agents), never the other way round; PnP and the Reasoner match
        exact = [cls is ReasonerAgent or ep.task_type == "pnp" for ep in episodes]
        assert all(run.ended_by == "done" for run, same in zip(runs, exact, strict=True) if same)
        success = [bool(run.score.success) for run in runs]  # type: ignore[union-attr]
        assert [s for s, same in zip(success, exact, strict=True) if same] == [
            o for o, same in zip(oracle, exact, strict=True) if same
        ]
        assert all(o or not s for s, o in zip(success, oracle, strict=True))
        for run, agent in zip(runs, agents, strict=True):
            requests = agent.engine().backend.requests
            assert len(requests) == len(run.queries) and all(r.schema is not None for r in requests)
            for query, request in zip(run.queries, requests, strict=True):
                assert query["as_text"] is not None and query["read"] is not None
                jsonschema.validate(json.loads(query["answer"]), request.schema)  # the record keeps the raw JSON
                if query["kind"] == "action":
                    assert query["read"] in request.schema["properties"]["action"]["enum"]
                elif query["kind"] == "search":
                    assert f"Room {query['read']}" in request.schema["properties"]["answer"]["enum"]


def test_unreadable_json_ends_the_episode_as_a_parse_error() -> None:
    suite, context = SUITE, RolloutContext(seed=0, index=0)
    cut = '{"reasoning": "The cup is in room'
    record = suite.rollout_episode(first("pnp"), constrained(ReasonerAgent, lambda _: (cut, "length")), context)
    assert record.status is Status.PARSE_ERROR and record.prediction["ended_by"] == "parse_error"
    assert (record.error or "").startswith("action answer: the JSON answer does not parse (cut off by max_tokens")
    query = record.prediction["model_queries"][0]
    assert query["answer"] == cut == record.raw_output and query["as_text"] is None and query["read"] is None
    assert query["finish_reason"] == "length" and record.prediction["actions"] == []
    unavailable = json.dumps({"reasoning": "", "action": "Give to Human"})  # a server that ignored the schema
    record = suite.rollout_episode(first("pnp"), constrained(ReasonerAgent, lambda _: unavailable), context)
    assert "action answer: 'Give to Human' is not one of the available choices" in (record.error or "")
    record = suite.rollout_episode(first("pnp"), constrained(PrompterAgent, lambda _: '{"plan": []}'), context)
    assert record.status is Status.PARSE_ERROR and record.error == "plan answer: '' is not a plan step" + (
        " (Pick up OBJ, Put on the RECEP, Put in the ROOM, ...)"
    )


def test_constrain_and_no_constrain_cannot_both_be_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "household", "--agent", "reasoner", "--out", str(tmp_path / "r")]
    assert main([*args, "--constrain", "--no-constrain"]) == 2
    assert "--no-constrain and --constrain both set constrain" in capsys.readouterr().err
