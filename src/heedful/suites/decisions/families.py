"""Task families: four instances on one anchor (base, preserve, change, change_preserve).

A proposal picks the constraint parameters of a base task and of its task-changing variant; the solver
then proves that each has exactly one gold decision and that the two golds differ. Only then is language
produced: base and change share one template and one set of synonym choices (a minimal pair), preserve and
change_preserve share a different template with fresh choices.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from heedful.errors import GenerationError
from heedful.language.realize import Template, realize, words
from heedful.seeding import derive_rng
from heedful.suites.decisions.anchors import Anchor
from heedful.suites.decisions.model import (
    Before,
    Category,
    Constraint,
    Count,
    Decision,
    Exclude,
    Exhaustive,
    Inhibit,
    OrderBy,
    Predicate,
    Prefer,
    Scope,
    Task,
)
from heedful.suites.decisions.phrases import COUNT_WORDS, Phrasebook
from heedful.suites.decisions.solver import unique_solution
from heedful.suites.decisions.templates import TEMPLATES, template_key

MAX_FAMILY_TRIES = 60
KEYS = (("x", False), ("x", True), ("y", False), ("y", True))

Params = dict[str, Any]


@dataclass(frozen=True)
class Instance:
    """One realized instance before it becomes an episode."""

    role: str
    task: Task
    gold: Decision
    instruction: str
    masked_instruction: str
    template_id: str


@dataclass(frozen=True)
class Family:
    family_id: str
    category: Category
    subtype: str
    instances: tuple[Instance, ...]


def groups(anchor: Anchor) -> list[tuple[Predicate | None, list[str]]]:
    """Every candidate group an instruction can name: all candidates, or one attribute value."""
    fields = ("verb", "color", "shape", "size") if anchor.kind == "action" else ("color", "shape", "size")
    found: list[tuple[Predicate | None, list[str]]] = [(None, [c.id for c in anchor.candidates])]
    for field in fields:
        for value in sorted({c.attrs[field] for c in anchor.candidates}):
            members = [c.id for c in anchor.candidates if c.attrs[field] == value]
            found.append((Predicate(field=field, values=(value,)), members))
    return found


def _scope(group: Predicate | None) -> list[Constraint]:
    return [] if group is None else [Scope(predicate=group)]


def _choice(rng: np.random.Generator, items: list[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _ranked(anchor: Anchor, members: list[str], key: str, descending: bool) -> list[str]:
    pos = {c.id: (c.x if key == "x" else c.y) for c in anchor.candidates}
    return sorted(members, key=lambda i: pos[i], reverse=descending)


# --- proposals: (subtype, base params, change params) or None when the anchor cannot host the category


def propose_inhibition(anchor: Anchor, rng: np.random.Generator) -> tuple[str, Params, Params] | None:
    options = [(g, m) for g, m in groups(anchor) if len(m) in (2, 3)]
    if not options:
        return None
    group, members = _choice(rng, options)
    order = [members[i] for i in rng.permutation(len(members))]
    # base inhibits all but order[0]; the change lifts one prohibition and imposes it on order[0] instead
    base, change = order[1:], [order[0], *order[2:]]
    return "single", {"group": group, "inhibit": base}, {"group": group, "inhibit": change}


def propose_set(anchor: Anchor, rng: np.random.Generator) -> tuple[str, Params, Params] | None:
    n = len(anchor.candidates)
    options = [(g, m) for g, m in groups(anchor) if g is not None and 0 < len(m) < n]
    if len(options) < 2:
        return None
    subtype = "exclusion" if rng.random() < 0.5 else "retention"
    (g1, m1) = _choice(rng, options)
    same_field = [(g, m) for g, m in options if g.field == g1.field and set(m) != set(m1)]
    others = same_field or [(g, m) for g, m in options if set(m) != set(m1)]
    if not others:
        return None
    (g2, _) = _choice(rng, others)
    return subtype, {"subtype": subtype, "group": g1}, {"subtype": subtype, "group": g2}


def propose_cardinality(anchor: Anchor, rng: np.random.Generator) -> tuple[str, Params, Params] | None:
    options = [(g, m) for g, m in groups(anchor) if len(m) >= 3]
    if not options:
        return None
    group, members = _choice(rng, options)
    key, desc = KEYS[int(rng.integers(4))]
    ks = [int(k) for k in rng.permutation(np.arange(1, len(members)))][:2]
    if len(ks) < 2:
        return None
    common = {"group": group, "key": key, "desc": desc}
    return "ranked", {**common, "k": ks[0]}, {**common, "k": ks[1]}


def propose_temporal(anchor: Anchor, rng: np.random.Generator) -> tuple[str, Params, Params] | None:
    if rng.random() < 0.5:
        objects = {c.id: c.object for c in anchor.candidates}
        pairs = [(a, b) for a in objects for b in objects if a < b and objects[a] != objects[b]]
        if not pairs:
            return None
        a, b = _choice(rng, pairs)
        if rng.random() < 0.5:
            a, b = b, a
        return "explicit", {"first": a, "then": b}, {"first": b, "then": a}
    options = [(g, m) for g, m in groups(anchor) if 2 <= len(m) <= 4]
    if not options:
        return None
    group, _ = _choice(rng, options)
    key, desc = KEYS[int(rng.integers(4))]
    return "rule", {"group": group, "key": key, "desc": desc}, {"group": group, "key": key, "desc": not desc}


def propose_multi(anchor: Anchor, rng: np.random.Generator) -> tuple[str, Params, Params] | None:
    options = [(g, m) for g, m in groups(anchor) if len(m) >= 4]
    if not options:
        return None
    group, members = _choice(rng, options)
    key, desc = KEYS[int(rng.integers(4))]
    k = int(rng.integers(1, len(members) - 2)) if len(members) > 3 else 1
    top = _ranked(anchor, members, key, desc)[:k]
    inhibit = _choice(rng, top)  # the prohibition must bite: it removes one of the top-k
    base = {"group": group, "key": key, "desc": desc, "k": k, "inhibit": [inhibit]}
    if rng.random() < 0.5 and k + 1 <= len(members) - 1:
        change = {**base, "k": k + 1}
    else:
        others = [i for i in _ranked(anchor, members, key, desc)[: k + 1] if i != inhibit]
        change = {**base, "inhibit": [_choice(rng, others)]}
    return "cardinality+inhibition", base, change


PROPOSERS: dict[str, Callable[[Anchor, np.random.Generator], tuple[str, Params, Params] | None]] = {
    "inhibition": propose_inhibition,
    "set": propose_set,
    "cardinality": propose_cardinality,
    "temporal": propose_temporal,
    "multi": propose_multi,
}


# --- from parameters to a symbolic task and to the words of its template slots


def build_task(category: str, subtype: str, p: Params) -> Task:
    """The constraint set for a category's parameters."""
    if category == "inhibition":
        return Task(
            decision_type="single",
            constraints=(*_scope(p["group"]), *[Inhibit(candidate=i) for i in p["inhibit"]]),
        )
    if category == "set":
        group_constraint: Constraint = (
            Exclude(predicate=p["group"]) if subtype == "exclusion" else Scope(predicate=p["group"])
        )
        return Task(decision_type="set", constraints=(group_constraint, Exhaustive()))
    if category == "cardinality":
        rank = Prefer(key=p["key"], descending=p["desc"])
        return Task(decision_type="set", constraints=(*_scope(p["group"]), Count(k=p["k"]), rank))
    if category == "temporal" and subtype == "explicit":
        ids = Predicate(field="id", values=tuple(sorted((p["first"], p["then"]))))
        return Task(
            decision_type="sequence",
            constraints=(Scope(predicate=ids), Exhaustive(), Before(first=p["first"], then=p["then"])),
        )
    if category == "temporal":
        order = OrderBy(key=p["key"], descending=p["desc"])
        return Task(decision_type="sequence", constraints=(*_scope(p["group"]), Exhaustive(), order))
    if category == "multi":
        rank = Prefer(key=p["key"], descending=p["desc"])
        inhibit = [Inhibit(candidate=i) for i in p["inhibit"]]
        return Task(decision_type="set", constraints=(*_scope(p["group"]), *inhibit, Count(k=p["k"]), rank))
    raise ValueError(f"unknown category {category!r}")


def build_slots(category: str, subtype: str, p: Params, book: Phrasebook) -> dict[str, str]:
    """Words for every slot the category's templates use."""
    slots = {"do": book.do, "everything": book.everything(), "items": book.items()}
    if "group" in p:
        slots["group"] = book.group(p["group"])
    if "inhibit" in p:
        slots["not_vp"], slots["not_ger"] = book.referent(p["inhibit"])
    if "k" in p:
        slots["k"] = COUNT_WORDS[p["k"]]
        slots["ones_ranked"] = book.the_ones_ranked(p["key"], p["desc"], 0 if p["k"] > 1 else 1)
        slots["k_ranked"] = book.the_ones_ranked(p["key"], p["desc"], p["k"])
    if category == "temporal" and subtype == "explicit":
        slots["first_vp"], slots["first_ger"] = book.referent([p["first"]])
        slots["then_vp"], slots["then_ger"] = book.referent([p["then"]])
    elif category == "temporal":
        slots["order"] = book.order(p["key"], p["desc"])
    return slots


def _dedupe_key(base: Task, change: Task) -> frozenset[str]:
    return frozenset({base.model_dump_json(), change.model_dump_json()})


def _realize_pair(
    anchor: Anchor, category: str, subtype: str, params: tuple[Params, Params], template: Template, seed: int
) -> list[tuple[str, str]]:
    """Realize the two tasks with one template and identical synonym choices (same phrasebook seed)."""
    out = []
    for p in params:
        book = Phrasebook(anchor, np.random.default_rng(seed))
        out.append(realize(template, build_slots(category, subtype, p, book)))
    return out


def make_family(
    anchor: Anchor,
    family_id: str,
    category: Category,
    root_seed: int,
    used: set[frozenset[str]],
    template_turn: int,
) -> Family:
    """Build one verified family, or raise GenerationError after MAX_FAMILY_TRIES proposals."""
    for attempt in range(MAX_FAMILY_TRIES):
        rng = derive_rng(root_seed, "family", family_id, attempt)
        proposal = PROPOSERS[category](anchor, rng)
        if proposal is None:
            continue
        subtype, base_p, change_p = proposal
        base_task, change_task = (
            build_task(category, subtype, base_p),
            build_task(category, subtype, change_p),
        )
        base_gold = unique_solution(anchor.candidates, base_task)
        change_gold = unique_solution(anchor.candidates, change_task)
        if base_gold is None or change_gold is None or base_gold == change_gold:
            continue
        key = _dedupe_key(base_task, change_task)
        if key in used:
            continue
        templates = TEMPLATES[template_key(category, subtype)]
        first = templates[template_turn % len(templates)]
        second = templates[(template_turn + 1 + int(rng.integers(len(templates) - 1))) % len(templates)]
        plain = _realize_pair(anchor, category, subtype, (base_p, change_p), first, int(rng.integers(2**31)))
        rewrite = _realize_pair(anchor, category, subtype, (base_p, change_p), second, int(rng.integers(2**31)))
        if not _distinct_surfaces(plain, rewrite):
            continue
        used.add(key)
        rows = [
            ("base", base_task, base_gold, plain[0], first),
            ("preserve", base_task, base_gold, rewrite[0], second),
            ("change", change_task, change_gold, plain[1], first),
            ("change_preserve", change_task, change_gold, rewrite[1], second),
        ]
        instances = tuple(
            Instance(role, task, gold, text, masked, template.id) for role, task, gold, (text, masked), template in rows
        )
        return Family(family_id=family_id, category=category, subtype=subtype, instances=instances)
    raise GenerationError(
        f"family {family_id}: no valid {category} task on anchor {anchor.anchor_id} in {MAX_FAMILY_TRIES} tries "
        "(the anchor may be too small for this category)"
    )


MIN_REWRITE_WORDS = 2


def _distinct_surfaces(plain: list[tuple[str, str]], rewrite: list[tuple[str, str]]) -> bool:
    """A rewrite must differ from its original by more than one word, and the pair's texts must differ."""
    for (a, _), (b, _) in zip(plain, rewrite, strict=True):
        wa, wb = words(a), words(b)
        if len(set(wa) ^ set(wb)) < MIN_REWRITE_WORDS or wa == wb:
            return False
    return plain[0][0] != plain[1][0]
