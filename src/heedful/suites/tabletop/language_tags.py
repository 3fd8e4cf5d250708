"""What each tabletop instruction demands of language (issue 38): tags read from the task's symbolic spec,
which the instruction realizes word for word.

- `spatial`: a referent picked out by its relation to another object, by side (leftmost, rightmost) or as
  the one on top; or a relative placement ("to the left of the cube");
- `comparative`: the larger / smaller one;
- `route`: a path constraint (pass over / avoid the bar) or a final orientation;
- `negation`: "not red", "not a cube", "avoid", a negated condition;
- `conditional`: if ..., otherwise ...;
- `order`: first A, then B;
- `nouns`: none of the above: colour, size and shape nouns and the verb (a push's direction counts as
  part of the verb) pick out the task.

A task may carry several tags; `nouns` only when it has no other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from heedful.suites.tabletop.model import Goal, Ref, TabletopTask, TaskSpec

TAGS = ("nouns", "comparative", "spatial", "route", "negation", "conditional", "order")


def _refs(ref: Ref | None) -> Iterator[Ref]:
    while ref is not None:
        yield ref
        ref = ref.anchor


def _goal_refs(goal: Goal) -> Iterator[Ref]:
    for ref in (goal.source, goal.second, goal.target):
        yield from _refs(ref)
    if goal.route is not None:
        for bar in goal.route.bars:
            yield from _refs(bar)


def spec_tags(spec: TaskSpec) -> tuple[str, ...]:
    """The language tags of a task spec (see the module doc), in TAGS order."""
    found: set[str] = set()
    goals = [spec.goal] + ([spec.otherwise] if spec.otherwise is not None else [])
    refs = [r for g in goals for r in _goal_refs(g)]
    if spec.condition is not None:
        found.add("conditional")
        refs += [*_refs(spec.condition.subject), *_refs(spec.condition.other)]
        if spec.condition.negated:
            found.add("negation")
        if spec.condition.kind == "left_of":
            found.add("spatial")
    for r in refs:
        if r.size_cmp is not None:
            found.add("comparative")
        if r.relation is not None or r.side is not None or r.stack == "top":
            found.add("spatial")
        if r.not_color is not None or r.not_shape is not None:
            found.add("negation")
    for g in goals:
        if g.action == "place_relative":
            found.add("spatial")
        if g.action == "sequence_pickups":
            found.add("order")
        if g.route is not None or g.orientation is not None:
            found.add("route")
        if g.route is not None and g.route.mode == "avoid":
            found.add("negation")
    return tuple(t for t in TAGS if t in found) or ("nouns",)


def task_tags(task: TabletopTask) -> tuple[str, ...]:
    return spec_tags(task.spec)


def tag_mix(tasks: Iterable[TabletopTask]) -> dict[tuple[int, str], Counter[str]]:
    """(scene, level) -> how many tasks carry each tag."""
    out: dict[tuple[int, str], Counter[str]] = {}
    for t in tasks:
        out.setdefault((t.scene, t.level), Counter()).update(task_tags(t))
    return out


def tag_table(tasks: Iterable[TabletopTask]) -> str:
    """The tag mix per scene x level as a Markdown table (tasks per tag; a task may have several)."""
    tasks = list(tasks)
    mix = tag_mix(tasks)
    totals: Counter[tuple[int, str]] = Counter((t.scene, str(t.level)) for t in tasks)
    lines = ["| scene / level | tasks | " + " | ".join(TAGS) + " |", "|---" * (len(TAGS) + 2) + "|"]
    for key in sorted(mix):
        cells = " | ".join(str(mix[key][tag]) for tag in TAGS)
        lines.append(f"| S{key[0]} {key[1]} | {totals[key]} | {cells} |")
    return "\n".join(lines)
