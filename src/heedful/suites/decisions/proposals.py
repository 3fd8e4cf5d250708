"""Proposals: the constraint parameters of a family's base task and of its task-changing variant.

Each proposer returns (subtype, base params, change params), or None when the anchor cannot host it. The
changes are chosen so that no reader blind to the changed words can get both instances of a minimal pair:

- inhibition: a polarity flip on one named candidate of a pair ("pick up the X" / "do not pick up the
  X; pick up the other one"), a polarity flip on an attribute ("the one that is red" / "is not red"), or
  a choice between two named candidates where the prohibited one is given by its position ("the cube or
  the ball, but not the one farther to the left"), so the gold is sometimes named and sometimes not;
- set: retention and exclusion of the same group ("only the red objects" / "everything except ...");
- temporal: before and after between the same two named actions, so the order of mention says nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from heedful.suites.decisions.anchors import Anchor
from heedful.suites.decisions.model import Candidate, Predicate
from heedful.suites.decisions.sizes import size_cut

KEYS = (("x", False), ("x", True), ("y", False), ("y", True))
INHIBITION_SUBTYPES = ("polarity", "attribute", "choice")
INHIBITION_WEIGHTS = (0.4, 0.25, 0.35)

Params = dict[str, Any]
Proposal = tuple[str, Params, Params]


def groups(anchor: Anchor) -> list[tuple[Predicate | None, list[str]]]:
    """Every candidate group an instruction can name: all candidates, or one attribute value."""
    fields = ("verb", "color", "shape", "size") if anchor.kind == "action" else ("color", "shape", "size")
    found: list[tuple[Predicate | None, list[str]]] = [(None, [c.id for c in anchor.candidates])]
    for field in fields:
        for value in sorted({c.attrs[field] for c in anchor.candidates}):
            members = [c.id for c in anchor.candidates if c.attrs[field] == value]
            found.append((Predicate(field=field, values=(value,)), members))
    return found


def _choice(rng: np.random.Generator, items: list[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def ranked_ids(candidates: Sequence[Candidate], members: list[str], key: str, descending: bool) -> list[str]:
    """`members` ordered by position along `key` (descending: largest coordinate first)."""
    pos = {c.id: (c.x if key == "x" else c.y) for c in candidates}
    return sorted(members, key=lambda i: pos[i], reverse=descending)


def _pairs(anchor: Anchor) -> list[tuple[Predicate, list[str]]]:
    return [(g, m) for g, m in groups(anchor) if g is not None and len(m) == 2]


def _polarity(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    options = _pairs(anchor)
    if not options:
        return None
    group, members = _choice(rng, options)
    base = {"group": group, "target": _choice(rng, members), "positive": bool(rng.random() < 0.5)}
    return "polarity", base, {**base, "positive": not base["positive"]}


def _attribute(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    """A pair split by a second attribute: exactly one of the two has it."""
    splits = []
    for group, members in _pairs(anchor):
        for split, having in groups(anchor):
            if split is not None and split.field not in (group.field, "verb") and len(set(having) & set(members)) == 1:
                splits.append((group, split))
    if not splits:
        return None
    group, split = _choice(rng, splits)
    base = {"group": group, "split": split, "positive": bool(rng.random() < 0.5)}
    return "attribute", base, {**base, "positive": not base["positive"]}


def _choice_by_position(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    """Two named candidates on different objects; the prohibited one is the one farther along a key."""
    objects = {c.id: c.object for c in anchor.candidates}
    pairs = [[a, b] for a in objects for b in objects if a < b and objects[a] != objects[b]]
    if not pairs:
        return None
    pair = _choice(rng, pairs)
    options = [pair[i] for i in rng.permutation(2)]  # mention order says nothing about the gold
    key, desc = KEYS[int(rng.integers(4))]
    base = {"options": options, "key": key, "desc": desc}
    return "choice", base, {**base, "desc": not desc}


INHIBITION_PROPOSERS: dict[str, Callable[[Anchor, np.random.Generator], Proposal | None]] = {
    "polarity": _polarity,
    "attribute": _attribute,
    "choice": _choice_by_position,
}


def propose_inhibition(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    first = INHIBITION_SUBTYPES[int(rng.choice(len(INHIBITION_SUBTYPES), p=INHIBITION_WEIGHTS))]
    order = [first, *(s for s in INHIBITION_SUBTYPES if s != first)]
    for subtype in order:  # fall back when the anchor cannot host the drawn subtype
        proposal = INHIBITION_PROPOSERS[subtype](anchor, rng)
        if proposal is not None:
            return proposal
    return None


def propose_set(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    n = len(anchor.candidates)
    options = [(g, m) for g, m in groups(anchor) if g is not None and 0 < len(m) < n]
    if not options:
        return None
    group, _ = _choice(rng, options)
    retain = bool(rng.random() < 0.5)
    subtype = "retention" if retain else "exclusion"  # the base's polarity; the change flips it
    return subtype, {"group": group, "retain": retain}, {"group": group, "retain": not retain}


CARDINALITY_CHANGES = ("count", "direction", "criterion", "group")
CARDINALITY_WEIGHTS = (0.2, 0.15, 0.45, 0.2)
LANDMARK_SHARE = 0.6  # how often a base ranks by distance to a named object rather than by position
SIZE_SHARE = 0.7  # how often a family ranks by size in one or both of its tasks, where a size ranking is clear


def _landmarks(anchor: Anchor, members: list[str]) -> list[str]:
    """Objects a ranking may be measured from: none of the group's members acts on them."""
    acted_on = {c.object for c in anchor.candidates if c.id in members}
    return [o.name for o in anchor.state.objects if o.name not in acted_on]


def _criterion(anchor: Anchor, members: list[str], rng: np.random.Generator, avoid: Params | None = None) -> Params:
    """A ranking criterion (position along an axis, or distance to a landmark), different from `avoid`'s."""
    options: list[Params] = [{"key": key, "desc": desc, "landmark": None, "origin": None} for key, desc in KEYS]
    where = {o.name: (o.x, o.y) for o in anchor.state.objects}
    options += [
        {"key": "distance", "desc": False, "landmark": name, "origin": where[name]}
        for name in _landmarks(anchor, members)
    ]
    if avoid is not None:  # a different criterion: another axis, or position <-> landmark, not just a flip
        options = [o for o in options if (o["key"], o["landmark"]) != (avoid["key"], avoid["landmark"])]
    landmark = [o for o in options if o["landmark"] is not None]
    # (the draw happens only when a landmark exists and no criterion is to be avoided)
    if landmark and (avoid["landmark"] is None if avoid is not None else rng.random() < LANDMARK_SHARE):
        return dict(_choice(rng, landmark))
    return dict(_choice(rng, [o for o in options if o["landmark"] is None]))


def propose_cardinality(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    """k of a group ranked by a criterion (position, distance to a landmark, or size: see `_by_size`); the change
    alters the count, the direction, the criterion or the group, so neither the count word alone nor the rank word
    alone says what changed."""
    options = [(g, m) for g, m in groups(anchor) if len(m) >= 3]
    if not options:
        return None
    group, members = _choice(rng, options)
    criterion = _criterion(anchor, members, rng)
    ks = [int(k) for k in rng.permutation(np.arange(1, len(members)))][:2]
    base = {"group": group, "k": ks[0], "n": len(members), **criterion}
    change_kind = CARDINALITY_CHANGES[int(rng.choice(len(CARDINALITY_CHANGES), p=CARDINALITY_WEIGHTS))]
    if change_kind == "count":
        if len(ks) < 2:
            return None
        change = {**base, "k": ks[1]}
    elif change_kind == "direction":
        if criterion["landmark"] is not None:
            return None  # "farthest from the bowl" reads oddly beside "nearest"; flips stay positional
        change = {**base, "desc": not base["desc"]}
    elif change_kind == "criterion":
        change = {**base, **_criterion(anchor, members, rng, avoid=criterion)}
    else:
        others = [(g, m) for g, m in options if g != group and len(m) > base["k"]]
        if not others:
            return None
        other, other_members = _choice(rng, others)
        if criterion["landmark"] is not None and criterion["landmark"] not in _landmarks(anchor, other_members):
            return None
        change = {**base, "group": other, "n": len(other_members)}
    # Size draws come from a stream of their own (spawned: the family generator's own draws are untouched), so
    # adding size rankings (decisions-v4) left every other family's tasks, templates and words as they were.
    sized = _by_size(anchor, change_kind, base, change, rng.spawn(1)[0])
    return (change_kind, *sized) if sized is not None else (change_kind, base, change)


def _sized(p: Params, biggest: bool) -> Params:
    return {**p, "key": "size", "desc": biggest, "landmark": None, "origin": None}


def _by_size(
    anchor: Anchor, change_kind: str, base: Params, change: Params, side: np.random.Generator
) -> tuple[Params, Params] | None:
    """The family ranked by size instead (SIZE_SHARE of the time): both tasks for a count or group change,
    "biggest" / "smallest" for a direction change, one task's criterion for a criterion change; None when it
    is not drawn, the group is a size ("the biggest big things"), or a size ranking's cut is not clear."""
    by_size_group = any(p["group"] is not None and p["group"].field == "size" for p in (base, change))
    if side.random() >= SIZE_SHARE or by_size_group:
        return None
    biggest = bool(side.random() < 0.5)
    if change_kind == "direction":
        pair = (_sized(base, biggest), _sized(change, not biggest))
    elif change_kind == "criterion":
        pair = (_sized(base, biggest), change) if side.random() < 0.5 else (base, _sized(change, biggest))
    else:
        pair = (_sized(base, biggest), _sized(change, biggest))
    for p in pair:
        members = [c.id for c in anchor.candidates if p["group"] is None or p["group"].matches(c)]
        if p["key"] == "size" and size_cut(anchor.candidates, members, p["k"], p["desc"]) is None:
            return None
    return pair


def propose_temporal(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    if rng.random() < 0.5:
        objects = {c.id: c.object for c in anchor.candidates}
        pairs = [(a, b) for a in objects for b in objects if a < b and objects[a] != objects[b]]
        if not pairs:
            return None
        a, b = _choice(rng, pairs)
        if rng.random() < 0.5:
            a, b = b, a
        base = {"x": a, "y": b, "before": bool(rng.random() < 0.5)}
        return "explicit", base, {**base, "before": not base["before"]}
    options = [(g, m) for g, m in groups(anchor) if 2 <= len(m) <= 4]
    if not options:
        return None
    group, _ = _choice(rng, options)
    key, desc = KEYS[int(rng.integers(4))]
    return "rule", {"group": group, "key": key, "desc": desc}, {"group": group, "key": key, "desc": not desc}


def propose_multi(anchor: Anchor, rng: np.random.Generator) -> Proposal | None:
    options = [(g, m) for g, m in groups(anchor) if len(m) >= 4]
    if not options:
        return None
    group, members = _choice(rng, options)
    key, desc = KEYS[int(rng.integers(4))]
    k = int(rng.integers(1, len(members) - 2)) if len(members) > 3 else 1
    top = ranked_ids(anchor.candidates, members, key, desc)[:k]
    inhibit = _choice(rng, top)  # the prohibition must bite: it removes one of the top-k
    base = {"group": group, "key": key, "desc": desc, "k": k, "inhibit": [inhibit]}
    if rng.random() < 0.5 and k + 1 <= len(members) - 1:
        change = {**base, "k": k + 1}
    else:
        others = [i for i in ranked_ids(anchor.candidates, members, key, desc)[: k + 1] if i != inhibit]
        change = {**base, "inhibit": [_choice(rng, others)]}
    return "cardinality+inhibition", base, change


PROPOSERS: dict[str, Callable[[Anchor, np.random.Generator], Proposal | None]] = {
    "inhibition": propose_inhibition,
    "set": propose_set,
    "cardinality": propose_cardinality,
    "temporal": propose_temporal,
    "multi": propose_multi,
}
