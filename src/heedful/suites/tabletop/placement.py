"""Stage evaluators, part 2: where the carried object goes (relative place, stack, bowl, slot, scene 3
label), pushes, the second pickup of a sequence and the scene 3 orientation.

Placement intent is the target the motion heads for; it is judged at the release (the first open after
the grasp; the last row if the object is never let go), in three steps:

1. at the instructed target (the action's own test, below) -> intent True;
2. else, if it was put down (let go within 0.03 m above whatever is under it) over another object or
   label, or (relative place) within 0.12 m of an object in the wrong relation -> intent False: a wrong
   target is penalized even if the final state looks plausible;
3. else (dropped from higher, put down in the open, or still carried at the end): intent iff the carry
   headed for the goal, i.e. the TCP's
   displacement from the grasp to the release is within 30 degrees of the direction to the goal point
   and covers at least a third of the way.

Execution is the physical sub-goal and needs an actual release. Worked examples, "stack the red cube on
the blue cube" 0.13 m to its right:
  - released 1 cm over the blue cube, rests on it: intent True, execution True;
  - put down on the blue cylinder (beyond it): step 2, intent False;
  - opened 6.5 cm along the way, 8 cm up (a drop halfway): step 3, 0 degrees, half the way: intent True,
    execution False;
  - carried back toward home and held there: step 3, 180 degrees: intent False.
Action tests: relative place, within 45 degrees of the relation and 0.12 m of the anchor after settling
(execution adds: bottom within 0.02 m of the table); stack, xy <= 0.03 m at release (scene 4: 0.07 m;
execution: settled <= 0.03 m / 0.05 m and resting on top); bowl, xy <= 0.04 m at release (execution:
inside after settling); slot, settled <= 0.07 m (execution: <= 0.05 m, on the table); scene 3 label,
center on the label within 0.03 m of its edge (execution: on it at the end, resting on the table).

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
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

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
HEADING_SHARE = 1 / 3
NEAR_OTHER = 0.02  # "over another object": within its footprint radius plus this
PUT_DOWN = 0.03  # let go at most this far above its support: put down, not dropped
RELATIVE_REACH = 0.12


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
    if not tr.closes:
        return None
    grasp = tr.closes[0]
    return Carry(grasp, tr.next_event(tr.opens, grasp), tr.last)


def heading(tr: Track, c: Carry, goal: NDArray[np.float64]) -> tuple[bool, str]:
    """Step 3: the carry's direction and share of the way toward `goal` (TCP, grasp -> release)."""
    start = tr.tcp_xy(c.grasp)
    moved, want = tr.tcp_xy(c.end) - start, goal - start
    span = float(np.linalg.norm(want))
    if span < 1e-6:
        return True, "released at the goal"
    share = float(moved @ want) / (span * span)
    angle = angle_deg(moved, want)
    ok = angle <= HEADING_DEG and share >= HEADING_SHARE
    return ok, f"carried {share:.0%} of the way, {angle:.0f} deg off the goal's direction"


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


def lowered(tr: Track, g: Grounded, c: Carry) -> bool:
    """Whether the source was put down (let go within PUT_DOWN of whatever is under it), not dropped."""
    if c.release is None:
        return False
    row, xy = c.release, tr.xy(g.source, c.release)
    under = [
        tr.top(o.name, row)
        for o in tr.layout.objects
        if o.name != g.source
        and o.shape != "label"
        and float(np.linalg.norm(xy - tr.xy(o.name, row))) <= o.footprint_radius + NEAR_OTHER
    ]
    return tr.bottom(g.source, row) <= max([0.0, *under]) + PUT_DOWN


def aim(
    tr: Track, g: Grounded, c: Carry, at_goal: bool, goal: NDArray[np.float64], elsewhere: str | None = None
) -> tuple[bool, str]:
    """Placement intent in the three steps of the module doc; `elsewhere` names a wrong spot the caller
    found (relative places: an object the source was put down by)."""
    if at_goal:
        return True, "put down at the target" if c.release is not None else "held over the target"
    if lowered(tr, g, c):
        other = elsewhere or over_other(tr, g, c.end, tr.xy(g.source, c.end))
        if other is not None:
            return False, f"put down at {other}, not at {g.target}"
    return heading(tr, c, goal)


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
    near = [o.name for o in tr.layout.objects if o.shape != "label" and o.name != g.source]
    by = [n for n in near if float(np.linalg.norm(here - tr.xy(n, s))) <= RELATIVE_REACH]
    intent, why = aim(tr, g, c, placed, _relative_goal(tr, g, c), by[0] if by else None)
    bottom = tr.bottom(g.source, s)
    detail = f"{why}; {relation_angle(v, g.relation):.0f} deg from {g.relation} {g.target}, "
    detail += f"{float(np.linalg.norm(v)):.3f} m away, bottom at {bottom:.3f} m"
    return StageVerdict("place", weight, intent, placed and bottom <= 0.02 and c.release is not None, detail)


def _relative_goal(tr: Track, g: Grounded, c: Carry) -> NDArray[np.float64]:
    """The expert's point for the relation (for `beside`, the side the carry leans to)."""
    anchor = tr.xy(_need(g.target), c.grasp)
    names = ("right_of", "left_of") if g.relation == "beside" else (str(g.relation),)
    points = [anchor + PLACE_DIST * np.array(RELATION_VECTORS[n]) for n in names]
    end = tr.tcp_xy(c.end)
    return min(points, key=lambda p: float(np.linalg.norm(p - end)))


def _need(name: str | None) -> str:
    return name if name is not None else ""


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
    on_top = tr.bottom(g.source, s) >= tr.top(g.target, s) - 0.01
    intent, why = aim(tr, g, c, aimed <= aim_radius, tr.xy(g.target, c.grasp))
    done = c.release is not None and aimed <= aim_radius and settled <= rest and on_top
    detail = f"{why}; released {aimed:.3f} m off {g.target}, settled {settled:.3f} m off, on top: {on_top}"
    return StageVerdict("stack", weight, intent, done, detail)


def bowl_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    c = carry_of(tr)
    if c is None or g.target is None:
        return _never("bowl", weight)
    s, aimed, settled = _offsets_at_release(tr, g, c)
    inside = settled <= 0.04 and tr.bottom(g.source, s) <= tr.top(g.target, s)
    intent, why = aim(tr, g, c, aimed <= 0.04, tr.xy(g.target, c.grasp))
    done = c.release is not None and aimed <= 0.04 and inside
    return StageVerdict("bowl", weight, intent, done, f"{why}; released {aimed:.3f} m off, inside: {inside}")


def slot_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    c = carry_of(tr)
    if c is None or g.target is None:
        return _never("slot", weight)
    s = tr.settle(c.end)
    off = float(np.linalg.norm(tr.xy(g.source, s) - tr.xy(g.target, s)))
    on_table = tr.bottom(g.source, s) <= 0.02
    intent, why = aim(tr, g, c, off <= 0.07, tr.xy(g.target, c.grasp))
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
    at_goal = on_label(tr, tr.xy(g.source, c.end), g.target, c.end, 0.03)
    intent, why = aim(tr, g, c, at_goal, tr.xy(g.target, c.grasp))
    last = tr.last
    done = c.release is not None and on_label(tr, tr.xy(g.source, last), g.target, last, 0.0)
    done = done and tr.bottom(g.source, last) <= 0.02
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
    regrasp = None if c is None or c.release is None else tr.next_event(tr.closes, c.release)
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
    first = tr.closes[0] if tr.closes else None
    if first is None or g.second is None:
        return _never("second", weight, "the gripper never closed")
    lifted = tr.lift_row(g.source, first, 0.01)
    release = tr.next_event(tr.opens, lifted if lifted is not None else first)
    if lifted is None or release is None:
        return _never("second", weight, f"{g.source} was not lifted and let go first")
    close = tr.next_event(tr.closes, release)
    intent, why = choose(tr, release, close, g.second, "the second object", skip=g.source)
    if not intent or close is None:
        return StageVerdict("second", weight, intent, False, why)
    rise = tr.rise(g.second, close, tr.next_event(tr.opens, close))
    held, how = held_to_end(tr, g.second, close, 0.01)
    return StageVerdict("second", weight, True, rise >= 0.01 and held, f"{why}; lifted {rise:.3f} m; {how}")
