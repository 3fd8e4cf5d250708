"""The rule controls (lexical, unnamed-member, order-of-mention) on hand-built questions, strictly, and on the
default dataset as properties of a healthy benchmark (today's numbers live in `heedful.agents.decisions_audit`)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from decision_questions import action_question, object_question

from heedful.agents.decisions_controls import LexicalAgent, OrderOfMentionAgent, UnnamedMemberAgent
from heedful.agents.decisions_reading import group_ids, named_ids, read
from heedful.agents.registry import make_agent
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE

RULES = ("lexical", "unnamed-member", "order-of-mention")


def decision(agent: object, observation: object) -> object:
    return json.loads(agent.decide(observation).text)["decision"]  # type: ignore[attr-defined]


# --- the readers


def test_reader_finds_the_named_group_and_the_individually_named_objects() -> None:
    q = object_question("Pick up one of the purple objects, but do not pick up the purple block or the small cube.")
    reading = read(q.instruction, q.candidates, q.state)
    assert group_ids(reading) == ["o2", "o3", "o5"]
    assert named_ids(reading) == ["o2", "o3"]


def test_reader_tells_two_actions_on_one_object_apart_by_their_own_words() -> None:
    q = action_question("Never slide the blue cylinder 10 cm back toward you; push one of the others.")
    assert named_ids(read(q.instruction, q.candidates, q.state)) == ["a3"]
    q = action_question("Never push the blue cylinder rightward.")
    assert named_ids(read(q.instruction, q.candidates, q.state)) == ["a1"]


def test_a_target_after_on_or_in_is_not_the_object_acted_on() -> None:
    q = object_question("Put the small green block on top of the purple bar.")
    assert named_ids(read(q.instruction, q.candidates, q.state)) == ["o1"]


def test_an_ambiguous_description_names_nothing() -> None:
    q = object_question("Do not take the purple object or the block.")  # three purple objects, two blocks
    assert named_ids(read(q.instruction, q.candidates, q.state)) == []


# --- each control, strictly


def test_unnamed_member_picks_the_group_member_the_instruction_does_not_name() -> None:
    agent = UnnamedMemberAgent()
    q = object_question("Pick up one of the purple objects, but do not pick up the purple block or the small cube.")
    assert decision(agent, q) == "o5"
    actions = "You must not push the blue cylinder 10 cm to the right; apart from that, push one of the cylinders."
    assert decision(agent, action_question(actions)) == "a3"


def test_unnamed_member_is_blind_to_polarity() -> None:
    agent = UnnamedMemberAgent()
    negative = object_question("Take one of the purple objects, but never the purple bar or the purple cube.")
    positive = object_question("Take one of the purple objects, namely the purple bar or the purple cube.")
    assert decision(agent, negative) == decision(agent, positive) == "o2"


def test_order_of_mention_answers_in_the_order_things_are_named() -> None:
    agent = OrderOfMentionAgent()
    q = object_question("First take the purple bar, then take the green cube, then the small green block.", "sequence")
    assert decision(agent, q) == ["o5", "o4", "o1"]
    # "only after" reverses the order in meaning, not in mention: the control gets it wrong on purpose
    q = object_question("Take the green cube only after taking the purple bar.", "sequence")
    assert decision(agent, q) == ["o4", "o5"]
    assert decision(agent, object_question("Take the green cube, not the purple bar.")) == "o4"


def test_lexical_chooses_the_candidates_with_the_most_shared_words() -> None:
    agent = LexicalAgent()
    assert decision(agent, object_question("Pick up the purple objects and nothing else.", "set")) == ["o2", "o3", "o5"]
    assert decision(agent, object_question("Take the large green cube.")) == "o4"
    reply = agent.decide(object_question("Do it.", "set"))
    assert json.loads(reply.text)["decision"] == ["o1", "o2", "o3", "o4", "o5"]
    assert reply.info == {"fallback": True}


@pytest.mark.parametrize("name", RULES)
@pytest.mark.parametrize("decision_type", ["single", "set", "sequence"])
@pytest.mark.parametrize("instruction", ["Do it.", "", "Take the purple bar.", "[MASK] of the [MASK], but not [MASK]."])
def test_every_rule_answers_a_well_formed_decision(name: str, decision_type: str, instruction: str) -> None:
    agent = make_agent(name, suite="decisions")
    for q in (object_question(instruction, decision_type), object_question(instruction, decision_type, shown=False)):
        parsed = parse_answer(agent.decide(q).text, decision_type, q.candidate_ids)
        assert parsed.ok, (name, decision_type, instruction, parsed.reason)


def test_the_visual_condition_reads_attributes_from_the_candidate_texts() -> None:
    q = object_question("Pick up one of the purple objects, but not the purple block or the small cube.", shown=False)
    assert decision(UnnamedMemberAgent(), q) == "o5"


# --- on the default dataset: properties a healthy benchmark keeps


def run_rule(name: str, episodes, with_privileged: bool = False):  # type: ignore[no-untyped-def]
    agent = make_agent(name, suite="decisions")
    records = []
    for i, ep in enumerate(episodes):
        context = RolloutContext(seed=i, index=i, options={})
        if with_privileged:  # the same question with the symbolic task (the rollout withholds it): same answers
            observation = build_observation(ep, run_seed=0, mask=False, privileged=True)
            assert observation.privileged_task is not None
            records.append(agent.decide(observation).text)
        else:
            records.append(SUITE.rollout_episode(ep, agent, context))
    return records


@pytest.fixture(scope="module")
def rule_records(default_episodes):  # type: ignore[no-untyped-def]
    return {name: run_rule(name, default_episodes) for name in RULES}


@pytest.mark.parametrize("name", RULES)
def test_rules_always_parse_and_never_read_the_symbolic_task(name: str, rule_records, default_episodes) -> None:  # type: ignore[no-untyped-def]
    assert all(r.status == "ok" for r in rule_records[name])
    sample = default_episodes[::10]
    with_task = [json.dumps({"decision": r.prediction}) for r in rule_records[name][::10]]
    assert run_rule(name, sample, with_privileged=True) == with_task


# Before issue 13's regenerated dataset (decisions-v2), unnamed-member solved inhibition and set/retention.
@pytest.mark.parametrize("name", list(RULES))
def test_no_rule_reaches_half_family_success_in_any_category(name: str, rule_records) -> None:  # type: ignore[no-untyped-def]
    rows = decision_metrics(rule_records[name], resamples=1)
    solved = {r.group: r.value for r in rows if r.metric == "family_success" and r.group.startswith("category:")}
    assert all(v is not None and v <= 0.5 for v in solved.values()), solved


@pytest.mark.parametrize("name", RULES)
def test_rules_stay_far_below_the_oracle_overall(name: str, rule_records) -> None:  # type: ignore[no-untyped-def]
    rows = {r.metric: r.value for r in decision_metrics(rule_records[name], resamples=1) if r.group == "all"}
    assert rows["family_success"] < 0.5 and rows["decision_sensitivity"] < 0.5, rows


def test_rules_answer_questions_outside_the_tabletop_vocabulary() -> None:
    q = dataclasses.replace(
        object_question("Open the drawer, then close the door.", "sequence"),
        candidates=({"id": "x1", "text": "close the door"}, {"id": "x2", "text": "open the drawer"}),
        state={},
    )
    for name in RULES:
        assert parse_answer(make_agent(name, suite="decisions").decide(q).text, "sequence", q.candidate_ids).ok
    assert decision(LexicalAgent(), q) == ["x1", "x2"]  # both share two words: listed order
