"""Keyword readers of the decisions suite: rule parsers that read count, rank, order, polarity and relation cues.

Diagnostic controls for the audit (issue 39). They read only what a language agent sees (instruction, candidate
texts, structured state), find cue phrases by exact match, and apply one fixed rule per decision type:

- single: with a comparative cue ("farther to the left") and two named candidates, the one not farther along;
  with a named candidate, it, or with a negation cue the other member of the named group; otherwise the group
  member having (or, negated, lacking) the attribute named after the group;
- set: with a count cue, the first k of the named group (minus candidates named after a negation) ranked by the
  last rank cue, or all but them after 'except the'; otherwise the named group, or its complement when an
  exclusion cue is found;
- sequence: with an order cue, the named group sorted by it; with a before / after cue, the two named
  candidates ordered around the one named after the cue.

`count-rank` is the 18-line reader of issue 39 (count word, last rank word left / right / far / near, named
group). `keyword-train` knows only the cue phrases of the training wording, `keyword-full` the held-out ones as
well: the first measures whether the held-out wording hides the task from a parser fitted by hand to the
training split, the second how far exact keyword matching gets when it knows every phrase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import hypot
from typing import Any

from heedful.agents.base import AgentReply
from heedful.agents.decisions_controls import decision_reply
from heedful.agents.decisions_reading import (
    Reading,
    canonical,
    consistent,
    group_ids,
    named_candidates,
    named_ids,
    read,
    resolve_objects,
)
from heedful.suites.decisions.observation import DecisionObservation
from heedful.suites.decisions.sizes import volume
from heedful.world.footprints import SHAPE_DIMS
from heedful.world.objects import COLORS

Rank = tuple[str, bool]
"""(axis, descending): ("x", False) ranks left to right, ("y", True) far side first, ("size", True) biggest first."""
Origin = tuple[float, float]
"""A landmark's position: rank by distance from it, nearest first."""

COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
NOT_A_COUNT_BEFORE = frozenset({"every", "each", "no"})


def spans(tokens: Sequence[str], phrase: str) -> list[tuple[int, int]]:
    """(start, end) of every exact occurrence of `phrase` (space-separated words) in `tokens`."""
    words = phrase.split()
    n = len(words)
    return [(i, i + n) for i in range(len(tokens) - n + 1) if list(tokens[i : i + n]) == words]


def _inside(span: tuple[int, int], others: Sequence[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b and (a, b) != span for a, b in others)


def found(tokens: Sequence[str], phrases: Sequence[str], exempt: Sequence[str] = ()) -> list[tuple[int, int]]:
    """Spans of `phrases` that do not lie inside a longer `exempt` phrase ("not the other" exempts "not")."""
    shields = [s for p in exempt for s in spans(tokens, p)]
    return sorted(s for p in phrases for s in spans(tokens, p) if not _inside(s, shields) and s not in shields)


def last_cue(tokens: Sequence[str], table: Mapping[str, Rank]) -> Rank | None:
    """The meaning of the cue phrase that starts last (the longest one there)."""
    found_at = last_cue_at(tokens, table)
    return None if found_at is None else found_at[1]


def last_cue_at(tokens: Sequence[str], table: Mapping[str, Rank]) -> tuple[int, Rank] | None:
    """(start, meaning) of the cue phrase that starts last (the longest one there)."""
    hits = [(start, end - start, table[p]) for p in table for start, end in spans(tokens, p)]
    if not hits:
        return None
    start, _, rank = max(hits, key=lambda h: (h[0], h[1]))
    return start, rank


def landmark_at(reading: Reading, phrases: Sequence[str]) -> tuple[int, Origin] | None:
    """(start, position) of the last landmark cue followed by a phrase naming exactly one object of the state."""
    best: tuple[int, Origin] | None = None
    for phrase in phrases:
        for start, end in spans(reading.tokens, phrase):
            mention = next((m for m in reading.mentions if m.start in (end, end + 1) and "shape" in m.attrs), None)
            objects = resolve_objects(mention.attrs, reading.state) if mention is not None else []
            placed = len(objects) == 1 and all(isinstance(objects[0].get(k), float) for k in ("x", "y"))
            if placed and (best is None or start > best[0]):
                best = (start, (float(objects[0]["x"]), float(objects[0]["y"])))
    return best


@dataclass(frozen=True)
class Cues:
    """The cue phrases one keyword reader knows (lower-case words, as `raw_tokens` splits them)."""

    ranks: Mapping[str, Rank]
    """Superlative and comparative phrases: 'farthest to the left', 'closer to you'."""
    landmarks: tuple[str, ...]
    """Phrases that rank by distance to the object named next: 'closest to (the red bowl)'."""
    orders: Mapping[str, Rank]
    negations: tuple[str, ...]
    """Phrases that prohibit the named candidate or negate an attribute ('do not', 'not', 'without')."""
    selecting: tuple[str, ...]
    """Longer phrases holding a negation word that still select the named one ('not the other')."""
    retain: tuple[str, ...]
    exclude: tuple[str, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]
    counts: Mapping[str, int]
    complement: tuple[str, ...]
    """Phrases saying the ranked ones are left out: 'all the cubes except (the leftmost one)'."""

    def merged(self, other: Cues) -> Cues:
        return Cues(
            ranks={**self.ranks, **other.ranks},
            landmarks=self.landmarks + other.landmarks,
            orders={**self.orders, **other.orders},
            negations=self.negations + other.negations,
            selecting=self.selecting + other.selecting,
            retain=self.retain + other.retain,
            exclude=self.exclude + other.exclude,
            before=self.before + other.before,
            after=self.after + other.after,
            counts={**self.counts, **other.counts},
            complement=self.complement + other.complement,
        )


L, R, NEAR, FAR = ("x", False), ("x", True), ("y", False), ("y", True)
BIG, SMALL = ("size", True), ("size", False)

TRAIN_CUES = Cues(
    ranks={
        "farthest to the left": L,
        "farthest to the right": R,
        "closest to you": NEAR,
        "farthest from you": FAR,
        "farther to the left": L,
        "farther to the right": R,
        "closer to you": NEAR,
        "farther from you": FAR,
        "largest": BIG,
        "tiniest": SMALL,
    },
    landmarks=("closest to",),
    orders={
        "from left to right": L,
        "from right to left": R,
        "from closest to farthest": NEAR,
        "from farthest to closest": FAR,
    },
    negations=("do not", "not", "without", "leave"),
    selecting=("not the other", "no other", "leave the rest", "and nothing else"),
    retain=("only", "just", "nothing except", "leave the rest"),
    exclude=("everything except", "all but", "leave the", "not"),
    before=("before",),
    after=("after",),
    counts=COUNT_WORDS,
    complement=("except the",),
)

CONTRACTED = ("don t", "doesn t", "isn t", "aren t")
HELD_OUT_CUES = Cues(
    ranks={
        "leftmost": L,
        "rightmost": R,
        "nearest the robot": NEAR,
        "furthest back": FAR,
        "nearer the robot": NEAR,
        "further back": FAR,
        "biggest": BIG,
        "smallest": SMALL,
    },
    landmarks=("nearest",),
    orders={
        "leftmost first": L,
        "rightmost first": R,
        "nearest the robot first": NEAR,
        "furthest back first": FAR,
        "leftmost object first": L,
        "rightmost object first": R,
        "object nearest the robot first": NEAR,
        "object furthest back first": FAR,
    },
    negations=("skip", *CONTRACTED),
    selecting=("leave the other", "skip the other"),
    retain=("nothing but", "nothing other than"),
    exclude=("everything but", "everything other than", *CONTRACTED),
    before=("prior to",),
    after=("once you re done",),
    counts={},
    complement=("but the",),
)
"""The cue phrases only the held-out (test) wording uses: kept in step with `suites.decisions.wording`."""

FULL_CUES = TRAIN_CUES.merged(HELD_OUT_CUES)


def _position(reading: Reading, cand_id: str, axis: str) -> float | None:
    """Where the candidate's object lies along `axis`, or (axis "size") its volume; None when unknown."""
    view = next(c for c in reading.candidates if c.id == cand_id)
    if axis == "size":
        shape, size = view.attrs.get("shape", ""), view.attrs.get("size", "")
        return volume(shape, size) if size in SHAPE_DIMS.get(shape, {}) else None
    if view.position is None:
        return None
    return view.position[0] if axis == "x" else view.position[1]


def ranked(reading: Reading, ids: Sequence[str], rank: Rank | Origin | None) -> list[str]:
    """`ids` ordered by the rank or by distance from an origin (unplaced candidates last, listed order among
    ties); as given without one."""
    if rank is None:
        return list(ids)

    def key(i: str) -> tuple[int, float]:
        if isinstance(rank[0], float):
            x, y = _position(reading, i, "x"), _position(reading, i, "y")
            return (1, 0.0) if x is None or y is None else (0, hypot(x - rank[0], y - float(rank[1])))
        value = _position(reading, i, str(rank[0]))
        return (1, 0.0) if value is None else (0, -value if rank[1] else value)

    return sorted(ids, key=key)


def count(tokens: Sequence[str], counts: Mapping[str, int]) -> int | None:
    """The first count word that is not 'every one' / 'one at a time' style."""
    for i, word in enumerate(tokens):
        if word in counts and not (i > 0 and tokens[i - 1] in NOT_A_COUNT_BEFORE):
            if tokens[i + 1 : i + 3] == ["at", "a"] or tokens[i + 1 : i + 2] == ["after"]:
                continue
            return counts[word]
    return None


def attribute_ids(reading: Reading, start: int = 0) -> list[str] | None:
    """Candidates having the attribute words said from token `start` on (colour, size, shape, verb words)."""
    wanted: dict[str, str] = {}
    verbs = {c.verb for c in reading.candidates if c.verb}
    for word in reading.tokens[start:]:
        value = canonical(word)
        if word in COLORS:
            wanted.setdefault("color", word)
        elif value in ("small", "large"):
            wanted.setdefault("size", value)
        elif value in {c.attrs.get("shape") for c in reading.candidates}:
            wanted.setdefault("shape", value)
        elif value in verbs:
            wanted.setdefault("verb", value)
    if not wanted:
        return None
    verb = wanted.pop("verb", None)
    members = [c.id for c in reading.candidates if consistent(wanted, c.attrs) and (verb is None or c.verb == verb)]
    return members or None


class KeywordAgent:
    """Diagnostic control: a rule parser over a fixed cue list (see the module docstring)."""

    name = "keyword"
    cues: Cues = FULL_CUES

    def decide(self, observation: DecisionObservation) -> AgentReply:
        reading = read(observation.instruction, observation.candidates, observation.state)
        if observation.decision_type == "single":
            chosen, fallback = self._single(reading)
        elif observation.decision_type == "set":
            chosen, fallback = self._set(reading)
        else:
            chosen, fallback = self._sequence(reading)
        return decision_reply(observation.decision_type, chosen or reading.ids, fallback=fallback or not chosen)

    def _rank(self, reading: Reading) -> Rank | Origin | None:
        """The last ranking cue: a position rank, or distance from a named landmark when that comes later."""
        rank = last_cue_at(reading.tokens, self.cues.ranks)
        landmark = landmark_at(reading, self.cues.landmarks)
        if landmark is not None and (rank is None or landmark[0] >= rank[0]):
            return landmark[1]
        return None if rank is None else rank[1]

    def _negated(self, reading: Reading) -> bool:
        return bool(found(reading.tokens, self.cues.negations, self.cues.selecting))

    def _group(self, reading: Reading) -> list[str]:
        return group_ids(reading) or reading.ids

    def _single(self, reading: Reading) -> tuple[list[str], bool]:
        named = named_ids(reading)
        comparative = last_cue(reading.tokens, self.cues.ranks)
        if comparative is not None and len(named) >= 2:
            farther = ranked(reading, named[:2], comparative)[0]
            return [i for i in named[:2] if i != farther], False
        negated = self._negated(reading)
        group = self._group(reading)
        if named:
            others = [i for i in group if i not in named]
            return (others or group) if negated else named[:1], False
        phrase = next((m for m in reading.mentions if m.group), None)
        having = attribute_ids(reading, phrase.end if phrase else 0)
        if having is None:
            return group, True
        chosen = [i for i in group if (i in having) != negated]
        return chosen or group, not chosen

    def _set(self, reading: Reading) -> tuple[list[str], bool]:
        tokens = reading.tokens
        k = count(tokens, self.cues.counts)
        if k is not None:
            group = self._group(reading)
            if self._negated(reading):
                group = [i for i in group if i not in named_ids(reading)] or group
            rank = self._rank(reading)
            if found(tokens, self.cues.complement):  # "all ... except the leftmost one": the rest
                left_out = ranked(reading, group, rank)[:k]
                return [i for i in group if i not in left_out], rank is None
            return ranked(reading, group, rank)[:k], rank is None
        members = group_ids(reading) or attribute_ids(reading)
        if members is None:
            return reading.ids, True
        exclude = found(tokens, self.cues.exclude, self.cues.retain)
        retain = found(tokens, self.cues.retain, self.cues.exclude)
        if exclude and (not retain or exclude[0] < retain[0]):
            return [i for i in reading.ids if i not in members], False
        return members, False

    def _sequence(self, reading: Reading) -> tuple[list[str], bool]:
        order = last_cue(reading.tokens, self.cues.orders)
        if order is not None:
            return ranked(reading, self._group(reading), order), False
        before = found(reading.tokens, self.cues.before)
        after = found(reading.tokens, self.cues.after)
        relation = min(before + after, default=None)
        mentions = sorted(named_candidates(reading))
        if relation is None or len(mentions) < 2:
            return named_ids(reading) or reading.ids, True
        reference = next((ids[0] for pos, ids in mentions if pos >= relation[1]), mentions[-1][1][0])
        other = next((ids[0] for _, ids in mentions if ids[0] != reference), None)
        if other is None:
            return named_ids(reading), True
        return ([other, reference] if relation in before else [reference, other]), False

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "instruction cue phrases (count, rank, order, polarity, relation)"}


class TrainKeywordAgent(KeywordAgent):
    """Diagnostic control: the keyword reader limited to the cue phrases of the training wording."""

    name = "keyword-train"
    cues = TRAIN_CUES


class FullKeywordAgent(KeywordAgent):
    """Diagnostic control: the keyword reader with the cue phrases of every split's wording."""

    name = "keyword-full"
    cues = FULL_CUES


RANK_STEMS: tuple[tuple[str, Rank], ...] = (("left", L), ("right", R), ("far", FAR), ("near", NEAR))


class CountRankAgent:
    """Diagnostic control (issue 39): count word, last rank word (left / right / far / near), named group.

    Answers the first k members of the named group (every candidate without one) ranked by the last rank word;
    k is the first count word from two to six, else one. Single answers the first, sequence the group ranked.
    """

    name = "count-rank"

    def decide(self, observation: DecisionObservation) -> AgentReply:
        reading = read(observation.instruction, observation.candidates, observation.state)
        k = next((COUNT_WORDS[t] for t in reading.tokens if t in COUNT_WORDS and t != "one"), 1)
        rank = None
        for token in reading.tokens:
            rank = next((r for stem, r in RANK_STEMS if stem in token), rank)
        members = ranked(reading, group_ids(reading) or reading.ids, rank)
        chosen = members if observation.decision_type == "sequence" else members[:k]
        return decision_reply(observation.decision_type, chosen, fallback=rank is None)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "count word, last rank word and the named group"}
