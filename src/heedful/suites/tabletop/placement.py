"""Stage evaluators, part 2: where the carried object goes (relative place, stack, bowl, slot, scene 3
label), pushes, the second pickup of a sequence and the scene 3 orientation.

Placement intent is the first committed choice of a place, judged at the *commit row*: after the grasp,
the first row at which the carried source, having been up (its bottom more than PUT_DOWN above whatever
is under it), is lowered to within PUT_DOWN of whatever is under it (an object, a bowl's rim, the table)
while the fingers still hold it, or the release (the first open after the grasp), whichever comes first:

1. at the instructed target at that row (the action's own test, below) -> intent True;
2. lowered there (put down or held just over a support) anywhere else -> intent False: lowering onto a
   wrong bowl, base, slot or label first costs the stage even if the object is then taken to the right
   one;
3. released in the air (dropped from higher): intent iff the drop heads for the goal: the source is let
   go (at the release row, not where it lands) within HEAD_RADIUS (0.10 m) of the goal point and the
   TCP's displacement from the grasp is within 30 degrees of the direction to it (a motion ending far
   from the goal is not heading for it);
4. never lowered nor released (held in the air to the end): no place was chosen -> intent False.

Execution is the physical sub-goal and needs an actual release. Worked examples, "stack the red cube on
the blue cube" 0.13 m to its right:
  - lowered to 1 cm over the blue cube, released, rests on it: intent True, execution True;
  - lowered onto the blue cylinder first (1 cm above it, not released), then onto the blue cube:
    step 2, intent False;
  - opened over the blue cube 8 cm up (a drop, within 0.10 m): step 3, intent True; it bounces off:
    execution False;
  - carried over the blue cube and held there to the end: step 4, intent False.
Action tests at the commit row: relative place, within 45 degrees of the relation and 0.12 m of the
anchor (execution, after settling: also resting on the table); stack, xy <= 0.03 m (scene 4: 0.07 m;
execution: released there, settled <= 0.03 m / 0.05 m and resting on the base, bottom within 0.01 m of
its top); bowl, xy <= 0.04 m (execution: released there, inside after settling); slot, xy <= 0.07 m
(execution: settled <= 0.05 m, on the table); scene 3 label, center on the label within 0.03 m of its
edge (execution: on it at the end, resting on the table).

Push: source intent: the source is among the objects first approached (pads within 0.10 m) and is the
first set in motion;
stage intent: the pusher stands behind the source with respect to the commanded direction (at first
contact, or at the approach if nothing moved) and any displacement is within 45 degrees of it;
execution: moved >= 0.02 m within 45 degrees. Example: pads placed behind the cube for "push it left",
never pushing: source and push intent True, execution False.

Sequence "first A, then B": after A is lifted and let go, the first object approached and the next
close must be B (intent); execution: B lifted >= 0.01 m and held to the end. Reverse order scores 0.

Orientation (scene 3): final yaw error modulo 180 degrees <= 40 (intent; and the bar is not grasped
again after it was put down) / <= 20 (execution).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.suites.tabletop.completion import rests_on, support_top
from heedful.suites.tabletop.grounding import (
    DIRECTION_VECTORS,
    PLACE_DIST,
    RELATION_VECTORS,
    angle_deg,
    relation_angle,
    relation_satisfied,
)
from heedful.suites.tabletop.model import Grounded
from heedful.suites.tabletop.stages import (
    PUSH_RADIUS,
    SELECT_RADIUS,
    StageVerdict,
    Track,
    choose,
    contact_row,
    held_to_end,
)

HEADING_DEG = 30.0
HEAD_RADIUS = 0.10  # a drop in the air heads for the goal only if the object is let go this near it
NEAR_OTHER = 0.02  # "over another object": within its footprint radius plus this
STAGE_TABLE = 0.02  # placement execution: the source's bottom at most this high after settling (on the table)
PUT_DOWN = 0.03  # lowered to at most this far above its support: put down (or offered), not carried


@dataclass(frozen=True)
class Carry:
    """The first grasp and the release after it (None while still held at the end)."""

    grasp: int
    release: int | None
    last: int

    @property
    def end(self) -> int:
        return self.release if self.release is not None else self.last


def carry_of(tr: Track) -> Carry | None:
    if not tr.grasps:
        return None
    grasp = tr.grasps[0]
    return Carry(grasp, tr.next_event(tr.opens, grasp), tr.last)


def commit_row(tr: Track, name: str, c: Carry) -> tuple[int | None, str]:
    """The carry's commit row (module doc) and how it ended there: "lowered", "released" or "held"."""
    end = c.release if c.release is not None else tr.last
    up = False
    for r in range(c.grasp, end + 1):
        gap = tr.bottom(name, r) - support_top(tr, name, r)
        if gap > PUT_DOWN:
            up = True
        elif up and (c.release is None or r < c.release):
            return r, "lowered"
    if c.release is not None:
        return c.release, "released"
    return None, "held"


def heading(tr: Track, g: Grounded, c: Carry, row: int, goal: NDArray[np.float64]) -> tuple[bool, str]:
    """Step 3: a drop heads for `goal` if the source is let go near it and the carry pointed at it."""
    start = tr.tcp_xy(c.grasp)
    moved, want = tr.tcp_xy(row) - start, goal - start
    miss = float(np.linalg.norm(tr.xy(g.source, row) - goal))
    angle = 0.0 if float(np.linalg.norm(want)) < 1e-6 else angle_deg(moved, want)
    ok = miss <= HEAD_RADIUS and angle <= HEADING_DEG
    return ok, f"dropped {miss:.3f} m from the goal, carried {angle:.0f} deg off its direction"


def over_other(tr: Track, g: Grounded, row: int, xy: NDArray[np.float64]) -> str | None:
    """An object or label other than the source and the target that `xy` lies over at `row`."""
    for o in tr.layout.objects:
        if o.name in (g.source, g.target):
            continue
        if o.shape == "label":
            if on_label(tr, xy, o.name, row, NEAR_OTHER):
                return o.name
        elif float(np.linalg.norm(xy - tr.xy(o.name, row))) <= o.footprint_radius + NEAR_OTHER:
            return o.name
    return None


def aim(
    tr: Track, g: Grounded, c: Carry, at_goal: Callable[[int], bool], goal: NDArray[np.float64]
) -> tuple[bool, str]:
    """Placement intent in the four steps of the module doc; `at_goal(row)` is the action's test."""
    row, how = commit_row(tr, g.source, c)
    if row is None:
        return False, "held in the air to the end: no place chosen"
    if at_goal(row):
        return True, f"{how} at the target at step {row}"
    if how == "lowered" or lowered_release(tr, g.source, row):
        other = over_other(tr, g, row, tr.xy(g.source, row))
        return False, f"{how} at step {row} at {other or 'a spot'} that is not the target"
    return heading(tr, g, c, row, goal)


def lowered_release(tr: Track, name: str, row: int) -> bool:
    """A release within PUT_DOWN of the support under the object: put down, not dropped."""
    return tr.bottom(name, row) - support_top(tr, name, row) <= PUT_DOWN


def _never(name: str, weight: float, what: str = "the source was never grasped") -> StageVerdict:
    return StageVerdict(name, weight, False, False, what)


def relative_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    c = carry_of(tr)
    if c is None or g.target is None or g.relation is None:
        return _never("place", weight)
    s = tr.settle(c.end)
    anchor, here = tr.xy(g.target, s), tr.xy(g.source, s)
    v = here - anchor
    placed = relation_satisfied(here, anchor, g.relation)
    target, relation = g.target, g.relation

    def at_goal(row: int) -> bool:
        return relation_satisfied(tr.xy(g.source, row), tr.xy(target, row), relation)

    intent, why = aim(tr, g, c, at_goal, _relative_goal(tr, g, c))
    bottom = tr.bottom(g.source, s)
    detail = f"{why}; {relation_angle(v, g.relation):.0f} deg from {g.relation} {g.target}, "
    detail += f"{float(np.linalg.norm(v)):.3f} m away, bottom at {bottom:.3f} m"
    return StageVerdict("place", weight, intent, placed and bottom <= STAGE_TABLE and c.release is not None, detail)


def _relative_goal(tr: Track, g: Grounded, c: Carry) -> NDArray[np.float64]:
    """The expert's point for the relation (for `beside`, the side the carry leans to)."""
    anchor = tr.xy(_need(g.target), c.grasp)
    names = ("right_of", "left_of") if g.relation == "beside" else (str(g.relation),)
    points = [anchor + PLACE_DIST * np.array(RELATION_VECTORS[n]) for n in names]
    end = tr.tcp_xy(c.end)
    return min(points, key=lambda p: float(np.linalg.norm(p - end)))


def _need(name: str | None) -> str:
    return name if name is not None else ""


def _within(tr: Track, g: Grounded, radius: float) -> Callable[[int], bool]:
    """The test "the source's center is within `radius` of the target's in xy" at a row."""
    target = _need(g.target)

    def test(row: int) -> bool:
        return float(np.linalg.norm(tr.xy(g.source, row) - tr.xy(target, row))) <= radius

    return test


def _offsets_at_release(tr: Track, g: Grounded, c: Carry) -> tuple[int, float, float]:
    """The settle step after the carry ends, and the source's xy offset from the target at release and once settled."""
    target = _need(g.target)
    s = tr.settle(c.end)
    aimed = float(np.linalg.norm(tr.xy(g.source, c.end) - tr.xy(target, c.end)))
    settled = float(np.linalg.norm(tr.xy(g.source, s) - tr.xy(target, s)))
    return s, aimed, settled


def stack_stage(tr: Track, g: Grounded, weight: float, aim_radius: float, rest: float) -> StageVerdict:
    c = carry_of(tr)
    if c is None or g.target is None:
        return _never("stack", weight)
    s, aimed, settled = _offsets_at_release(tr, g, c)
    on_top = rests_on(tr, g.source, g.target, s)
    intent, why = aim(tr, g, c, _within(tr, g, aim_radius), tr.xy(g.target, c.grasp))
    done = c.release is not None and aimed <= aim_radius and settled <= rest and on_top
    detail = f"{why}; released {aimed:.3f} m off {g.target}, settled {settled:.3f} m off, on top: {on_top}"
    return StageVerdict("stack", weight, intent, done, detail)


def bowl_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    c = carry_of(tr)
    if c is None or g.target is None:
        return _never("bowl", weight)
    s, aimed, settled = _offsets_at_release(tr, g, c)
    inside = settled <= 0.04 and tr.bottom(g.source, s) <= tr.top(g.target, s)
    intent, why = aim(tr, g, c, _within(tr, g, 0.04), tr.xy(g.target, c.grasp))
    done = c.release is not None and aimed <= 0.04 and inside
    return StageVerdict("bowl", weight, intent, done, f"{why}; released {aimed:.3f} m off, inside: {inside}")


def slot_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    c = carry_of(tr)
    if c is None or g.target is None:
        return _never("slot", weight)
    s = tr.settle(c.end)
    off = float(np.linalg.norm(tr.xy(g.source, s) - tr.xy(g.target, s)))
    on_table = tr.bottom(g.source, s) <= STAGE_TABLE
    intent, why = aim(tr, g, c, _within(tr, g, 0.07), tr.xy(g.target, c.grasp))
    done = c.release is not None and off <= 0.05 and on_table
    return StageVerdict("slot", weight, intent, done, f"{why}; settled {off:.3f} m off the slot")


def on_label(tr: Track, xy: NDArray[np.float64], label: str, row: int, margin: float) -> bool:
    """Whether the point `xy` lies on `label` (its rectangle grown by `margin`) at `row`."""
    lo = tr.layout.obj(label)
    v = xy - tr.xy(label, row)
    yaw = tr.yaw(label, row)
    lx = v[0] * math.cos(yaw) + v[1] * math.sin(yaw)
    ly = -v[0] * math.sin(yaw) + v[1] * math.cos(yaw)
    return bool(abs(lx) <= lo.params[0] + margin and abs(ly) <= lo.params[1] + margin)


def label_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    """Scene 3: which label the bar is taken to (intent) and whether it rests on it at the end (execution)."""
    c = carry_of(tr)
    if c is None or g.target is None:
        return _never("label", weight)
    label = g.target

    def at_goal(row: int) -> bool:
        return on_label(tr, tr.xy(g.source, row), label, row, 0.03)

    intent, why = aim(tr, g, c, at_goal, tr.xy(g.target, c.grasp))
    last = tr.last
    done = c.release is not None and on_label(tr, tr.xy(g.source, last), g.target, last, 0.0)
    done = done and tr.bottom(g.source, last) <= STAGE_TABLE
    return StageVerdict("label", weight, intent, done, f"{why}; on {g.target} at the end: {done}")


def yaw_error_deg(yaw: float, target_deg: float) -> float:
    """Yaw error modulo 180 degrees (a bar looks the same turned half way round)."""
    err = (math.degrees(yaw) - target_deg) % 180.0
    return float(min(err, 180.0 - err))


def orientation_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    if g.yaw_deg is None:
        return _never("orientation", weight, "no target yaw")
    c = carry_of(tr)
    err = yaw_error_deg(tr.yaw(g.source, tr.last), g.yaw_deg)
    regrasp = None if c is None or c.release is None else tr.next_event(tr.grasps, c.release)
    detail = f"final yaw error {err:.0f} deg" + (f"; grasped again at {regrasp}" if regrasp else "")
    return StageVerdict("orientation", weight, err <= 40.0 and regrasp is None, err <= 20.0, detail)


def push_source(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    """Source of a push: among the objects first approached (pads within 0.10 m; the pads wait beside the
    object, often as near to its neighbour), and the first set in motion."""
    first = tr.first_approach_all(0, tr.last, radius=PUSH_RADIUS)
    if first is not None and g.source not in first[1]:
        return StageVerdict("source", weight, False, False, f"first approached {first[1]} at step {first[0]}")
    found = contact_row(tr)
    if found is None:
        what = "nothing was set in motion" + (f"; approached {g.source}" if first else "")
        return StageVerdict("source", weight, first is not None, False, what)
    row, name = found
    if name != g.source:
        return StageVerdict("source", weight, False, False, f"first moved {name} at step {row}, not {g.source}")
    dist = float(np.linalg.norm(tr.xy(name, row) - tr.tcp_xy(row)))
    ok = dist <= SELECT_RADIUS + 0.03
    return StageVerdict("source", weight, True, ok, f"first moved {name} at step {row}, TCP {dist:.3f} m away")


def push_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    if g.direction is None:
        return _never("push", weight, "no direction")
    found = contact_row(tr)
    approach = tr.first_approach(0, tr.last, radius=PUSH_RADIUS)
    row = found[0] if found is not None else (approach[0] if approach is not None else None)
    if row is None:
        return _never("push", weight, "nothing was pushed or approached")
    d = np.array(DIRECTION_VECTORS[g.direction])
    behind = float((tr.tcp_xy(row) - tr.xy(g.source, row)) @ d) < 0
    disp = tr.xy(g.source, tr.last) - tr.xy(g.source, 0)
    moved, angle = float(np.linalg.norm(disp)), angle_deg(disp, d)
    along = angle <= 45.0
    intent = behind and (along or moved < 0.01)
    detail = f"moved {moved:.3f} m, {angle:.0f} deg off {g.direction}; pusher behind: {behind}"
    return StageVerdict("push", weight, intent, moved >= 0.02 and along, detail)


def second_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    first = tr.grasps[0] if tr.grasps else None
    if first is None or g.second is None:
        return _never("second", weight, "the gripper never closed")
    lifted = tr.lift_row(g.source, first, 0.01)
    release = tr.next_event(tr.opens, lifted if lifted is not None else first)
    if lifted is None or release is None:
        return _never("second", weight, f"{g.source} was not lifted and let go first")
    close = tr.next_event(tr.grasps, release)
    intent, why = choose(tr, release, close, g.second, "the second object", skip=g.source)
    if not intent or close is None:
        return StageVerdict("second", weight, intent, False, why)
    rise = tr.rise(g.second, close, tr.next_event(tr.opens, close))
    held, how = held_to_end(tr, g.second, close, 0.01)
    return StageVerdict("second", weight, True, rise >= 0.01 and held, f"{why}; lifted {rise:.3f} m; {how}")
