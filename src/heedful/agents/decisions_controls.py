"""Shallow validity controls of the decisions suite: surface rules that never solve the constraint set.

Each control reads only the observation a language agent gets (instruction, candidate texts, structured state;
see `heedful.agents.decisions_reading`), never the gold or the symbolic task. A benchmark is healthy when
they stay far below the oracle on decision sensitivity and family success; a category a control solves is
broken. Every control answers a well-formed decision of the episode's type, so its records always parse:

- `single`: the first chosen candidate;
- `set`: the chosen candidates (sorted ids);
- `sequence`: the chosen candidates in the control's order.

When a rule finds nothing to choose it falls back to the named group (or every candidate) and says so in the
record's `agent_info` (`{"fallback": true}`); it never returns an empty or malformed answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from heedful.agents.base import AgentReply
from heedful.agents.decisions_reading import content_words, group_ids, named_ids, read
from heedful.suites.decisions.observation import DecisionObservation


def decision_reply(decision_type: str, chosen: Sequence[str], *, fallback: bool = False) -> AgentReply:
    """The JSON answer for `chosen` (non-empty, in the control's order) as a decision of `decision_type`."""
    if decision_type == "single":
        decision: str | list[str] = chosen[0]
    elif decision_type == "set":
        decision = sorted(chosen)
    else:
        decision = list(chosen)
    return AgentReply(text=json.dumps({"decision": decision}), info={"fallback": fallback} if fallback else {})


class LexicalAgent:
    """Validity control: chooses the candidates whose text shares the most words with the instruction.

    Words are compared after lower-casing, dropping stopwords and mapping everyday synonyms and plurals
    ("balls" -> "sphere", "grab" -> "pick"). The chosen candidates are all those with the highest overlap
    (every candidate when none overlaps), in listed order: single answers the first, set all of them,
    sequence all of them in listed order.
    """

    name = "lexical"

    def decide(self, observation: DecisionObservation) -> AgentReply:
        words = content_words(observation.instruction)
        scores = [len(content_words(c["text"]) & words) for c in observation.candidates]
        best = max(scores)
        chosen = [c["id"] for c, s in zip(observation.candidates, scores, strict=True) if s == best]
        return decision_reply(observation.decision_type, chosen, fallback=best == 0)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "instruction and candidate words (word overlap)"}


class UnnamedMemberAgent:
    """Validity control (polarity-blind): the members of the named group the instruction does not name.

    "Pick one of the purple objects, but do not pick the purple block" -> the purple objects other than the
    purple block. It never reads not / without / never. The group is the first plural or indefinite phrase
    ("purple objects", "actions that move a cylinder", "pushing actions"); with no group, every candidate.
    Single answers the first unnamed member, set all of them, sequence all of them in listed order; when the
    instruction names every member, the whole group (a fallback).
    """

    name = "unnamed-member"

    def decide(self, observation: DecisionObservation) -> AgentReply:
        reading = read(observation.instruction, observation.candidates, observation.state)
        named = set(named_ids(reading))
        group = group_ids(reading) or reading.ids
        chosen = [i for i in group if i not in named]
        return decision_reply(observation.decision_type, chosen or group, fallback=not chosen)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "named group minus individually named candidates (no negation)"}


class OrderOfMentionAgent:
    """Validity control: answers the candidates the instruction names, in the order it names them.

    "Take the cube, and once that is done, take the ball" -> [cube, ball]. Single answers the first named,
    set every named one, sequence the named ones in mention order. When nothing is named individually, the
    named group (or every candidate) in listed order (a fallback).
    """

    name = "order-of-mention"

    def decide(self, observation: DecisionObservation) -> AgentReply:
        reading = read(observation.instruction, observation.candidates, observation.state)
        chosen = named_ids(reading)
        if chosen:
            return decision_reply(observation.decision_type, chosen)
        return decision_reply(observation.decision_type, group_ids(reading) or reading.ids, fallback=True)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "individually named candidates, in mention order"}
