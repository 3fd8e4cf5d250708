"""No surface rule solves a category: each polarity-blind reader stays near chance on decision sensitivity.

The readers (order of mention, reverse order, first / last named, the named group, the member of the
named group that the instruction does not name) are in `surface_rules`. They are competent where a
shortcut exists (checked below on the instances that look like the old all-but-one prohibitions), and
still fail every minimal pair, because the two instructions of a pair differ only in words they ignore.
"""

from __future__ import annotations

import pytest
from surface_rules import RULES, audit, mentions, named_group

from heedful.agents.registry import make_agent
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.decisions.model import Decision, DecisionEpisode
from heedful.suites.decisions.observation import build_observation

MARGIN = 0.10  # allowed above the random-valid chance level, absolute


@pytest.mark.parametrize("rule", sorted(RULES))
def test_no_surface_rule_beats_chance_on_any_category(default_episodes, rule: str) -> None:  # type: ignore[no-untyped-def]
    scores = audit(default_episodes, RULES[rule])
    assert set(scores) == {"inhibition", "set", "cardinality", "temporal", "multi"}
    for category, score in scores.items():
        assert score.sensitivity <= score.chance_sensitivity + MARGIN, (rule, category, score)
        assert score.family_success <= score.chance_family + MARGIN, (rule, category, score)


def _agent_rule(name: str):  # type: ignore[no-untyped-def]
    agent = make_agent(name, suite="decisions")

    def rule(ep: DecisionEpisode, text: str) -> Decision | None:
        observation = build_observation(ep, run_seed=0, mask=text == ep.masked_instruction)
        return parse_answer(agent.decide(observation).text, ep.decision_type, observation.candidate_ids).decision

    return rule


@pytest.mark.parametrize("agent", ["lexical", "unnamed-member", "order-of-mention"])
def test_the_shipped_shallow_controls_stay_near_chance_too(default_episodes, agent: str) -> None:  # type: ignore[no-untyped-def]
    for category, score in audit(default_episodes, _agent_rule(agent)).items():
        assert score.sensitivity <= score.chance_sensitivity + MARGIN, (agent, category, score)
        assert score.family_success <= score.chance_family + MARGIN, (agent, category, score)


def test_the_rules_find_what_instructions_name(default_episodes) -> None:  # type: ignore[no-untyped-def]
    # The audit would pass vacuously if the readers could not read: on the prohibitions of a named
    # candidate within a named pair ("Of the cubes, do not pick up the red cube; ..."), the member
    # that is not named is the gold, and the unnamed-member rule must find it whenever the candidate is
    # named by its attributes (a position or relation reference, "the leftmost cube", escapes a name reader).
    negative = [
        ep
        for ep in default_episodes
        if ep.subtype == "polarity"
        and any(c.kind == "inhibit" for c in ep.task.constraints)
        and ep.template_id in {"inh-a", "inh-d"}
    ]
    by_name = [ep for ep in negative if len(mentions(ep, ep.instruction)) == 1]
    assert len(by_name) > 0.5 * len(negative) > 25
    assert all(RULES["unnamed-member"](ep, ep.instruction) == ep.gold for ep in by_name)
    # and the named-group rule keeps exactly the named group of "only the red objects" instructions
    retained = [ep for ep in default_episodes if ep.template_id == "set-a" and ep.task.constraints[0].kind == "scope"]
    right = sum(RULES["named-group"](ep, ep.instruction) == ep.gold for ep in retained)
    assert right / len(retained) > 0.9


def test_temporal_order_of_mention_gets_exactly_one_instance_of_each_pair(default_episodes) -> None:  # type: ignore[no-untyped-def]
    # before / after flips keep the order of mention: a reader of names alone is right on one side only
    explicit = [ep for ep in default_episodes if ep.subtype == "explicit" and ep.role in ("base", "change")]
    by_family: dict[str, list[bool]] = {}
    for ep in explicit:
        named = mentions(ep, ep.instruction)
        if sorted(named) == sorted(ep.gold):  # a landmark of a relation ("closest to the bar") is no step
            by_family.setdefault(ep.family_id, []).append(named == ep.gold)
    both = [v for v in by_family.values() if len(v) == 2]
    assert len(both) > 50
    assert all(sum(v) == 1 for v in both)


def test_masked_instructions_leave_every_rule_without_a_signal(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for rule in RULES.values():
        for score in audit(default_episodes, rule, masked=True).values():
            assert score.sensitivity == 0.0


def test_named_group_reads_plural_groups(default_episodes) -> None:  # type: ignore[no-untyped-def]
    ep = next(e for e in default_episodes if e.template_id == "card-b" and e.anchor_kind == "object")
    scope = ep.task.constraints[0]
    members = [c.id for c in ep.candidates if scope.kind == "scope" and scope.predicate.matches(c)]
    assert named_group(ep, ep.instruction) == members
