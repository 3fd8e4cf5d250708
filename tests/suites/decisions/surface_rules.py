"""Polarity-blind surface readers of decisions instructions, and the pair metrics they reach.

Test helpers standing in for the shallow control agents: they find which candidates an instruction names
(by the attribute descriptions the generator uses) and which attribute group it names, in order of
mention, and never read negation, relations or ranks. `audit` scores every rule per category.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from heedful.agents.decisions import well_formed_count
from heedful.suites.decisions.model import Candidate, Decision, DecisionEpisode
from heedful.suites.decisions.wording import ACTION_FORMS, DIRECTIONS
from heedful.world.objects import NOUNS
from heedful.world.reference import referring_expressions

NOUNS_PLURAL = "objects|items|things|pieces"
SIZE_WORDS = {"small": "small|little", "large": "large|big"}
VERB_GROUP_WORDS = {
    "pick": r"pick-up actions|actions that pick something up|lifting actions",
    "place_in": r"actions that put something in a bowl|actions that drop something into a bowl",
    "stack_on": r"stacking actions|actions that stack one object on another|actions that build a stack",
    "push": r"pushing actions|actions that push something|sliding actions",
    "rotate": r"rotation actions|actions that rotate something|turning actions",
}


_PATTERNS: dict[tuple[str, str], re.Pattern[str]] = {}
_MENTIONS: dict[tuple[str, str], list[str]] = {}
_GROUPS: dict[tuple[str, str], list[str]] = {}


def _descriptions(ep: DecisionEpisode, name: str) -> list[str]:
    obj = next(o for o in ep.state.objects if o.name == name)
    return ["the " + expr for expr in referring_expressions(obj, ep.state.objects)]


def _action_phrases(ep: DecisionEpisode, cand: Candidate) -> list[str]:
    """Every way the generator can word this action with attribute descriptions (old and new wordings)."""
    train, test = ACTION_FORMS[cand.attrs["verb"]]
    targets = _descriptions(ep, cand.target) if cand.target else [""]
    directions = [*sum(DIRECTIONS[cand.direction], ())] if cand.direction else [""]
    return [
        form.format(o=o, t=t, d=d)
        for pair in train + test
        for form in pair
        for o in _descriptions(ep, cand.object)
        for t in targets
        for d in directions
    ]


def mentions(ep: DecisionEpisode, text: str) -> list[str]:
    """Candidate ids in order of first mention: an object by an attribute description ("the red cube"),
    an action by any of its wordings ("push the red cube 10 cm to the left")."""
    key = (ep.episode_id, text)
    if key not in _MENTIONS:
        first: dict[str, int] = {}
        for cand in ep.candidates:
            found = _pattern(ep, cand).search(text)
            if found:
                first[cand.id] = found.start()
        _MENTIONS[key] = sorted(first, key=lambda i: (first[i], int(i[1:])))
    return _MENTIONS[key]


def _pattern(ep: DecisionEpisode, cand: Candidate) -> re.Pattern[str]:
    key = (ep.anchor_id, cand.id)
    if key not in _PATTERNS:
        phrases = _descriptions(ep, cand.object) if ep.anchor_kind == "object" else _action_phrases(ep, cand)
        alternatives = "|".join(re.escape(p) for p in sorted(set(phrases), key=len, reverse=True))
        _PATTERNS[key] = re.compile(rf"\b(?:{alternatives})\b(?!s)", flags=re.IGNORECASE)
    return _PATTERNS[key]


def _group_pattern(ep: DecisionEpisode, field: str, value: str) -> str:
    if field == "verb":
        return VERB_GROUP_WORDS[value]
    if ep.anchor_kind == "action":
        word = value if field == "color" else NOUNS[value][0] if field == "shape" else SIZE_WORDS[value]
        tail = "" if field == "shape" else r" object"
        return rf"(?:move|moving|involving) an? (?:{word}){tail}"
    if field == "shape":
        return NOUNS[value][1]
    word = value if field == "color" else SIZE_WORDS[value]
    return rf"(?:{word}) (?:{NOUNS_PLURAL})"


def named_group(ep: DecisionEpisode, text: str) -> list[str]:
    """Members of the first attribute group the text names, or every candidate."""
    key = (ep.episode_id, text)
    if key not in _GROUPS:
        _GROUPS[key] = _named_group(ep, text)
    return _GROUPS[key]


def _named_group(ep: DecisionEpisode, text: str) -> list[str]:
    best: tuple[int, list[str]] | None = None
    fields = ("verb", "color", "shape", "size") if ep.anchor_kind == "action" else ("color", "shape", "size")
    for field in fields:
        for value in sorted({c.attrs[field] for c in ep.candidates}):
            m = re.search(rf"\b(?:{_group_pattern(ep, field, value)})\b", text)
            members = [c.id for c in ep.candidates if c.attrs[field] == value]
            if m and (best is None or m.start() < best[0]):
                best = (m.start(), members)
    return best[1] if best else [c.id for c in ep.candidates]


def _shape(ep: DecisionEpisode, ordered: list[str]) -> Decision:
    if ep.decision_type == "single":
        return ordered[0]
    return sorted(ordered) if ep.decision_type == "set" else ordered


def _fallback(ep: DecisionEpisode, text: str, named: list[str]) -> list[str]:
    return named or named_group(ep, text)


RULES: dict[str, Callable[[DecisionEpisode, str], Decision]] = {
    "order-of-mention": lambda ep, t: _shape(ep, _fallback(ep, t, mentions(ep, t))),
    "reverse-mention": lambda ep, t: _shape(ep, _fallback(ep, t, mentions(ep, t))[::-1]),
    "first-named": lambda ep, t: _shape(ep, _fallback(ep, t, mentions(ep, t))[:1]),
    "last-named": lambda ep, t: _shape(ep, _fallback(ep, t, mentions(ep, t))[-1:]),
    "named-group": lambda ep, t: _shape(ep, named_group(ep, t)),
    "unnamed-member": lambda ep, t: _shape(
        ep, [i for i in named_group(ep, t) if i not in mentions(ep, t)] or named_group(ep, t)
    ),
}


@dataclass(frozen=True)
class Score:
    sensitivity: float
    family_success: float
    chance_sensitivity: float
    chance_family: float
    pairs: int
    families: int


def audit(
    episodes: Sequence[DecisionEpisode], rule: Callable[[DecisionEpisode, str], Decision], masked: bool = False
) -> dict[str, Score]:
    """Decision sensitivity and family success of `rule`, per category, with the random-valid chance levels."""
    fams: dict[str, dict[str, DecisionEpisode]] = defaultdict(dict)
    for ep in episodes:
        fams[ep.family_id][ep.role] = ep
    per: dict[str, list[tuple[int, int, float, float]]] = defaultdict(list)
    for roles in fams.values():
        ok = {r: rule(ep, ep.masked_instruction if masked else ep.instruction) == ep.gold for r, ep in roles.items()}
        base = roles["base"]
        p = 1 / well_formed_count(base.decision_type, len(base.candidates))
        hits = int(ok["base"] and ok["change"]) + int(ok["preserve"] and ok["change_preserve"])
        per[base.category].append((hits, int(all(ok.values())), p * p, p**4))
    out = {}
    for category, rows in sorted(per.items()):
        n = len(rows)
        out[category] = Score(
            sensitivity=sum(r[0] for r in rows) / (2 * n),
            family_success=sum(r[1] for r in rows) / n,
            chance_sensitivity=sum(r[2] for r in rows) / n,
            chance_family=sum(r[3] for r in rows) / n,
            pairs=2 * n,
            families=n,
        )
    return out
