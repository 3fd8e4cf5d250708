"""Relational references have a unique referent: no second object of the referent's kind on that side."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from heedful.suites.tabletop import scene1
from heedful.suites.tabletop.grounding import (
    RELATION_VECTORS,
    SIDE_ANGLE_DEG,
    GroundingError,
    angle_deg,
    candidates,
    resolve,
)
from heedful.suites.tabletop.model import Layout, Ref, TaskSpec
from heedful.suites.tabletop.registry import evaluation_tasks, training_tasks


def _refs(spec: TaskSpec) -> Iterator[Ref]:
    for goal in (spec.goal, spec.otherwise):
        if goal is not None:
            yield from (r for r in (goal.source, goal.second, goal.target) if r is not None)
    if spec.condition is not None:
        yield from (r for r in (spec.condition.subject, spec.condition.other) if r is not None)


def _on_that_side(r: Ref, layout: Layout) -> list[str]:
    """Every object of the referent's kind on the relation's side of the anchor (within 45 degrees, any
    distance): computed here from the layout, independently of the grounding code."""
    assert r.relation is not None and r.anchor is not None
    anchor = layout.obj(resolve(r.anchor, layout))
    kind = candidates(r.model_copy(update={"relation": None, "anchor": None}), layout)
    direction = np.array(RELATION_VECTORS[r.relation])
    return [
        o.name
        for o in kind
        if o.name != anchor.name and angle_deg(np.array([o.x - anchor.x, o.y - anchor.y]), direction) <= 45.0
    ]


def test_every_relational_reference_of_every_task_has_exactly_one_object_on_that_side() -> None:
    assert SIDE_ANGLE_DEG == 45.0
    checked, ambiguous = 0, []
    tasks = [(t.task, t.spec, t.layout) for t in evaluation_tasks()]
    tasks += [(t.label, t.spec, t.layout) for t in training_tasks()]
    for name, spec, layout in tasks:
        for r in _refs(spec):
            if r.relation is not None:
                checked += 1
                side = _on_that_side(r, layout)
                if side != [resolve(r, layout)]:
                    ambiguous.append((name, r.relation, side))
    assert ambiguous == []
    assert checked >= 100  # scene 1 names its blocks this way throughout


def test_the_block_left_of_the_green_ball_is_ambiguous_in_the_training_layout() -> None:
    # block_2 stands just left of the green ball, block_1 further left and 14 cm nearer the robot.
    left_of_green = scene1.block("left_of", "green_ball")
    assert sorted(_on_that_side(left_of_green, scene1.DEFAULT)) == ["block_1", "block_2"]
    with pytest.raises(GroundingError, match="matches"):
        resolve(left_of_green, scene1.DEFAULT)
    # "in front of the red ball": block_3 lies 63 degrees off, more to the right than in front.
    assert resolve(scene1.B1, scene1.DEFAULT) == "block_1"
