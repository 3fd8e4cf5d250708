"""Surface reading of a decision question, for the shallow validity controls of the decisions suite.

Everything here reads only what a `DecisionObservation` shows a language agent: the instruction, the candidate
texts and the structured state (object attributes and positions; empty in the visual condition). Nothing reads
the gold, the symbolic task or the generator's phrase tables: words are normalised with the shared world
vocabulary (`heedful.world.objects`) and a small fixed table of everyday synonyms below, so the readers keep
working, less well, on wording they have never seen.

The readers are deliberately shallow: they find noun phrases ("the small red cube", "purple objects",
"a cylinder"), resolve definite singular ones to candidates, and find groups, and never look at negation,
quantity or order words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heedful.world.objects import COLORS, NOUNS

SIZE_WORDS = {"small": "small", "little": "small", "tiny": "small", "large": "large", "big": "large"}
SHAPE_WORDS: dict[str, tuple[str, bool]] = {
    word: (shape, plural) for shape, forms in NOUNS.items() for word, plural in zip(forms, (False, True), strict=True)
} | {"sphere": ("sphere", False), "spheres": ("sphere", True)}
GENERIC_NOUNS: dict[str, bool] = {
    "object": False,
    "objects": True,
    "item": False,
    "items": True,
    "thing": False,
    "things": True,
}
# Everyday verb, direction and preposition synonyms, mapped to the words candidate texts use.
SYNONYMS = {
    "grab": "pick",
    "grabbing": "pick",
    "lift": "pick",
    "lifting": "pick",
    "take": "pick",
    "taking": "pick",
    "picking": "pick",
    "slide": "push",
    "sliding": "push",
    "pushing": "push",
    "place": "put",
    "placing": "put",
    "putting": "put",
    "stacking": "stack",
    "turn": "rotate",
    "turning": "rotate",
    "rotating": "rotate",
    "rotation": "rotate",
    "rightward": "right",
    "leftward": "left",
    "forward": "away",
    "backward": "toward",
    "back": "toward",
    "towards": "toward",
    "into": "in",
    "onto": "on",
}
STOPWORDS = frozenset(
    {"a", "an", "the", "of", "to", "and", "or", "by", "in", "on", "at", "is", "are", "be", "that", "this", "it"}
    | {"its", "their", "them", "one", "ones", "any", "each", "every", "all", "you", "your"}
)
DETERMINERS = frozenset({"the", "a", "an", "any", "each", "every", "all", "its", "their"})
INDEFINITE = frozenset({"a", "an", "any"})
TARGET_PREPOSITIONS = frozenset({"on", "onto", "in", "into", "inside", "atop"})
CLAUSE_BREAKS = frozenset({",", ";", ".", ":"})
CONJUNCTIONS = frozenset({"or", "and", "then", "nor"})
ATTRIBUTE_FIELDS = ("size", "color", "shape")

_TOKEN = re.compile(r"[a-z0-9]+|[,;.:]")


def raw_tokens(text: str) -> list[str]:
    """Lower-case words and clause punctuation, in order ("pick-up" gives "pick", "up")."""
    return _TOKEN.findall(text.lower())


def canonical(word: str) -> str:
    """The normalised form of one word: synonyms mapped, shape nouns singular ("balls" -> "sphere")."""
    if word in SHAPE_WORDS:
        return SHAPE_WORDS[word][0]
    if word in SIZE_WORDS:
        return SIZE_WORDS[word]
    return SYNONYMS.get(word, word)


def content_words(text: str) -> set[str]:
    """The distinct normalised words of `text`, without stopwords and punctuation."""
    return {canonical(t) for t in raw_tokens(text) if t not in CLAUSE_BREAKS and t not in STOPWORDS}


@dataclass(frozen=True)
class Mention:
    """A noun phrase found in a text: token span, attributes named, and how it refers."""

    start: int
    end: int
    attrs: Mapping[str, str]
    plural: bool
    determiner: str | None
    target: bool
    """Introduced by "on" / "in" / "on top of": the second object of an action, not the one acted on."""

    @property
    def individual(self) -> bool:
        """A definite singular phrase ("the red cube"): it names one thing."""
        return self.determiner == "the" and not self.plural and "shape" in self.attrs

    @property
    def group(self) -> bool:
        """A plural or indefinite phrase with attributes ("purple objects", "a cylinder"): it names a group."""
        return bool(self.attrs) and not self.target and (self.plural or self.determiner in INDEFINITE)


def find_mentions(tokens: Sequence[str]) -> list[Mention]:
    """Every noun phrase in `tokens` (raw words): optional determiner, size/colour words, then a noun."""
    mentions = []
    for i, word in enumerate(tokens):
        if word in SHAPE_WORDS:
            shape, plural = SHAPE_WORDS[word]
            attrs = {"shape": shape}
        elif word in GENERIC_NOUNS:
            plural, attrs = GENERIC_NOUNS[word], {}
        else:
            continue
        start = i
        while start > 0 and (tokens[start - 1] in SIZE_WORDS or tokens[start - 1] in COLORS):
            start -= 1
            before = tokens[start]
            attrs.setdefault("size" if before in SIZE_WORDS else "color", canonical(before))
        determiner = tokens[start - 1] if start > 0 and tokens[start - 1] in DETERMINERS else None
        lead = start - (1 if determiner else 0)
        preceding = list(tokens[max(0, lead - 2) : lead])
        target = bool(preceding) and (preceding[-1] in TARGET_PREPOSITIONS or preceding == ["top", "of"])
        mentions.append(Mention(start, i + 1, attrs, plural, determiner, target))
    return mentions


@dataclass(frozen=True)
class CandidateView:
    """One candidate as a surface reader sees it: text words, the object it is about, and where that is."""

    id: str
    text: str
    words: frozenset[str]
    verb: str | None
    object_key: str
    attrs: Mapping[str, str]
    position: tuple[float, float] | None = None


def consistent(attrs: Mapping[str, str], described: Mapping[str, str]) -> bool:
    """True when every attribute in `attrs` is known in `described` and equal (unknown ones pass)."""
    return all(described.get(key, value) == value for key, value in attrs.items())


def _state_objects(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    objects = state.get("objects", []) if isinstance(state, Mapping) else []
    return [o for o in objects if isinstance(o, Mapping)]


def resolve_objects(attrs: Mapping[str, str], state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """State objects consistent with the named attributes."""
    return [o for o in _state_objects(state) if consistent(attrs, {k: str(o.get(k)) for k in ATTRIBUTE_FIELDS})]


def candidate_view(candidate: Mapping[str, str], state: Mapping[str, Any]) -> CandidateView:
    """Read one candidate: its first non-target noun phrase is the object acted on (or the object itself)."""
    text = candidate["text"]
    tokens = raw_tokens(text)
    acted_on = next((m for m in find_mentions(tokens) if not m.target and "shape" in m.attrs), None)
    attrs: dict[str, str] = dict(acted_on.attrs) if acted_on else {}
    # an action's text starts with its verb; an object's text starts with its description
    verb = canonical(tokens[0]) if acted_on and acted_on.start > 0 and tokens else None
    key, position = " ".join(f"{k}={attrs[k]}" for k in sorted(attrs)), None
    matches = resolve_objects(attrs, state) if attrs else []
    if len(matches) == 1:
        found = matches[0]
        attrs = {k: str(found[k]) for k in ATTRIBUTE_FIELDS if k in found}
        key = str(found.get("name", key))
        if isinstance(found.get("x"), int | float) and isinstance(found.get("y"), int | float):
            position = (float(found["x"]), float(found["y"]))
    return CandidateView(
        id=candidate["id"],
        text=text,
        words=frozenset(content_words(text)),
        verb=verb,
        object_key=key,
        attrs=attrs,
        position=position,
    )


def candidate_views(candidates: Iterable[Mapping[str, str]], state: Mapping[str, Any]) -> list[CandidateView]:
    """Every candidate, in the listed order."""
    return [candidate_view(c, state) for c in candidates]


@dataclass(frozen=True)
class Reading:
    """What the surface readers take from one question: the candidates, the instruction's tokens and phrases."""

    candidates: tuple[CandidateView, ...]
    tokens: tuple[str, ...]
    mentions: tuple[Mention, ...]
    state: Mapping[str, Any]

    @property
    def ids(self) -> list[str]:
        return [c.id for c in self.candidates]


def read(instruction: str, candidates: Iterable[Mapping[str, str]], state: Mapping[str, Any]) -> Reading:
    """Tokenise the instruction and read the candidates against the state."""
    tokens = tuple(raw_tokens(instruction))
    return Reading(tuple(candidate_views(candidates, state)), tokens, tuple(find_mentions(tokens)), state)


def _window(reading: Reading, mention: Mention, acted_on: Sequence[Mention]) -> set[str]:
    """Words around `mention` in its clause part (up to punctuation, a conjunction or another object's phrase)."""
    tokens = reading.tokens
    low = max((m.end for m in acted_on if m.end <= mention.start), default=0)
    high = min((m.start for m in acted_on if m.start >= mention.end), default=len(tokens))
    for i in range(mention.start - 1, low - 1, -1):
        if tokens[i] in CLAUSE_BREAKS or tokens[i] in CONJUNCTIONS:
            low = i + 1
            break
    for i in range(mention.end, high):
        if tokens[i] in CLAUSE_BREAKS or tokens[i] in CONJUNCTIONS:
            high = i
            break
    # the phrase's own words say which object, not which of its actions
    around = list(tokens[low : mention.start]) + list(tokens[mention.end : high])
    return {canonical(t) for t in around if t not in STOPWORDS}


def _closest_actions(on_object: Sequence[CandidateView], window: set[str]) -> list[str]:
    """Of several actions on one object, those whose distinguishing words best match the clause."""
    shared = frozenset.intersection(*(c.words for c in on_object))
    scores = [len((c.words - shared) & window) for c in on_object]
    best = max(scores)
    return [c.id for c, s in zip(on_object, scores, strict=True) if s == best]


def named_candidates(reading: Reading) -> list[tuple[int, list[str]]]:
    """(token position, candidate ids) for every phrase that names one object among the candidates' objects.

    A definite singular phrase ("the purple block") names the candidate about that object when the phrase fits
    exactly one object (of the state, or of the candidates when the state is hidden). Among several actions on
    that object, the ones whose own words (verb, direction, target) best match the phrase's clause are named.
    Phrases after "on" / "in" (an action's target) name nothing by themselves.
    """
    acted_on = [m for m in reading.mentions if m.individual and not m.target]
    named = []
    for mention in acted_on:
        views = [c for c in reading.candidates if consistent(mention.attrs, c.attrs)]
        keys = {c.object_key for c in views}
        # the whole scene, where it is shown, must hold only one such object (the bowl target, say, is not one)
        if len(keys) != 1 or len(resolve_objects(mention.attrs, reading.state)) > 1:
            continue
        ids = [views[0].id] if len(views) == 1 else _closest_actions(views, _window(reading, mention, acted_on))
        named.append((mention.start, ids))
    return named


def named_ids(reading: Reading) -> list[str]:
    """The candidates named individually, in the order they are first named."""
    order: list[str] = []
    for _, ids in sorted(named_candidates(reading), key=lambda item: item[0]):
        order += [i for i in ids if i not in order]
    return order


def _verb_group(reading: Reading) -> set[str]:
    """Candidate verbs written next to the word "actions" ("pushing actions", "actions that pick ... up")."""
    verbs = {c.verb for c in reading.candidates if c.verb}
    found = set()
    tokens = reading.tokens
    for i, word in enumerate(tokens):
        if word in ("action", "actions"):
            near = {canonical(t) for t in tokens[max(0, i - 2) : i + 3]}
            found |= verbs & near
    return found


def group_ids(reading: Reading) -> list[str] | None:
    """The candidates of the group the instruction names first ("one of the purple objects"), in listed order.

    The group is the first plural or indefinite phrase with attributes, narrowed by a verb group where one is
    named; None when the instruction names no group.
    """
    phrase = next((m for m in reading.mentions if m.group), None)
    verbs = _verb_group(reading)
    if phrase is None and not verbs:
        return None
    members = [
        c.id
        for c in reading.candidates
        if (phrase is None or consistent(phrase.attrs, c.attrs)) and (not verbs or c.verb in verbs)
    ]
    return members or None
