"""The Reasoner and Prompter with test-double models: prompts, limits, re-queries, records, privilege."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from household_data import first, small_episodes
from household_llm_doubles import PerfectModel, ScriptedChatBackend, with_backend

from heedful.agents.base import AgentReply
from heedful.agents.household import OracleAgent
from heedful.agents.household_prompter import PrompterAgent
from heedful.agents.household_reasoner import ReasonerAgent
from heedful.agents.registry import make_agent
from heedful.errors import ConfigError
from heedful.llm.client import CallError
from heedful.llm.engine import TransportError
from heedful.records import Status
from heedful.sims.household.vision import HEADINGS
from heedful.suites.base import RolloutContext
from heedful.suites.household.executors import FOLLOW_CHUNK
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.observation import HouseholdObservation
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import SUITE

REMOTE = {"base_url": "http://127.0.0.1:9/v1", "model": "test-double", "api_key_env": "HEEDFUL_TEST_NO_KEY"}


def agent(cls: type, script: Any, **args: Any) -> Any:
    return with_backend(cls(**REMOTE, **args), ScriptedChatBackend(script))


def test_registered_and_refusing_bad_arguments() -> None:
    assert isinstance(make_agent("reasoner", REMOTE, suite="household"), ReasonerAgent)
    assert isinstance(make_agent("prompter", REMOTE, suite="household"), PrompterAgent)
    with pytest.raises(ConfigError, match="no argument 'max_call'"):
        make_agent("reasoner", {**REMOTE, "max_call": 3}, suite="household")
    with pytest.raises(ConfigError, match="reasoning_chars"):
        make_agent("prompter", {**REMOTE, "constrain": True, "reasoning_chars": -1}, suite="household")
    with pytest.raises(ConfigError, match="max_model_calls"):
        make_agent("reasoner", {**REMOTE, "max_model_calls": 0}, suite="household")
    described = ReasonerAgent(**REMOTE).describe()
    assert described["max_model_calls"] == 15 and set(described["prompts"]) == {
        "household-reasoner",
        "household-evidence",
    }
    assert described["constrained"] is False and "reasoning_chars" not in described  # free text by default
    constrained = PrompterAgent(**REMOTE, constrain=True, reasoning_chars=40).describe()
    assert constrained["constrained"] is True and constrained["reasoning_chars"] == 40


def test_the_reasoner_prompt_has_every_part_in_the_papers_order() -> None:
    episode = first("s_obj", True)
    answers = iter(["Action: Go to Room 0", "Reasoning: look. Action: Explore Room 0", "Action: Done"])
    reasoner = agent(ReasonerAgent, lambda _: next(answers))
    run = run_episode(episode, reasoner, seed=0)
    assert [o.action for o in run.outcomes] == ["Go to Room 0", "Explore Room 0", "Done"]
    (role, system), (_, user) = reasoner.engine().backend.requests[2].messages
    assert role == "system" and system == (
        "You are an assistive robot in a house, helping a human. Your observations may be incomplete or wrong."
    )
    parts = [
        "While premapping, you saw the layout of the house; you saw that Room 0 (",  # premap listing
        f"the human said '{episode.communication[0]}'",  # what the human said
        f"the human finally commanded to you: '{episode.command}'",  # the instruction
        "Timestep ",  # the history: the first tool ...
        "You went to room 0",
        "You checked room 0; you scanned some parts of it",  # ... then the second, with what was seen
        "Combining your latest observations, In map",  # the latest map
        "To achieve the goal, choose the next action among Available Actions: ['Go to Room 0'",
        "If you want to keep searching for object(s) or human",
        "Please ONLY respond in the format: RESPONSE FORMAT: Reasoning: reason about the next action. Action:",
        "Now, which action should you take? RESPONSE FORMAT:",
    ]
    where = [user.find(part) for part in parts]
    assert -1 not in where and where == sorted(where), dict(zip(parts, where, strict=True))
    premap_listing = user[: user.find("Your observations")]
    assert all(f"Room {room.index} ({room.wall_colour} walls) has:" in premap_listing for room in episode.house.rooms)


def test_the_prompter_asks_for_a_plan_in_the_fixed_format_then_searches() -> None:
    episode = first("s_obj", True)
    model = PerfectModel(episode)
    prompter = agent(PrompterAgent, model)
    run = run_episode(episode, prompter, seed=0)
    requests = prompter.engine().backend.requests
    plan = requests[0].messages
    assert len(plan) == 1 and plan[0][1].startswith(f"The human commanded to you: '{episode.command}' Please make")
    deliver = "Put in the ROOM" if episode.goal.kind == "room" else "Put on the RECEP"
    assert f'Please answer in the format of "[Pick up OBJ, {deliver}]"' in plan[0][1]
    kinds = [q["kind"] for q in run.queries]
    # (whether it then succeeds depends on the house: the open loop first tries where the stale premap saw
    # the moved object, a detour the 600 steps do not always cover in the calibrated houses)
    assert kinds[0] == "plan" and set(kinds[1:]) == {"search"} and run.score is not None
    search = requests[1].messages[1][1]
    assert f"In which room, is the {episode.target_category} likely to be in?" in search
    assert search.endswith("Please ONLY respond in the format: Answer: Room X.")


def test_a_perfect_model_reaches_the_oracles_success_on_all_three_task_types() -> None:
    episodes = small_episodes()
    assert {ep.task_type for ep in episodes} == {"pnp", "s_obj", "s_hum"}
    oracle = [bool(run_episode(ep, OracleAgent(), seed=0).score.success) for ep in episodes]  # type: ignore[union-attr]
    for cls in (ReasonerAgent, PrompterAgent):
        runs = [run_episode(ep, agent(cls, PerfectModel(ep)), seed=0) for ep in episodes]
        assert all(run.status is Status.OK for run in runs)
        success = [bool(run.score.success) for run in runs]  # type: ignore[union-attr]
        if cls is ReasonerAgent:  # it is asked after every tool: it repeats the oracle's path exactly
            assert all(run.ended_by == "done" for run in runs) and success == oracle
            assert [run.score.steps for run in runs] == [ep.oracle_steps for ep in episodes]  # type: ignore[union-attr]
            continue
        # the open-loop Prompter matches the oracle on PnP; in the calibrated houses (sif-v2) its fixed rules
        # can cost it S_obj (it first tries where the stale premap saw the moved object) and S_hum (it gives
        # from the door of a large room and never looks further in), never the other way round
        pnp = [k for k, ep in enumerate(episodes) if ep.task_type == "pnp"]
        assert [success[k] for k in pnp] == [oracle[k] for k in pnp]
        assert all(runs[k].ended_by == "done" for k in pnp)
        assert all(o or not s for s, o in zip(success, oracle, strict=True))


def test_the_episode_ends_after_15_model_calls() -> None:
    record = SUITE.rollout_episode(
        first("pnp"), agent(ReasonerAgent, lambda _: "Action: Go to Room 0"), RolloutContext(seed=0, index=0)
    )
    assert record.status is Status.OK and record.prediction["ended_by"] == "model_call_limit"
    assert record.usage["requests"] == 15 and len(record.prediction["model_queries"]) == 15
    assert record.agent_info["end_reason"] == "15 model calls used (the limit is 15)"
    assert record.prediction["actions"] == ["Go to Room 0"] * 15 and record.scores["success"] == 0.0
    two = run_episode(first("s_hum"), agent(PrompterAgent, lambda _: "Action: Enough Evidence", max_model_calls=1), 0)
    assert two.ended_by == "model_call_limit" and [q["kind"] for q in two.queries] == ["evidence"]


def longest_walk() -> HouseholdEpisode:
    """The ambiguous S_hum episode whose human walks farthest (several 20-step chunks of following)."""

    def walk(ep: HouseholdEpisode) -> float:
        (x0, y0), (x1, y1) = ep.human.start, ep.human.destination or ep.human.start
        return float(np.hypot(x1 - x0, y1 - y0))

    return max((ep for ep in small_episodes() if ep.task_type == "s_hum" and ep.ambiguous), key=walk)


def test_the_reasoner_asks_for_evidence_again_after_every_20_steps_of_following() -> None:
    episode = longest_walk()

    def unsure(user: str) -> str:
        if "high level plan" in user:
            return f"[Pick up {episode.target_category}, Give {episode.target_category} to Human]"
        return "Action: Not Enough Evidence" if "enough evidence" in user else "Action: Done"

    run = run_episode(episode, agent(ReasonerAgent, unsure), seed=0)
    follows = [o for o in run.outcomes if o.action == "Follow Human"]
    assert len(follows) >= 3 and run.outcomes[-1].action == "Done"
    evidence = [q for q in run.queries if q["kind"] == "evidence"]
    # asked at the start and again whenever a follow chunk handed control back without ending the following
    assert [q["step"] for q in evidence] == [0] + [o.start_step + o.steps for o in follows[:-1]]
    assert all(o.message.startswith("you were following") for o in follows[:-1])
    assert not follows[-1].message.startswith("you were following")  # the follow tool ended the following ...
    assert [q["kind"] for q in run.queries][-1] == "action"  # ... so the next question is for an action
    for o in follows:  # 20 steps of following, plus a look-around (a full turn at most) begun before them
        assert o.steps <= FOLLOW_CHUNK + HEADINGS, o
    assert sum(o.steps <= FOLLOW_CHUNK for o in follows) >= len(follows) - 1
    prompter = run_episode(episode, agent(PrompterAgent, unsure), seed=0)
    followed = [o for o in prompter.outcomes if o.action == "Follow Human"]
    assert len(followed) >= 3 and prompter.outcomes[: len(followed)] == followed  # Follow Human came first ...
    assert not followed[-1].message.startswith("you were following")  # ... until the human stopped
    assert [q["kind"] for q in prompter.queries] == ["evidence", "plan"]  # open loop: no question since


def test_unreadable_answers_end_the_episode_as_parse_errors_with_the_raw_text() -> None:
    suite, context = SUITE, RolloutContext(seed=0, index=0)
    record = suite.rollout_episode(first("pnp"), agent(ReasonerAgent, lambda _: "Action: Give to Human"), context)
    assert record.status is Status.PARSE_ERROR and record.prediction["ended_by"] == "parse_error"
    assert "action answer: 'Give to Human' is not one of the available choices" in (record.error or "")
    assert record.raw_output == "Action: Give to Human" and record.prediction["actions"] == []
    sorry = "I'm sorry, but I can't comply with that request."
    record = suite.rollout_episode(first("pnp"), agent(PrompterAgent, lambda _: sorry), context)
    assert record.status is Status.PARSE_ERROR and (record.error or "").startswith("plan answer: the answer has no")
    query = record.prediction["model_queries"][0]
    assert query["kind"] == "plan" and query["answer"] == sorry and query["read"] is None and query["error"]


def test_records_carry_calls_tokens_and_every_query() -> None:
    episode = first("s_hum", False)
    record = SUITE.rollout_episode(episode, agent(ReasonerAgent, PerfectModel(episode)), RolloutContext(0, 0))
    assert record.status is Status.OK and record.correct
    queries = record.prediction["model_queries"]
    assert queries[0]["kind"] == "evidence" and queries[0]["read"] == "Enough Evidence"
    assert [q["read"] for q in queries[1:]] == record.prediction["actions"]
    assert record.usage["requests"] == record.usage["model_calls"] == len(queries)
    assert record.usage["prompt_tokens"] == sum(q["prompt_tokens"] for q in queries) > 0
    assert record.usage["completion_tokens"] == 12 * len(queries) and record.usage["cache_hits"] == 0
    assert record.raw_output == "\n---\n".join(q["answer"] for q in queries)
    assert all(
        {"action", "start_step", "steps", "ok", "message", "room"} <= set(row) for row in record.prediction["tools"]
    )


class Spy:
    """Records what it was shown; answers Done (a real, trivial planner)."""

    name = "spy"

    def __init__(self, privileged: bool) -> None:
        self.privileged = privileged
        self.seen: list[HouseholdObservation] = []

    def act(self, observation: HouseholdObservation) -> AgentReply:
        self.seen.append(observation)
        return AgentReply(text="Done")


def test_only_agents_that_declare_it_see_the_live_state() -> None:
    plain, privileged = Spy(False), Spy(True)
    run_episode(first("pnp"), plain, seed=0)
    run_episode(first("pnp"), privileged, seed=0)
    assert plain.seen[0].privileged is None and privileged.seen[0].privileged is not None
    assert OracleAgent.privileged and not getattr(ReasonerAgent, "privileged", False)
    assert not getattr(PrompterAgent, "privileged", False)


def test_a_transport_failure_keeps_what_the_episode_spent() -> None:
    answers = iter(["Action: Go to Room 0"])

    def then_down(_: str) -> str:
        answer = next(answers, None)
        if answer is None:
            raise CallError("connection refused", transient=False)
        return answer

    with pytest.raises(TransportError) as failure:
        run_episode(first("pnp"), agent(ReasonerAgent, then_down), seed=0)
    assert failure.value.usage["requests"] == 2 and failure.value.usage["model_calls"] == 2
    assert failure.value.usage["prompt_tokens"] > 0  # the answered question's tokens are kept
