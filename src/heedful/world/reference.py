"""Referring expressions: descriptions that pick out exactly one object among others."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.world.objects import NOUNS, TableObject


def _forms(obj: TableObject) -> list[tuple[str, tuple[str, ...]]]:
    """(text, attribute fields used), shortest first."""
    n = NOUNS[obj.shape][0]
    return [
        (n, ("shape",)),
        (f"{obj.color} {n}", ("color", "shape")),
        (f"{obj.size} {n}", ("size", "shape")),
        (f"{obj.size} {obj.color} {n}", ("size", "color", "shape")),
    ]


def referring_expressions(obj: TableObject, scene: Sequence[TableObject]) -> list[str]:
    """Every description (without article) that matches `obj` and no other object, shortest first.

    The full "size color noun" form always works when attribute triples are unique in the scene.
    """
    unique = []
    for text, fields in _forms(obj):
        matches = [o for o in scene if all(getattr(o, f) == getattr(obj, f) for f in fields)]
        if matches == [obj]:
            unique.append(text)
    return unique
