"""Definite descriptions of one object: by attributes, by position among its peers, or by a relation.

Every description returned picks out exactly one object of the scene. Anchors keep objects apart by more
than the ranking margin along both axes, so "the leftmost cube" is never a tie; a relation ("the cube
closest to the red ball") is offered only when the runner-up is clearly farther from the landmark.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.suites.decisions import wording as w
from heedful.world.objects import NOUNS, TableObject
from heedful.world.reference import referring_expressions

RELATION_MARGIN = 0.05  # the described object is nearer the landmark than any peer by at least this (m)


def object_references(
    obj: TableObject, scene: Sequence[TableObject], held_out: bool | None
) -> tuple[list[str], list[str]]:
    """(attribute descriptions, position and relation descriptions), each with its article."""
    by_attribute = ["the " + text for text in referring_expressions(obj, scene)]
    return by_attribute, position_references(obj, scene, held_out) + relation_references(obj, scene, held_out)


def position_references(obj: TableObject, scene: Sequence[TableObject], held_out: bool | None) -> list[str]:
    """'the leftmost cube', 'the object closest to you': obj is the extreme one among two or more peers."""
    found: list[str] = []
    noun = NOUNS[obj.shape][0]
    for peers, head in (([o for o in scene if o.shape == obj.shape], noun), (list(scene), "object")):
        if len(peers) < 2:
            continue
        for (key, descending), pool in w.POSITION_REFS.items():
            extreme = _extreme(peers, key, descending)
            if extreme is obj:
                found.extend(form.format(n=head) for form in w.choose(pool, held_out))
    return found


def _extreme(peers: Sequence[TableObject], key: str, descending: bool) -> TableObject:
    ordered = sorted(peers, key=lambda o: o.x if key == "x" else o.y)
    return ordered[-1] if descending else ordered[0]


def relation_references(obj: TableObject, scene: Sequence[TableObject], held_out: bool | None) -> list[str]:
    """'the cube closest to the red ball': among obj's peers (same shape), obj is clearly nearest the landmark."""
    peers = [o for o in scene if o.shape == obj.shape]
    if len(peers) < 2:
        return []
    found: list[str] = []
    for landmark in scene:
        if landmark.shape == obj.shape:
            continue
        distance = {o.name: float(np.hypot(o.x - landmark.x, o.y - landmark.y)) for o in peers}
        runner_up = min(d for name, d in distance.items() if name != obj.name)
        if distance[obj.name] + RELATION_MARGIN <= runner_up:
            landmark_np = "the " + referring_expressions(landmark, scene)[0]
            noun = NOUNS[obj.shape][0]
            found.extend(form.format(n=noun, l=landmark_np) for form in w.choose(w.RELATION_REFS, held_out))
    return found
