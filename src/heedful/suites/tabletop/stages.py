"""Stage evaluators, part 1: the trajectory view, the verdict type, approaches and grasps, the source
stage and the finish stage. Placements, pushes and sequences are in `placement.py`, the route in `route.py`.

Every evaluator returns raw (ungated) verdicts with a short reason; `scoring.py` applies weights and
gates. Intent is the semantic choice (which object, which target, which direction), Execution the
physical sub-goal (RoboFollow, appendix B). Thresholds are REFERENCES section 1 unless said otherwise.

Commitment to an object (judged before contact). The TCP is *down at* an object at a row at which it
is within 0.07 m of the object's center in xy (0.10 m for a push, whose pads wait beside the object) and
at most DOWN_ABOVE (0.015 m) above the object's top: the fingers reach around it (a descent to grasp
height). Among several, the nearest in xy (a stack: the one nearest the TCP's height; a push: any of
them). A *grasp* is a close at which the TCP is down at some object; a close in the air (higher, or away
from everything) is no choice and does not count (a pantomime grasp over the object earns nothing).
Travel at the clearing height never commits to anything.

Source. Intent: the first object the TCP is down at is the source, and the first grasp (if any) is on
the source, nearest in xy within 0.07 m. Execution: the grasp lifted the source >= 0.01 m (0.03 m for a
scene 2 pickup); for a pickup, also held between both fingers at the end and still that much up, with
no release. Worked examples (pickup of the red cube, weight 0.8):
  - descends on the red cube with open fingers, never closes: intent True, execution False;
  - descends on the blue cube first, then grasps the red one: intent False ("first down at blue_cube");
  - closes 8 cm above the red cube, never lower: intent False (no commitment);
  - grasps the red cube, lifts 10 cm, opens halfway home: intent True, execution False (released).

Finish. Intent: the TCP returns within 0.12 m of home and stays, with no re-close after the main action,
no touch of any object more than GRACE rows after it (extra manipulations after the task), and, for
pickups and sequences, no release of the held object either (the task ends holding it). Execution: the
same within 0.10 m. Example: "pick up X" done by picking X and putting it down again before going home
keeps source intent, loses finish intent (0.8 of 1.0); a placement followed by shoving another object
aside loses finish intent and execution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.config import HOME_POS
from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.model import Grounded, Layout

SELECT_RADIUS = 0.07
DOWN_ABOVE = 0.015  # TCP at most this far above an object's top: down at it (was 0.05 m: issue 38)
GRACE = 10  # rows after the main action's end during which the fingers may still touch what they let go
PUSH_RADIUS = 0.10
SETTLE_ROWS = 10  # rows (0.5 s) after the gripper opens at which a placement is judged
CONTACT_MOVE = 0.005
HOLD_ACTIONS = ("pickup", "sequence_pickups")  # tasks that end holding an object
HOME = np.array(HOME_POS)


@dataclass(frozen=True)
class StageVerdict:
    """Raw verdicts of one stage (before gating); plain `bool` / `float` whatever the caller passes."""

    name: str
    weight: float
    intent: bool
    execution: bool
    detail: str

    def __post_init__(self) -> None:
        # numpy comparisons give numpy.bool, which records cannot serialize: convert here, once.
        object.__setattr__(self, "weight", float(self.weight))
        object.__setattr__(self, "intent", bool(self.intent))
        object.__setattr__(self, "execution", bool(self.execution))
        object.__setattr__(self, "detail", str(self.detail))


class Track:
    """Read-only views of a trajectory for scoring; `layout` gives each object's shape and size."""

    def __init__(self, traj: Trajectory, layout: Layout) -> None:
        self.traj, self.layout = traj, layout
        self.last = len(traj) - 1
        self.closes = traj.event_steps("close")
        self.opens = traj.event_steps("open")
        self.solid = tuple(o.name for o in layout.objects if o.shape != "label")
        mask = self.approaches(0, self.last) if len(traj) else np.zeros((0, len(self.solid)), dtype=bool)
        self.grasps = [r for r in self.closes if bool(mask[r].any())]

    def xy(self, name: str, row: int) -> NDArray[np.float64]:
        return np.asarray(self.traj.object_track(name)[row, :2], dtype=np.float64)

    def z(self, name: str, row: int) -> float:
        return float(self.traj.object_track(name)[row, 2])

    def top_offset(self, name: str) -> float:
        o = self.layout.obj(name)
        return o.height if o.shape in ("bowl", "label") else o.height / 2

    def bottom(self, name: str, row: int) -> float:
        o = self.layout.obj(name)
        return self.z(name, row) - (0.0 if o.shape in ("bowl", "label") else o.height / 2)

    def top(self, name: str, row: int) -> float:
        return self.z(name, row) + self.top_offset(name)

    def yaw(self, name: str, row: int) -> float:
        w, x, y, z = self.traj.object_track(name)[row, 3:7]
        return float(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))

    def tcp_xy(self, row: int) -> NDArray[np.float64]:
        return np.asarray(self.traj.tcp_pos[row, :2], dtype=np.float64)

    def nearest(self, row: int, among: tuple[str, ...] | None = None) -> tuple[str, float]:
        """The object nearest in xy to the TCP at `row` (labels excluded), and its distance.

        Objects within 1 cm of the nearest xy distance (a stack, a bowl and its content) are told apart by
        height: the one whose center is nearest the TCP's height is the one between the fingers.
        """
        tcp = self.tcp_xy(row)
        tcp_z = float(self.traj.tcp_pos[row, 2])
        names = among if among else self.solid
        dists = {n: float(np.linalg.norm(self.xy(n, row) - tcp)) for n in names}
        closest = min(dists.values())
        tied = [n for n, d in dists.items() if d <= closest + 0.01]
        name = min(tied, key=lambda n: (abs(self.z(n, row) - tcp_z), n))
        return name, dists[name]

    def next_event(self, events: list[int], after: int) -> int | None:
        return next((r for r in events if r > after), None)

    def settle(self, row: int) -> int:
        return min(row + SETTLE_ROWS, self.last)

    def rise(self, name: str, start: int, end: int | None = None) -> float:
        """Highest rise of `name` above its height at `start`, over rows start..end."""
        stop = self.last if end is None else end
        z = self.traj.object_track(name)[start : stop + 1, 2]
        return float(z.max() - z[0]) if z.size else 0.0

    def lift_row(self, name: str, start: int, threshold: float) -> int | None:
        """First row after `start` at which `name` has risen `threshold` above its height at `start`."""
        z = self.traj.object_track(name)[start:, 2]
        above = np.flatnonzero(z - z[0] >= threshold)
        return start + int(above[0]) if above.size else None

    def approaches(self, start: int, end: int, radius: float = SELECT_RADIUS) -> NDArray[np.bool_]:
        """(rows, objects) mask over rows start..end: the TCP is down at that object (see the module doc)."""
        idx = [self.traj.object_names.index(n) for n in self.solid]
        poses = self.traj.object_poses[start : end + 1, idx, :3]
        tcp = self.traj.tcp_pos[start : end + 1]
        flat = np.linalg.norm(poses[:, :, :2] - tcp[:, None, :2], axis=2)
        tops = poses[:, :, 2] + np.array([self.top_offset(n) for n in self.solid])
        return np.asarray((flat <= radius) & (tcp[:, None, 2] - tops <= DOWN_ABOVE))

    def first_approach(
        self, start: int, end: int, radius: float = SELECT_RADIUS, skip: str | None = None
    ) -> tuple[int, str] | None:
        """The first (row, object) the TCP approaches in rows start..end, ignoring rows at which it is
        still down at `skip` (the object it just let go of)."""
        found = self.first_approach_all(start, end, radius, skip)
        return None if found is None else (found[0], self.nearest(found[0], found[1])[0])

    def first_approach_all(
        self, start: int, end: int, radius: float = SELECT_RADIUS, skip: str | None = None
    ) -> tuple[int, tuple[str, ...]] | None:
        """The first row of rows start..end at which the TCP approaches any object, and all it approaches."""
        if end < start:
            return None
        mask = self.approaches(start, end, radius)
        for i in np.flatnonzero(mask.any(axis=1)):
            near = tuple(n for n, m in zip(self.solid, mask[i], strict=True) if m)
            if skip is None or skip not in near:
                return start + int(i), near
        return None


def select_at(tr: Track, row: int | None, wanted: str, what: str) -> tuple[bool, str]:
    """Intent of a grasp: the object nearest the TCP at the grasp `row` is `wanted`, within 0.07 m."""
    if row is None:
        return False, f"the gripper never closed at grasp height for {what}"
    name, dist = tr.nearest(row)
    if name != wanted or dist > SELECT_RADIUS:
        return False, f"closed at step {row} on {name} ({dist:.3f} m), not {wanted}"
    return True, f"closed on {name} at step {row}"


def choose(
    tr: Track, start: int, close: int | None, wanted: str, what: str, skip: str | None = None
) -> tuple[bool, str]:
    """Intent of choosing `wanted`: the first object approached after `start` and the object closed on."""
    end = close if close is not None else tr.last
    first = tr.first_approach(start, end, skip=skip)
    if first is None:
        if close is None:
            return False, f"the gripper never went down to {what}"
        return select_at(tr, close, wanted, what)
    row, name = first
    if name != wanted:
        return False, f"first down at {name} at step {row}, not {wanted}"
    if close is None:
        return True, f"down at {name} at step {row} but never closed"
    return select_at(tr, close, wanted, what)


def held_to_end(tr: Track, name: str, close: int, lift: float) -> tuple[bool, str]:
    """Whether `name`, grasped at `close`, is never released and still `lift` above its start at the end."""
    release = tr.next_event(tr.opens, close)
    if release is not None:
        return False, f"released at step {release}"
    up = tr.z(name, tr.last) - tr.z(name, close)
    between = int(tr.traj.held[tr.last]) == tr.traj.object_names.index(name)
    if up < lift or not between:
        return False, f"not held between the fingers at the end ({up:.3f} m above its start)"
    return True, f"held {up:.3f} m up at the end"


def source_stage(tr: Track, g: Grounded, weight: float, lift: float) -> StageVerdict:
    """Stage 1: which object is chosen (intent), grasped and lifted (execution). Pushes: `push_source`."""
    close = tr.grasps[0] if tr.grasps else None
    intent, why = choose(tr, 0, close, g.source, "the source")
    if not intent or close is None:
        return StageVerdict("source", weight, intent, False, why)
    rise = tr.rise(g.source, close, tr.next_event(tr.opens, close))
    ok, why = rise >= lift, f"{why}; lifted {rise:.3f} m (needs {lift} m)"
    if ok and g.action == "pickup":
        ok, held = held_to_end(tr, g.source, close, lift)
        why += f"; {held}"
    return StageVerdict("source", weight, True, ok, why)


def contact_row(tr: Track) -> tuple[int, str] | None:
    """The first row at which an object (not a label) has moved CONTACT_MOVE in xy, and which one."""
    poses = tr.traj.object_poses[:, [tr.traj.object_names.index(n) for n in tr.solid], :2]
    moved = np.linalg.norm(poses - poses[0], axis=2) >= CONTACT_MOVE
    rows = np.flatnonzero(moved.any(axis=1))
    if not rows.size:
        return None
    row = int(rows[0])
    movers = [n for n, m in zip(tr.solid, moved[row], strict=True) if m]
    tcp = tr.tcp_xy(row)
    return row, min(movers, key=lambda n: float(np.linalg.norm(tr.xy(n, row) - tcp)))


def main_end(tr: Track, g: Grounded) -> int | None:
    """The row at which the task's main action ended: the grasp (pickups), the second grasp (sequences),
    the first contact (push) or the release (placements)."""
    first = tr.grasps[0] if tr.grasps else None
    if g.action == "push":
        found = contact_row(tr)
        return None if found is None else push_end(tr, g.source, found[0])
    if first is None:
        return None
    if g.action == "pickup":
        return first
    if g.action == "sequence_pickups":
        lifted = tr.lift_row(g.source, first, 0.01)
        return tr.next_event(tr.grasps, lifted if lifted is not None else first)
    return tr.next_event(tr.opens, first)


def push_end(tr: Track, name: str, start: int) -> int:
    """The last row of the push that set `name` in motion at `start`: the gripper's touches of it from
    there on, with gaps of at most GRACE rows, end there (`start` if it was never touched)."""
    i = tr.traj.object_names.index(name)
    rows = np.flatnonzero(tr.traj.touched[:, i])
    rows = rows[rows >= start - GRACE]
    end = start
    for r in rows.tolist():
        if r > end + GRACE:
            break
        end = max(end, r)
    return end


def touched_after(tr: Track, end: int, keep: str | None) -> tuple[int, str] | None:
    """The first (row, object) the gripper touches more than GRACE rows after `end`, other than `keep`."""
    for r in range(end + GRACE + 1, tr.last + 1):
        for i in np.flatnonzero(tr.traj.touched[r]).tolist():
            name = tr.traj.object_names[i]
            if name != keep:
                return r, name
    return None


def finish_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    """The retreat: home and staying there, without grasping again (or, holding tasks, letting go)."""
    end = main_end(tr, g)
    if end is None:
        return StageVerdict("finish", weight, False, False, "the main action never ended")
    reclosed = [r for r in tr.closes if r > end]
    released = [r for r in tr.opens if r > end] if g.action in HOLD_ACTIONS else []
    keep = (g.second if g.action == "sequence_pickups" else g.source) if g.action in HOLD_ACTIONS else None
    extra = touched_after(tr, end, keep)
    dist = np.linalg.norm(tr.traj.tcp_pos[end:] - HOME, axis=1)
    verdicts = []
    for radius in (0.12, 0.10):
        inside = np.flatnonzero(dist <= radius)
        stays = bool(inside.size) and bool(np.all(dist[int(inside[0]) :] <= radius))
        verdicts.append(stays and not reclosed and not released and extra is None)
    detail = f"final distance from home {float(dist[-1]):.3f} m"
    detail += f"; closed again at {reclosed[0]}" if reclosed else ""
    detail += f"; let go at {released[0]}" if released else ""
    detail += f"; touched {extra[1]} again at {extra[0]}" if extra else ""
    return StageVerdict("finish", weight, verdicts[0], verdicts[1], detail)
