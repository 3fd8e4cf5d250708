"""Stage evaluators: each judges one stage of a task from the recorded trajectory (TCP pose, gripper
events, every object's pose per control step), as RoboFollow's stage-wise scoring does.

Every evaluator returns raw (ungated) intent and execution verdicts with a short reason; `scoring.py`
applies the weights and gates. Thresholds are REFERENCES section 1:

- source: at the first gripper close, the object nearest in xy to the TCP is the source, within 0.07 m;
  executed when the source rises >= 0.01 m (0.03 m for scene 2 pickups). For a push, the first object
  set in motion is judged instead of a grasp.
- relative place, judged when the object settles after the gripper opens: within 45 degrees of the
  relation and 0.12 m of the anchor (intent), and back on the table within 0.02 m (execution).
- stack: xy offset <= 0.03 m at release (intent), resting on top after settling (execution); scene 4
  uses 0.07 m / 0.05 m. Bowl: xy <= 0.04 m at release (intent), inside after settling (execution).
  Slot: 0.07 m (intent) / 0.05 m on the table (execution).
- push: moved >= 0.01 m (intent) / >= 0.02 m (execution) within 45 degrees of the commanded direction,
  with the gripper behind the source when contact starts.
- route: while lifted, the object crosses the barrier over an allowed bar and never over a forbidden one
  (intent); it crosses within the bar's length above its top and keeps 0.02 m from forbidden bars (execution).
- second pickup of a sequence: the first close after the first object's lift must select the second.
- finish: the TCP returns within 0.12 m (intent) / 0.10 m (execution) of home and stays, with no re-close.
- orientation (scene 3): final yaw error modulo 180 degrees <= 40 (intent) / <= 20 (execution), the
  center on the label (intent allows 0.03 m beyond its edge).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.config import HOME_POS
from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.grounding import DIRECTION_VECTORS, angle_deg, relation_angle
from heedful.suites.tabletop.model import Grounded, Layout

SELECT_RADIUS = 0.07
SETTLE_ROWS = 10  # rows (0.5 s) after the gripper opens at which a placement is judged
CONTACT_MOVE = 0.005
HOME = np.array(HOME_POS)


@dataclass(frozen=True)
class StageVerdict:
    """Raw verdicts of one stage (before gating)."""

    name: str
    weight: float
    intent: bool
    execution: bool
    detail: str


class Track:
    """Read-only views of a trajectory for scoring; `layout` gives each object's shape and size."""

    def __init__(self, traj: Trajectory, layout: Layout) -> None:
        self.traj, self.layout = traj, layout
        self.last = len(traj) - 1
        self.closes = traj.event_steps("close")
        self.opens = traj.event_steps("open")

    def xy(self, name: str, row: int) -> NDArray[np.float64]:
        return np.asarray(self.traj.object_track(name)[row, :2], dtype=np.float64)

    def z(self, name: str, row: int) -> float:
        return float(self.traj.object_track(name)[row, 2])

    def bottom(self, name: str, row: int) -> float:
        o = self.layout.obj(name)
        return self.z(name, row) - (0.0 if o.shape in ("bowl", "label") else o.height / 2)

    def top(self, name: str, row: int) -> float:
        o = self.layout.obj(name)
        return self.z(name, row) + (o.height if o.shape in ("bowl", "label") else o.height / 2)

    def yaw(self, name: str, row: int) -> float:
        w, x, y, z = self.traj.object_track(name)[row, 3:7]
        return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))

    def tcp_xy(self, row: int) -> NDArray[np.float64]:
        return np.asarray(self.traj.tcp_pos[row, :2], dtype=np.float64)

    def nearest(self, row: int) -> tuple[str, float]:
        """The object nearest in xy to the TCP at `row` (labels excluded), and its distance.

        Objects within 1 cm of the nearest xy distance (a stack, a bowl and its content) are told apart by
        height: the one whose center is nearest the TCP's height is the one between the fingers.
        """
        tcp = self.tcp_xy(row)
        tcp_z = float(self.traj.tcp_pos[row, 2])
        dists = {
            o.name: float(np.linalg.norm(self.xy(o.name, row) - tcp)) for o in self.layout.objects if o.shape != "label"
        }
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


def select_at(tr: Track, row: int | None, wanted: str, what: str) -> tuple[bool, str]:
    """Intent of a grasp: the object nearest the TCP at the close `row` is `wanted`, within 0.07 m."""
    if row is None:
        return False, f"the gripper never closed for {what}"
    name, dist = tr.nearest(row)
    if name != wanted or dist > SELECT_RADIUS:
        return False, f"closed at step {row} on {name} ({dist:.3f} m), not {wanted}"
    return True, f"closed on {name} at step {row}"


def source_stage(tr: Track, g: Grounded, weight: float, lift: float) -> StageVerdict:
    if g.action == "push":
        return _push_contact(tr, g, weight)
    close = tr.closes[0] if tr.closes else None
    intent, why = select_at(tr, close, g.source, "the source")
    if not intent or close is None:
        return StageVerdict("source", weight, intent, False, why)
    end = tr.next_event(tr.opens, close)
    rise = tr.rise(g.source, close, end)
    ok = rise >= lift
    return StageVerdict("source", weight, True, ok, f"{why}; lifted {rise:.3f} m (needs {lift} m)")


def contact_row(tr: Track) -> tuple[int, str] | None:
    """The first row at which an object (not a label) has moved CONTACT_MOVE in xy, and which one."""
    names = [o.name for o in tr.layout.objects if o.shape != "label"]
    poses = tr.traj.object_poses[:, [tr.traj.object_names.index(n) for n in names], :2]
    moved = np.linalg.norm(poses - poses[0], axis=2) >= CONTACT_MOVE
    rows = np.flatnonzero(moved.any(axis=1))
    if not rows.size:
        return None
    row = int(rows[0])
    movers = [n for n, m in zip(names, moved[row], strict=True) if m]
    tcp = tr.tcp_xy(row)
    return row, min(movers, key=lambda n: float(np.linalg.norm(tr.xy(n, row) - tcp)))


def _push_contact(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    found = contact_row(tr)
    if found is None:
        return StageVerdict("source", weight, False, False, "nothing was set in motion")
    row, name = found
    if name != g.source:
        return StageVerdict("source", weight, False, False, f"first moved {name} at step {row}, not {g.source}")
    dist = float(np.linalg.norm(tr.xy(name, row) - tr.tcp_xy(row)))
    ok = dist <= SELECT_RADIUS + 0.03
    return StageVerdict("source", weight, True, ok, f"first moved {name} at step {row}, TCP {dist:.3f} m away")


def _released(tr: Track, g: Grounded) -> tuple[int, int] | None:
    close = tr.closes[0] if tr.closes else None
    if close is None:
        return None
    release = tr.next_event(tr.opens, close)
    return None if release is None else (release, tr.settle(release))


def relative_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    rows = _released(tr, g)
    if rows is None or g.target is None or g.relation is None:
        return StageVerdict("place", weight, False, False, "the source was never released")
    _, s = rows
    v = tr.xy(g.source, s) - tr.xy(g.target, s)
    angle, dist = relation_angle(v, g.relation), float(np.linalg.norm(v))
    intent = angle <= 45.0 and dist <= 0.12
    bottom = tr.bottom(g.source, s)
    detail = f"{angle:.0f} deg from {g.relation} {g.target}, {dist:.3f} m away, bottom at {bottom:.3f} m"
    return StageVerdict("place", weight, intent, intent and bottom <= 0.02, detail)


def stack_stage(tr: Track, g: Grounded, weight: float, aim: float, rest: float) -> StageVerdict:
    rows = _released(tr, g)
    if rows is None or g.target is None:
        return StageVerdict("stack", weight, False, False, "the source was never released")
    r, s = rows
    aimed = float(np.linalg.norm(tr.xy(g.source, r) - tr.xy(g.target, r)))
    settled = float(np.linalg.norm(tr.xy(g.source, s) - tr.xy(g.target, s)))
    on_top = tr.bottom(g.source, s) >= tr.top(g.target, s) - 0.01
    detail = f"released {aimed:.3f} m off {g.target}, settled {settled:.3f} m off, on top: {on_top}"
    return StageVerdict("stack", weight, aimed <= aim, aimed <= aim and settled <= rest and on_top, detail)


def bowl_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    rows = _released(tr, g)
    if rows is None or g.target is None:
        return StageVerdict("bowl", weight, False, False, "the source was never released")
    r, s = rows
    aimed = float(np.linalg.norm(tr.xy(g.source, r) - tr.xy(g.target, r)))
    settled = float(np.linalg.norm(tr.xy(g.source, s) - tr.xy(g.target, s)))
    inside = settled <= 0.04 and tr.bottom(g.source, s) <= tr.top(g.target, s)
    return StageVerdict("bowl", weight, aimed <= 0.04, aimed <= 0.04 and inside, f"released {aimed:.3f} m off")


def slot_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    rows = _released(tr, g)
    if rows is None or g.target is None:
        return StageVerdict("slot", weight, False, False, "the source was never released")
    _, s = rows
    off = float(np.linalg.norm(tr.xy(g.source, s) - tr.xy(g.target, s)))
    on_table = tr.bottom(g.source, s) <= 0.02
    return StageVerdict("slot", weight, off <= 0.07, off <= 0.05 and on_table, f"settled {off:.3f} m off the slot")


def push_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    found = contact_row(tr)
    if found is None or g.direction is None:
        return StageVerdict("push", weight, False, False, "nothing was pushed")
    row = found[0]
    d = np.array(DIRECTION_VECTORS[g.direction])
    behind = float((tr.tcp_xy(row) - tr.xy(g.source, row)) @ d) < 0
    disp = tr.xy(g.source, tr.last) - tr.xy(g.source, 0)
    moved, angle = float(np.linalg.norm(disp)), angle_deg(disp, d)
    along = angle <= 45.0
    detail = f"moved {moved:.3f} m, {angle:.0f} deg off {g.direction}; gripper behind: {behind}"
    return StageVerdict("push", weight, behind and moved >= 0.01 and along, moved >= 0.02 and along, detail)


def second_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    first = tr.closes[0] if tr.closes else None
    if first is None or g.second is None:
        return StageVerdict("second", weight, False, False, "the gripper never closed")
    lifted = tr.lift_row(g.source, first, 0.01)
    start = lifted if lifted is not None else first
    close = tr.next_event(tr.closes, start)
    intent, why = select_at(tr, close, g.second, "the second object")
    if not intent or close is None:
        return StageVerdict("second", weight, intent, False, why)
    rise = tr.rise(g.second, close, tr.next_event(tr.opens, close))
    return StageVerdict("second", weight, True, rise >= 0.01, f"{why}; lifted {rise:.3f} m")


def main_end(tr: Track, g: Grounded) -> int | None:
    """The row at which the task's main action ended: the grasp (pickups), the second grasp (sequences),
    the first contact (push) or the release (placements)."""
    first = tr.closes[0] if tr.closes else None
    if g.action == "push":
        found = contact_row(tr)
        return None if found is None else found[0]
    if first is None:
        return None
    if g.action == "pickup":
        return first
    if g.action == "sequence_pickups":
        lifted = tr.lift_row(g.source, first, 0.01)
        return tr.next_event(tr.closes, lifted if lifted is not None else first)
    return tr.next_event(tr.opens, first)


def finish_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    end = main_end(tr, g)
    if end is None:
        return StageVerdict("finish", weight, False, False, "the main action never ended")
    reclosed = [r for r in tr.closes if r > end]
    dist = np.linalg.norm(tr.traj.tcp_pos[end:] - HOME, axis=1)
    verdicts = []
    for radius in (0.12, 0.10):
        inside = np.flatnonzero(dist <= radius)
        stays = bool(inside.size) and bool(np.all(dist[int(inside[0]) :] <= radius))
        verdicts.append(stays and not reclosed)
    detail = f"final distance from home {float(dist[-1]):.3f} m" + (
        f"; closed again at {reclosed[0]}" if reclosed else ""
    )
    return StageVerdict("finish", weight, verdicts[0], verdicts[1], detail)


def yaw_error_deg(yaw: float, target_deg: float) -> float:
    """Yaw error modulo 180 degrees (a bar looks the same turned half way round)."""
    err = (math.degrees(yaw) - target_deg) % 180.0
    return min(err, 180.0 - err)


def on_label(tr: Track, name: str, label: str, row: int, margin: float) -> bool:
    lo = tr.layout.obj(label)
    v = tr.xy(name, row) - tr.xy(label, row)
    yaw = tr.yaw(label, row)
    lx = v[0] * math.cos(yaw) + v[1] * math.sin(yaw)
    ly = -v[0] * math.sin(yaw) + v[1] * math.cos(yaw)
    return bool(abs(lx) <= lo.params[0] + margin and abs(ly) <= lo.params[1] + margin)


def orientation_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    if g.target is None or g.yaw_deg is None:
        return StageVerdict("orientation", weight, False, False, "no target label or yaw")
    err = yaw_error_deg(tr.yaw(g.source, tr.last), g.yaw_deg)
    near = on_label(tr, g.source, g.target, tr.last, 0.03)
    inside = on_label(tr, g.source, g.target, tr.last, 0.0) and tr.bottom(g.source, tr.last) <= 0.02
    detail = f"final yaw error {err:.0f} deg, on {g.target}: {inside}"
    return StageVerdict("orientation", weight, near and err <= 40.0, inside and err <= 20.0, detail)
