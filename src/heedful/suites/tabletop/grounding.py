"""Grounding: resolve a symbolic task spec in a layout (referents, branch, allowed bars, yaw), and check
that the grounded task is physically feasible there (free targets, clear push paths).

Spatial terms are seen from the robot: left is -x, right +x, behind +y (away), in front -y.
"""

from __future__ import annotations

import math

import numpy as np

from heedful.errors import GenerationError
from heedful.sims.tabletop.spec import GRASPABLE_SHAPES, STACKABLE_BASES, ObjectSpec, footprint_gap
from heedful.suites.tabletop.model import (
    ORIENTATION_YAW,
    Condition,
    Goal,
    Grounded,
    Layout,
    Ref,
    RouteSpec,
    TaskSpec,
)

REF_ANGLE_DEG = 30.0  # a referent lies within this angle of the named direction from its anchor
REF_DIST = 0.22  # ... and within this distance (meters, center to center)
# "On that side" of an anchor: within this angle of the direction, at any distance. A relational
# reference grounds only when exactly one object of its kind is on that side (a unique referent).
SIDE_ANGLE_DEG = 45.0
PLACE_DIST = 0.10  # the expert puts an object this far from its anchor
PUSH_DIST = 0.08  # the expert pushes this far
FREE_GAP = 0.02  # least footprint gap (m) around a target point or a push path
TABLE_BOUNDS = ((-0.36, 0.36), (0.30, 0.76))  # where the expert may put an object down

RELATION_VECTORS: dict[str, tuple[float, float]] = {
    "left_of": (-1.0, 0.0),
    "right_of": (1.0, 0.0),
    "behind": (0.0, 1.0),
    "in_front_of": (0.0, -1.0),
}
DIRECTION_VECTORS: dict[str, tuple[float, float]] = {
    "left": (-1.0, 0.0),
    "right": (1.0, 0.0),
    "forward": (0.0, 1.0),
    "backward": (0.0, -1.0),
}


class GroundingError(GenerationError):
    """A reference does not pick out exactly one object, or the grounded task is infeasible in the layout."""


# ------------------------------------------------------------------------------------------ references


def _matches(o: ObjectSpec, ref: Ref) -> bool:
    if ref.shape == "object":
        if o.shape not in GRASPABLE_SHAPES:
            return False
    elif ref.shape is not None and o.shape != ref.shape:
        return False
    if ref.color is not None and o.color != ref.color:
        return False
    if ref.size is not None and o.size != ref.size:
        return False
    if ref.not_color is not None and o.color == ref.not_color:
        return False
    return not (ref.not_shape is not None and o.shape == ref.not_shape)


def _volume(o: ObjectSpec) -> float:
    r = o.footprint_radius
    return r * r * o.height


def candidates(ref: Ref, layout: Layout) -> list[ObjectSpec]:
    """Objects of `layout` that `ref` may denote (before the uniqueness check)."""
    under = {o.on for o in layout.objects if o.on is not None}
    found = [o for o in layout.objects if _matches(o, ref)]
    if ref.stack == "top":
        found = [o for o in found if o.on is not None and o.name not in under]
    elif ref.stack == "free":
        found = [o for o in found if o.on is None and o.name not in under]
    if ref.relation is not None and ref.anchor is not None:
        anchor = layout.obj(resolve(ref.anchor, layout))
        side = [o for o in found if o.name != anchor.name and on_side(anchor, o, ref.relation)]
        if len(side) > 1:
            return side  # a second object of that kind on that side: no unique referent
        found = [o for o in side if _in_direction(anchor, o, ref.relation)]
    if ref.size_cmp is not None and found:
        ranked = sorted(found, key=_volume, reverse=ref.size_cmp == "larger")
        if len(ranked) > 1 and math.isclose(_volume(ranked[0]), _volume(ranked[1])):
            return ranked  # no unique larger / smaller one
        found = ranked[:1]
    if ref.side is not None and found:
        ranked = sorted(found, key=lambda o: o.x, reverse=ref.side == "right")
        found = ranked[:1] if len(ranked) == 1 or abs(ranked[0].x - ranked[1].x) > 0.05 else ranked
    return found


def on_side(anchor: ObjectSpec, o: ObjectSpec, relation: str) -> bool:
    """Whether `o` lies on the `relation` side of `anchor` (within SIDE_ANGLE_DEG, any distance)."""
    v = np.array([o.x - anchor.x, o.y - anchor.y])
    return float(np.linalg.norm(v)) > 1e-6 and angle_deg(v, np.array(RELATION_VECTORS[relation])) <= SIDE_ANGLE_DEG


def _in_direction(anchor: ObjectSpec, o: ObjectSpec, relation: str) -> bool:
    v = np.array([o.x - anchor.x, o.y - anchor.y])
    dist = float(np.linalg.norm(v))
    if dist > REF_DIST or dist < 1e-6:
        return False
    return angle_deg(v, np.array(RELATION_VECTORS[relation])) <= REF_ANGLE_DEG


def angle_deg(v: np.ndarray, w: np.ndarray) -> float:
    """Angle between two 2-D vectors in degrees (180 when either is zero)."""
    nv, nw = float(np.linalg.norm(v)), float(np.linalg.norm(w))
    if nv < 1e-9 or nw < 1e-9:
        return 180.0
    return math.degrees(math.acos(max(-1.0, min(1.0, float(v @ w) / (nv * nw)))))


def resolve(ref: Ref, layout: Layout) -> str:
    """The id of the one object `ref` denotes in `layout`.

    Raises:
        GroundingError: no object or several objects match.
    """
    found = candidates(ref, layout)
    if len(found) != 1:
        names = [o.name for o in found]
        raise GroundingError(f"reference {ref.model_dump(exclude_none=True)} matches {names} in {layout.layout_id}")
    return found[0].name


# ------------------------------------------------------------------------------------------ conditions


def holds(cond: Condition, layout: Layout) -> bool:
    """Whether an observable condition is true in `layout`."""
    subject = layout.obj(resolve(cond.subject, layout))
    if cond.kind == "bowl_empty":
        value = not layout.contents(subject.name)
    elif cond.kind == "slot_empty":
        value = not any(_on_label(o, subject) for o in layout.objects if o.shape != "label" and o.name != subject.name)
    else:
        if cond.other is None:
            raise GroundingError("a left_of condition needs two objects")
        other = layout.obj(resolve(cond.other, layout))
        if abs(subject.x - other.x) < 0.03:
            raise GroundingError(f"{subject.name} and {other.name} are neither left nor right of each other")
        value = subject.x < other.x
    return value != cond.negated


def _on_label(o: ObjectSpec, label: ObjectSpec, margin: float = 0.02) -> bool:
    yaw = math.radians(label.yaw_deg)
    dx, dy = o.x - label.x, o.y - label.y
    lx = dx * math.cos(yaw) + dy * math.sin(yaw)
    ly = -dx * math.sin(yaw) + dy * math.cos(yaw)
    hx, hy = label.params[0], label.params[1]
    return abs(lx) <= hx + margin and abs(ly) <= hy + margin


# ------------------------------------------------------------------------------------------ tasks


def ground(spec: TaskSpec, layout: Layout) -> Grounded:
    """Resolve `spec` in `layout` and check that the result is feasible there.

    Raises:
        GroundingError: a reference is ambiguous or empty, or the task cannot be done in this layout.
    """
    goal, branch = spec.goal, None
    if spec.condition is not None:
        if spec.otherwise is None:
            raise GroundingError("a conditional task needs an `otherwise` goal")
        taken = holds(spec.condition, layout)
        goal, branch = (spec.goal, "then") if taken else (spec.otherwise, "else")
    grounded = _ground_goal(goal, layout).model_copy(update={"branch": branch})
    check_feasible(grounded, layout)
    return grounded


def _ground_goal(goal: Goal, layout: Layout) -> Grounded:
    source = resolve(goal.source, layout)
    second = resolve(goal.second, layout) if goal.second is not None else None
    target = resolve(goal.target, layout) if goal.target is not None else None
    barrier: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    if goal.route is not None:
        barrier = tuple(o.name for o in layout.objects if o.shape == "bar" and o.name != source)
        allowed = _allowed(goal.route, layout, barrier)
    yaw = ORIENTATION_YAW[goal.orientation] if goal.orientation is not None else None
    return Grounded(
        action=goal.action,
        source=source,
        second=second,
        target=target,
        relation=goal.relation,
        direction=goal.direction,
        allowed_bars=allowed,
        barrier=barrier,
        route_mode=goal.route.mode if goal.route is not None else None,
        yaw_deg=yaw,
    )


def _allowed(route: RouteSpec, layout: Layout, barrier: tuple[str, ...]) -> tuple[str, ...]:
    named = {resolve(r, layout) for r in route.bars}
    if not named <= set(barrier):
        raise GroundingError(f"route bars {sorted(named)} are not all barrier bars {barrier}")
    allowed = [b for b in barrier if (b in named) == (route.mode == "via")]
    if not allowed:
        raise GroundingError("the route allows no bar to pass over")
    return tuple(allowed)


# ------------------------------------------------------------------------------------------ feasibility


def _graspable_free(layout: Layout, name: str) -> None:
    o = layout.obj(name)
    if o.shape not in GRASPABLE_SHAPES:
        raise GroundingError(f"{name} ({o.shape}) cannot be grasped")
    if any(other.on == name for other in layout.objects):
        raise GroundingError(f"{name} has an object on top of it")


def footprint_free(layout: Layout, moved: ObjectSpec, ignore: set[str], gap: float = FREE_GAP) -> bool:
    """Whether `moved` (at its x, y) keeps `gap` from every object not in `ignore` and stays on the table."""
    (x0, x1), (y0, y1) = TABLE_BOUNDS
    if not (x0 <= moved.x <= x1 and y0 <= moved.y <= y1):
        return False
    for o in layout.objects:
        if o.name in ignore or o.shape == "label" or o.on is not None:
            continue
        if footprint_gap(moved, o) < gap:
            return False
    return True


def relative_target(layout: Layout, source: str, anchor: str, relation: str) -> tuple[float, float] | None:
    """Where the expert puts `source` for `relation` to `anchor`; None when no such point is free.

    `beside` takes the right side when it is free, else the left side.
    """
    a, src = layout.obj(anchor), layout.obj(source)
    names = ("right_of", "left_of") if relation == "beside" else (relation,)
    for name in names:
        vx, vy = RELATION_VECTORS[name]
        point = (round(a.x + vx * PLACE_DIST, 4), round(a.y + vy * PLACE_DIST, 4))
        moved = src.model_copy(update={"x": point[0], "y": point[1], "on": None})
        if footprint_free(layout, moved, {source}):
            return point
    return None


def relation_satisfied(obj_xy: np.ndarray, anchor_xy: np.ndarray, relation: str, max_dist: float = 0.12) -> bool:
    """The scorer's relation test: within `max_dist` of the anchor and within 45 degrees of the direction."""
    v = obj_xy - anchor_xy
    if float(np.linalg.norm(v)) > max_dist:
        return False
    return relation_angle(v, relation) <= 45.0


def relation_angle(v: np.ndarray, relation: str) -> float:
    """Angle (degrees) between `v` and the relation's direction; `beside` takes the nearer of left / right."""
    names = ("left_of", "right_of") if relation == "beside" else (relation,)
    return min(angle_deg(v, np.array(RELATION_VECTORS[n])) for n in names)


def check_feasible(g: Grounded, layout: Layout) -> None:
    """Raise GroundingError when the grounded task cannot be done (or is already done) in `layout`."""
    _graspable_free(layout, g.source)
    src = layout.obj(g.source)
    if g.action == "sequence_pickups":
        if g.second is None or g.second == g.source:
            raise GroundingError("a sequence needs two different objects")
        _graspable_free(layout, g.second)
    elif g.action == "place_relative":
        _check_relative(g, layout)
    elif g.action == "stack":
        _check_stack(g, layout, src)
    elif g.action == "push":
        _check_push(g, layout, src)
    elif g.action == "place_bowl":
        bowl = layout.obj(_need(g.target))
        if bowl.shape != "bowl" or src.footprint_radius > bowl.params[0] - 0.015:
            raise GroundingError(f"{g.source} does not fit in {bowl.name}")
    elif g.action in ("route_place", "place_slot"):
        label = layout.obj(_need(g.target))
        if label.shape != "label" or any(
            _on_label(o, label) for o in layout.objects if o.shape != "label" and o.name != g.source
        ):
            raise GroundingError(f"{label.name} is not a free label")
        if g.action == "route_place" and not g.allowed_bars:
            raise GroundingError("no bar to pass over")


def _need(name: str | None) -> str:
    if name is None:
        raise GroundingError("the task names no target")
    return name


def _check_relative(g: Grounded, layout: Layout) -> None:
    anchor = _need(g.target)
    if g.relation is None or anchor == g.source:
        raise GroundingError("a relative placement needs a relation and an anchor other than the source")
    src, a = layout.obj(g.source), layout.obj(anchor)
    sides = ("left_of", "right_of") if g.relation == "beside" else (g.relation,)
    # Already there, by the scorer's standard or by the one that names objects ("the block left of X").
    if relation_satisfied(np.array([src.x, src.y]), np.array([a.x, a.y]), g.relation) or any(
        _in_direction(a, src, side) for side in sides
    ):
        raise GroundingError(f"{g.source} is already {g.relation} {anchor}")
    if relative_target(layout, g.source, anchor, g.relation) is None:
        raise GroundingError(f"no free point {g.relation} {anchor}")


def _check_stack(g: Grounded, layout: Layout, src: ObjectSpec) -> None:
    target = layout.obj(_need(g.target))
    if target.name == g.source or target.shape not in STACKABLE_BASES:
        raise GroundingError(f"cannot stack {g.source} on {target.name}")
    if any(o.on == target.name for o in layout.objects) or target.on is not None:
        raise GroundingError(f"{target.name} is not a free stack base")
    if src.shape == "sphere":
        raise GroundingError("a ball does not stay on a flat top")


def _check_push(g: Grounded, layout: Layout, src: ObjectSpec) -> None:
    if g.direction is None:
        raise GroundingError("a push needs a direction")
    d = np.array(DIRECTION_VECTORS[g.direction])
    for s in np.linspace(0.0, PUSH_DIST + 0.02, 6):  # the path ahead
        moved = src.model_copy(update={"x": src.x + float(d[0] * s), "y": src.y + float(d[1] * s)})
        if not footprint_free(layout, moved, {g.source}):
            raise GroundingError(f"no room to push {g.source} {g.direction}")
    # Room for the pusher: a pad-sized disk where the fingers wait before the stroke.
    back = src.footprint_radius + 0.03
    pad = src.model_copy(
        update={
            "shape": "cylinder",
            "dims": (0.015, 0.02),
            "x": src.x - float(d[0] * back),
            "y": src.y - float(d[1] * back),
        }
    )
    if not footprint_free(layout, pad, {g.source}, gap=0.005):
        raise GroundingError(f"no room behind {g.source} for the pusher")
