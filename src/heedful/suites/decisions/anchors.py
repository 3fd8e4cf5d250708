"""Physical decision anchors: seeded tabletop states with a fixed candidate set.

Object-centric anchors choose among 3-7 objects; action-sequence anchors choose among 3-5 executable
actions whose preconditions hold in the state. Objects in one anchor are separated along both table axes
by more than the solver's ranking margin, so spatial orders ("leftmost", "nearest") are never ambiguous.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, ConfigDict

from heedful.errors import GenerationError
from heedful.suites.decisions.model import AnchorKind, Candidate
from heedful.suites.decisions.solver import RANK_MARGIN
from heedful.world.footprints import BOX_SHAPES, SHAPE_DIMS, Polygon, footprint_polygon, polygon_gap
from heedful.world.objects import (
    COLORS,
    FLAT_TOPPED,
    NOUNS,
    ROTATABLE,
    SIZES,
    TABLE_X,
    TABLE_Y,
    TableObject,
    TabletopState,
)
from heedful.world.reference import referring_expressions

MAX_TRIES = 200
AXIS_SEPARATION = RANK_MARGIN + 0.01
FOOTPRINT_GAP = 0.01  # free space between footprints, so a gripper finger fits
PUSH_DISTANCE = 0.10
PUSH_DIRECTIONS: dict[str, tuple[float, float]] = {
    "left": (-1.0, 0.0),
    "right": (1.0, 0.0),
    "forward": (0.0, 1.0),
    "backward": (0.0, -1.0),
}
OBJECT_SHAPES = ("cube", "block", "cylinder", "sphere", "bar")


class Anchor(BaseModel):
    """A fixed decision state and its candidate set A(s)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    anchor_id: str
    kind: AnchorKind
    state: TabletopState
    candidates: tuple[Candidate, ...]


def _choose(rng: np.random.Generator, items: tuple[str, ...] | list[str]) -> str:
    return str(items[int(rng.integers(len(items)))])


def _footprint(obj: TableObject) -> Polygon:
    return footprint_polygon(obj.shape, SHAPE_DIMS[obj.shape][obj.size], obj.x, obj.y, obj.yaw_deg)


def _fits(new: TableObject, placed: list[TableObject]) -> bool:
    """`new` is apart from every placed object: footprints do not touch, and along both axes its center
    is farther than the ranking margin from theirs, so spatial orders are never ambiguous."""
    for o in placed:
        if abs(new.x - o.x) < AXIS_SEPARATION or abs(new.y - o.y) < AXIS_SEPARATION:
            return False
        far_apart = np.hypot(new.x - o.x, new.y - o.y) > _reach(new) + _reach(o) + FOOTPRINT_GAP
        if not far_apart and polygon_gap(_footprint(new), _footprint(o)) < FOOTPRINT_GAP:
            return False
    return True


def _reach(obj: TableObject) -> float:
    """Radius of a circle around the center that covers the footprint (a cheap first test)."""
    dims = SHAPE_DIMS[obj.shape][obj.size]
    return float(np.hypot(dims[0], dims[1])) if obj.shape in BOX_SHAPES else dims[0] / np.cos(np.pi / 16)


def _place(rng: np.random.Generator, kinds: list[tuple[str, str, str]]) -> list[TableObject]:
    """Place objects one at a time where they fit (restart on a dead end); largest footprints first."""
    order = sorted(range(len(kinds)), key=lambda i: -max(SHAPE_DIMS[kinds[i][2]][kinds[i][0]][:2]))
    for _ in range(MAX_TRIES):
        placed: dict[int, TableObject] = {}
        for i in order:
            size, color, shape = kinds[i]
            yaw = float(rng.choice([0, 45, 90])) if shape in ("block", "bar") else 0.0
            for _ in range(MAX_TRIES):
                x = round(float(rng.uniform(TABLE_X[0] + 0.05, TABLE_X[1] - 0.05)), 3)
                y = round(float(rng.uniform(TABLE_Y[0] + 0.04, TABLE_Y[1] - 0.04)), 3)
                obj = TableObject(name=f"obj{i}", size=size, color=color, shape=shape, x=x, y=y, yaw_deg=yaw)  # type: ignore[arg-type]
                if _fits(obj, list(placed.values())):
                    placed[i] = obj
                    break
            else:
                break  # dead end: start the whole layout again
        if len(placed) == len(kinds):
            return [placed[i] for i in range(len(kinds))]
    raise GenerationError(f"could not place {len(kinds)} objects apart in {MAX_TRIES} tries; lower the object count")


def _sample_objects(rng: np.random.Generator, n: int, shapes: tuple[str, ...], bowl: bool = False) -> list[TableObject]:
    """n objects with unique (size, color, shape) drawn from a small palette, so attributes overlap.

    With `bowl`, the last of them is a large bowl.
    """
    palette = list(rng.choice(COLORS, size=int(rng.integers(2, 4)), replace=False))
    shape_pool = list(rng.choice(shapes, size=min(len(shapes), int(rng.integers(2, 5))), replace=False))
    seen: set[tuple[str, str, str]] = set()
    kinds: list[tuple[str, str, str]] = []
    wanted = n - 1 if bowl else n
    for _ in range(MAX_TRIES):
        if len(kinds) == wanted:
            break
        triple = (_choose(rng, SIZES), _choose(rng, palette), _choose(rng, shape_pool))
        if triple not in seen:
            seen.add(triple)
            kinds.append(triple)
    if len(kinds) < wanted:
        raise GenerationError(f"could not draw {n} distinct objects from the palette in {MAX_TRIES} tries")
    if bowl:
        kinds.append(("large", _choose(rng, palette), "bowl"))
    return _place(rng, kinds)


def _object_attrs(obj: TableObject) -> dict[str, str]:
    return {"color": obj.color, "shape": obj.shape, "size": obj.size}


def object_anchor(anchor_id: str, rng: np.random.Generator) -> Anchor:
    """An object-centric anchor: 3-7 graspable objects; the candidates are the objects."""
    n = int(rng.integers(3, 8))
    objects = _sample_objects(rng, n, OBJECT_SHAPES)
    state = TabletopState(objects=tuple(objects))
    order = rng.permutation(n)  # ids carry no information about position or listing order
    candidates = [
        Candidate(
            id=f"o{rank + 1}",
            kind="object",
            text=objects[i].describe(),
            attrs=_object_attrs(objects[i]),
            x=objects[i].x,
            y=objects[i].y,
            object=objects[i].name,
        )
        for rank, i in enumerate(order)
    ]
    return Anchor(anchor_id=anchor_id, kind="object", state=state, candidates=tuple(sorted(candidates, key=_by_id)))


def _by_id(candidate: Candidate) -> int:
    return int(candidate.id[1:])


ActionMaker = Callable[[TableObject, TabletopState, np.random.Generator], "dict[str, object] | None"]


def _pick(obj: TableObject, state: TabletopState, rng: np.random.Generator) -> dict[str, object] | None:
    return {"verb": "pick", "text": f"pick up {_ref(obj, state)}"} if obj.graspable else None


def _place_in(obj: TableObject, state: TabletopState, rng: np.random.Generator) -> dict[str, object] | None:
    bowls = [o for o in state.objects if o.shape == "bowl"]
    if not bowls or not obj.graspable or obj.size != "small" or obj.shape == "bar":
        return None
    bowl = bowls[int(rng.integers(len(bowls)))]
    text = f"put {_ref(obj, state)} in {_ref(bowl, state)}"
    return {"verb": "place_in", "text": text, "target": bowl.name}


def _stack_on(obj: TableObject, state: TabletopState, rng: np.random.Generator) -> dict[str, object] | None:
    if obj.shape not in ("cube", "block"):
        return None
    bases = [
        o
        for o in state.objects
        if o.name != obj.name and o.shape in FLAT_TOPPED and not (obj.size == "large" and o.size == "small")
    ]
    if not bases:
        return None
    base = bases[int(rng.integers(len(bases)))]
    return {
        "verb": "stack_on",
        "text": f"stack {_ref(obj, state)} on {_ref(base, state)}",
        "target": base.name,
    }


def _push(obj: TableObject, state: TabletopState, rng: np.random.Generator) -> dict[str, object] | None:
    options = []
    for name, (dx, dy) in PUSH_DIRECTIONS.items():
        moved = obj.model_copy(update={"x": obj.x + dx * PUSH_DISTANCE, "y": obj.y + dy * PUSH_DISTANCE})
        on_table = TABLE_X[0] <= moved.x <= TABLE_X[1] and TABLE_Y[0] <= moved.y <= TABLE_Y[1]
        others = [o for o in state.objects if o.name != obj.name]
        # the pushed object's path must be clear: no other footprint at the halfway point or at the end
        halfway = obj.model_copy(update={"x": obj.x + dx * PUSH_DISTANCE / 2, "y": obj.y + dy * PUSH_DISTANCE / 2})
        clear = all(polygon_gap(_footprint(p), _footprint(o)) >= 0 for p in (halfway, moved) for o in others)
        if on_table and clear:
            options.append(name)
    if not options:
        return None
    direction = _choose(rng, options)
    phrase = {
        "left": "to the left",
        "right": "to the right",
        "forward": "away from you",
        "backward": "toward you",
    }
    text = f"push {_ref(obj, state)} {phrase[direction]} by 10 cm"
    return {"verb": "push", "text": text, "direction": direction}


def _rotate(obj: TableObject, state: TabletopState, rng: np.random.Generator) -> dict[str, object] | None:
    if obj.shape not in ROTATABLE:
        return None
    return {"verb": "rotate", "text": f"rotate {_ref(obj, state)} by 90 degrees", "angle_deg": 90}


ACTION_MAKERS: dict[str, ActionMaker] = {
    "pick": _pick,
    "place_in": _place_in,
    "stack_on": _stack_on,
    "push": _push,
    "rotate": _rotate,
}


def _ref(obj: TableObject, state: TabletopState) -> str:
    return "the " + referring_expressions(obj, state.objects)[0]


def action_anchor(anchor_id: str, rng: np.random.Generator) -> Anchor:
    """An action-sequence anchor: a state plus 3-5 distinct executable actions over its objects."""
    for _ in range(MAX_TRIES):
        n_objects = int(rng.integers(3, 7))
        with_bowl = bool(rng.random() < 0.6)  # a bowl makes "place in" feasible
        objects = _sample_objects(rng, n_objects, OBJECT_SHAPES, bowl=with_bowl)
        state = TabletopState(objects=tuple(objects))
        if len({o.describe() for o in objects}) < len(objects):
            continue
        actions = _sample_actions(state, rng)
        if actions is not None:
            return Anchor(anchor_id=anchor_id, kind="action", state=state, candidates=tuple(actions))
    raise GenerationError(f"anchor {anchor_id}: no state with 3 feasible distinct actions in {MAX_TRIES} tries")


def _sample_actions(state: TabletopState, rng: np.random.Generator) -> list[Candidate] | None:
    n_actions = int(rng.integers(3, 6))
    verbs = list(rng.choice(list(ACTION_MAKERS), size=int(rng.integers(2, 4)), replace=False))
    found: list[tuple[TableObject, dict[str, object]]] = []
    for _ in range(MAX_TRIES):
        if len(found) == n_actions:
            break
        obj = state.objects[int(rng.integers(len(state.objects)))]
        made = ACTION_MAKERS[_choose(rng, verbs)](obj, state, rng)
        if made is not None and all(made["text"] != f["text"] for _, f in found):
            found.append((obj, made))
    if len(found) < 3:
        return None
    order = rng.permutation(len(found))
    candidates = []
    for rank, i in enumerate(order):
        obj, made = found[i]
        candidates.append(
            Candidate(
                id=f"a{rank + 1}",
                kind="action",
                text=str(made["text"]),
                attrs={**_object_attrs(obj), "verb": str(made["verb"])},
                x=obj.x,
                y=obj.y,
                object=obj.name,
                target=_opt_str(made.get("target")),
                direction=_opt_str(made.get("direction")),
                angle_deg=_opt_int(made.get("angle_deg")),
            )
        )
    return sorted(candidates, key=_by_id)


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def _opt_int(value: object) -> int | None:
    return None if value is None else int(str(value))


def noun(shape: str, plural: bool = False) -> str:
    return NOUNS[shape][1 if plural else 0]
