"""From proposal parameters to a symbolic task, and the check that a prohibition does not contradict the gold."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.suites.decisions.model import (
    Before,
    Candidate,
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
from heedful.suites.decisions.proposals import Params, ranked_ids

LIFTING_VERBS = frozenset({"pick", "place_in", "stack_on"})


def _scope(group: Predicate | None) -> list[Constraint]:
    return [] if group is None else [Scope(predicate=group)]


def _ids(*ids: str) -> Predicate:
    return Predicate(field="id", values=tuple(sorted(ids)))


def forbidden_choice(candidates: Sequence[Candidate], p: Params) -> str:
    """The option of a choice family that lies farther along the key (the prohibited one)."""
    return ranked_ids(candidates, p["options"], p["key"], p["desc"])[0]


def _inhibition(candidates: Sequence[Candidate], subtype: str, p: Params) -> Task:
    if subtype == "choice":
        constraints: list[Constraint] = [Scope(predicate=_ids(*p["options"]))]
        constraints.append(Inhibit(candidate=forbidden_choice(candidates, p)))
    elif subtype == "attribute":
        split: Constraint = Scope(predicate=p["split"]) if p["positive"] else Exclude(predicate=p["split"])
        constraints = [*_scope(p["group"]), split]
    else:
        named: Constraint = Scope(predicate=_ids(p["target"])) if p["positive"] else Inhibit(candidate=p["target"])
        constraints = [*_scope(p["group"]), named]
    return Task(decision_type="single", constraints=tuple(constraints))


def _prefer(p: Params) -> Prefer:
    landmark = p.get("landmark")
    if landmark is None:
        return Prefer(key=p["key"], descending=p["desc"])
    return Prefer(key="distance", descending=p["desc"], landmark=landmark, origin=p["origin"])


def build_task(candidates: Sequence[Candidate], category: str, subtype: str, p: Params) -> Task:
    """The constraint set for a category's parameters."""
    if category == "inhibition":
        return _inhibition(candidates, subtype, p)
    if category == "set":
        group_constraint: Constraint = Scope(predicate=p["group"]) if p["retain"] else Exclude(predicate=p["group"])
        return Task(decision_type="set", constraints=(group_constraint, Exhaustive()))
    if category == "cardinality":
        rank = _prefer(p)
        return Task(decision_type="set", constraints=(*_scope(p["group"]), Count(k=p["k"]), rank))
    if category == "temporal" and subtype == "explicit":
        first, then = (p["x"], p["y"]) if p["before"] else (p["y"], p["x"])
        return Task(
            decision_type="sequence",
            constraints=(Scope(predicate=_ids(first, then)), Exhaustive(), Before(first=first, then=then)),
        )
    if category == "temporal":
        order = OrderBy(key=p["key"], descending=p["desc"])
        return Task(decision_type="sequence", constraints=(*_scope(p["group"]), Exhaustive(), order))
    if category == "multi":
        rank = Prefer(key=p["key"], descending=p["desc"])
        inhibit = [Inhibit(candidate=i) for i in p["inhibit"]]
        return Task(decision_type="set", constraints=(*_scope(p["group"]), *inhibit, Count(k=p["k"]), rank))
    raise ValueError(f"unknown category {category!r}")


def prohibition_contradicts_gold(candidates: Sequence[Candidate], task: Task, gold: Decision) -> bool:
    """True when a prohibited candidate acts on an object that a gold action lifts.

    "Do not pick up the cube" (or "without grabbing the cube") while the gold stacks the cube would ask
    for the impossible: stacking or placing an object lifts it.
    """
    by_id = {c.id: c for c in candidates}
    chosen = [gold] if isinstance(gold, str) else gold
    lifted = {by_id[i].object for i in chosen if by_id[i].attrs.get("verb") in LIFTING_VERBS}
    prohibited = {by_id[c.candidate].object for c in task.constraints if isinstance(c, Inhibit)}
    return bool(lifted & prohibited)
