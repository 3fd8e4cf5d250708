"""What every scene family provides to the registry: training layouts and tasks, L1 layouts, and a
generator of held-out phrasings (the material of levels L2 and L3)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from heedful.sims.tabletop.spec import ObjectSpec
from heedful.suites.tabletop.language import Wording
from heedful.suites.tabletop.model import Layout, Ref, TaskSpec

HeldOut = Callable[[TaskSpec, Layout], list[tuple[TaskSpec, str]]]


@dataclass(frozen=True)
class Family:
    """One scene family.

    Attributes:
        scene: 1..4.
        configs: The training layouts (task-independent initial scenes) by id.
        training: (config id, spec) of every training task label, in label order.
        l1_layouts: (base config id, layout) of the evaluation layouts that differ from training.
        held_out: Held-out (spec, instruction) pairs for a training spec in a layout: new referring
            expressions, logically equivalent rewrites, recombinations. Never a training phrasing.
        wording: Word choices of this family (the noun of labels).
        counts: Evaluation tasks per level (L0, L1, L2, L3).
    """

    scene: int
    configs: dict[str, Layout]
    training: list[tuple[str, TaskSpec]]
    l1_layouts: list[tuple[str, Layout]]
    held_out: HeldOut
    wording: Wording
    counts: tuple[int, int, int, int]


def obj(name: str, shape: str, color: str, x: float, y: float, **extra: object) -> ObjectSpec:
    """An object spec (shorthand for the layout tables)."""
    return ObjectSpec.model_validate({"name": name, "shape": shape, "color": color, "x": x, "y": y, **extra})


def ref(shape: str | None = None, color: str | None = None, **extra: object) -> Ref:
    """A reference (shorthand)."""
    return Ref.model_validate({"shape": shape, "color": color, **extra})


def moved(layout: Layout, layout_id: str, positions: dict[str, tuple[float, float]], **extra: object) -> Layout:
    """A copy of `layout` with some objects at other positions (and optionally other fields).

    Objects stacked on a moved object move with it.
    """
    positions = dict(positions)
    for o in layout.objects:
        if o.on is not None and o.on in positions and o.name not in positions:
            positions[o.name] = positions[o.on]
    objects = tuple(
        o.model_copy(update={"x": positions[o.name][0], "y": positions[o.name][1]}) if o.name in positions else o
        for o in layout.objects
    )
    return layout.model_copy(update={"layout_id": layout_id, "objects": objects, **extra})


def swapped(layout: Layout, layout_id: str, *pairs: tuple[str, str]) -> Layout:
    """A copy of `layout` with the positions of each pair of objects exchanged (pairs applied in order)."""
    out = layout
    for a, b in pairs:
        oa, ob = out.obj(a), out.obj(b)
        out = moved(out, layout_id, {a: (ob.x, ob.y), b: (oa.x, oa.y)})
    return out.model_copy(update={"layout_id": layout_id})
