"""Reference verifier: an independent second implementation of the tabletop scores (issue 38).

Written from the specification (docs/tabletop-scoring.md), not from the scorer: it imports no scoring code
(nothing from `stages`, `placement`, `route`, `completion`, `scoring` or `grounding`), only the recorded
trajectory, the grounded task and the layout's object sizes. It precomputes per-row facts as arrays
(`Facts`) and evaluates each rule of the specification on them. `benchmarks/tabletop_fuzz.py` and the
fuzz tests compare it with the scorer on generated behaviours: any difference is a bug in one of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.config import HOME_POS
from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.model import Grounded, Layout

F = NDArray[np.float64]

# The specification's numbers (docs/tabletop-scoring.md, "Numbers").
R_SELECT, R_PUSH, DOWN = 0.07, 0.10, 0.015
MOVE_CONTACT = 0.005
GRACE_ROWS, SETTLE_ROWS = 10, 10
PUT_DOWN_GAP, FOOT_MARGIN, HEAD_R, HEAD_DEG = 0.03, 0.02, 0.10, 30.0
REL_DIST, REL_DEG, PLACE_D = 0.12, 45.0, 0.10
STAGE_TABLE = 0.02
REST_N, REST_V, SUPPORT, TABLE, BOWL_R, BOWL_D = 5, 0.02, 0.01, 0.01, 0.04, 0.02
REF_D, LOOSE_D, CARRY_ROWS = 0.02, 0.02, 10
LIFT, LIFT_S2 = 0.01, 0.03  # a grasp lifts the source this much (a scene 2 pickup: LIFT_S2); a pickup ends so high
DIST_XY, DIST_Z, TOPPLE = 0.03, 0.02, 30.0
BAR_END, BAR_CLEAR = 0.01, 0.02
DIRS = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "forward": (0.0, 1.0), "backward": (0.0, -1.0)}
RELS = {"left_of": (-1.0, 0.0), "right_of": (1.0, 0.0), "behind": (0.0, 1.0), "in_front_of": (0.0, -1.0)}


@dataclass(frozen=True)
class Verdict:
    """What the verifier recomputed for one trial."""

    stages: tuple[tuple[str, bool, bool], ...]  # (name, gated intent, gated execution)
    intent: float
    execution: float
    complete: bool
    disturbed: tuple[str, ...]

    def comparable(self) -> dict[str, object]:
        out: dict[str, object] = {
            "intent": round(self.intent, 6),
            "execution": round(self.execution, 6),
            "complete": self.complete,
            "disturbed": sorted(self.disturbed),
        }
        for name, i, e in self.stages:
            out[f"{name}_intent"], out[f"{name}_execution"] = i, e
        return out


def _angle(v: F, w: F) -> float:
    a, b = float(np.hypot(*v)), float(np.hypot(*w))
    if a < 1e-9 or b < 1e-9:
        return 180.0
    return math.degrees(math.acos(min(1.0, max(-1.0, float(v @ w) / (a * b)))))


def _yaw(q: F) -> float:
    w, x, y, z = (float(v) for v in q)
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


class Facts:
    """Per-row facts of a trajectory: positions, tops and bottoms, the TCP, gripper events and contacts."""

    def __init__(self, traj: Trajectory, layout: Layout) -> None:
        self.names = traj.object_names
        self.spec = {o.name: o for o in layout.objects}
        self.solid = [n for n in self.names if self.spec[n].shape != "label"]
        self.T = len(traj)
        self.L = self.T - 1
        self.pos = traj.object_poses[:, :, :3]
        self.quat = traj.object_poses[:, :, 3:7]
        self.tcp = traj.tcp_pos
        self.time = traj.time
        self.cmd = traj.gripper_command
        self.held = traj.held
        self.touch = traj.touched
        closed = traj.gripper_command > 0
        self.close_rows = [t for t in range(1, self.T) if closed[t] and not closed[t - 1]]
        self.open_rows = [t for t in range(1, self.T) if closed[t - 1] and not closed[t]]
        half = np.array([self._half(n) for n in self.names])
        up = np.array([self.spec[n].height - self._half(n) for n in self.names])
        self.bottoms = self.pos[:, :, 2] - half
        self.tops = self.pos[:, :, 2] + up
        self.grasp_rows = [t for t in self.close_rows if self.down(t, R_SELECT)]

    def _half(self, n: str) -> float:
        o = self.spec[n]
        return 0.0 if o.shape in ("bowl", "label") else o.height / 2

    def i(self, n: str) -> int:
        return self.names.index(n)

    def xy(self, n: str, t: int) -> F:
        return np.asarray(self.pos[t, self.i(n), :2], dtype=np.float64)

    def z(self, n: str, t: int) -> float:
        return float(self.pos[t, self.i(n), 2])

    def bottom(self, n: str, t: int) -> float:
        return float(self.bottoms[t, self.i(n)])

    def top(self, n: str, t: int) -> float:
        return float(self.tops[t, self.i(n)])

    def yaw(self, n: str, t: int) -> float:
        return _yaw(self.quat[t, self.i(n)])

    def down(self, t: int, radius: float) -> list[str]:
        """Objects the TCP is down at on row t."""
        tcp = self.tcp[t]
        return [
            n
            for n in self.solid
            if float(np.hypot(*(self.xy(n, t) - tcp[:2]))) <= radius and float(tcp[2]) - self.top(n, t) <= DOWN
        ]

    def nearest(self, t: int, among: list[str]) -> tuple[str, float]:
        tcp = self.tcp[t]
        d = {n: float(np.hypot(*(self.xy(n, t) - tcp[:2]))) for n in among}
        low = min(d.values())
        tie = sorted((abs(self.z(n, t) - float(tcp[2])), n) for n in among if d[n] <= low + 0.01)
        return tie[0][1], d[tie[0][1]]

    def after(self, rows: list[int], t: int) -> int | None:
        for r in rows:
            if r > t:
                return r
        return None

    def first_down(self, start: int, end: int, radius: float, skip: str | None = None) -> tuple[int, list[str]] | None:
        for t in range(start, end + 1):
            at = self.down(t, radius)
            if at and (skip is None or skip not in at):
                return t, at
        return None

    def under_top(self, n: str, t: int) -> float:
        """Top of the highest other solid object under n's center (footprint + margin), else the table."""
        best = 0.0
        for m in self.solid:
            if m == n:
                continue
            near = float(np.hypot(*(self.xy(n, t) - self.xy(m, t)))) <= self.spec[m].footprint_radius + FOOT_MARGIN
            if near and self.top(m, t) <= self.z(n, t):
                best = max(best, self.top(m, t))
        return best

    def in_label(self, p: F, label: str, t: int, margin: float) -> bool:
        c, yaw = self.xy(label, t), self.yaw(label, t)
        v = p - c
        u = (v[0] * math.cos(yaw) + v[1] * math.sin(yaw), -v[0] * math.sin(yaw) + v[1] * math.cos(yaw))
        hx, hy = self.spec[label].params[:2]
        return bool(abs(u[0]) <= hx + margin and abs(u[1]) <= hy + margin)


# ---------------------------------------------------------------- stages


def _pick_choice(f: Facts, start: int, close: int | None, want: str, skip: str | None = None) -> bool:
    first = f.first_down(start, close if close is not None else f.L, R_SELECT, skip)
    if first is not None:
        if f.nearest(first[0], first[1])[0] != want:
            return False
        if close is None:
            return True
    elif close is None:
        return False
    assert close is not None
    name, dist = f.nearest(close, f.solid)
    return name == want and dist <= R_SELECT


def _kept(f: Facts, n: str, close: int, lift: float) -> bool:
    if f.after(f.open_rows, close) is not None:
        return False
    return f.z(n, f.L) - f.z(n, close) >= lift and int(f.held[f.L]) == f.i(n)


def _rose(f: Facts, n: str, start: int, stop: int | None) -> float:
    seg = f.pos[start : (f.L if stop is None else stop) + 1, f.i(n), 2]
    return float(seg.max() - seg[0])


def source(f: Facts, g: Grounded, lift: float) -> tuple[bool, bool]:
    close = f.grasp_rows[0] if f.grasp_rows else None
    ok = _pick_choice(f, 0, close, g.source)
    if not ok or close is None:
        return ok, False
    done = _rose(f, g.source, close, f.after(f.open_rows, close)) >= lift
    if done and g.action == "pickup":
        done = _kept(f, g.source, close, lift)
    return True, done


def _first_motion(f: Facts) -> tuple[int, str] | None:
    idx = [f.i(n) for n in f.solid]
    shift = np.linalg.norm(f.pos[:, idx, :2] - f.pos[0, idx, :2], axis=2) >= MOVE_CONTACT
    for t in range(f.T):
        movers = [n for n, m in zip(f.solid, shift[t], strict=True) if m]
        if movers:
            tcp = f.tcp[t, :2]
            return t, min(movers, key=lambda n: float(np.hypot(*(f.xy(n, t) - tcp))))
    return None


def push_source(f: Facts, g: Grounded) -> tuple[bool, bool]:
    first = f.first_down(0, f.L, R_PUSH)
    if first is not None and g.source not in first[1]:
        return False, False
    moved = _first_motion(f)
    if moved is None:
        return first is not None, False
    t, n = moved
    if n != g.source:
        return False, False
    return True, float(np.hypot(*(f.xy(n, t) - f.tcp[t, :2]))) <= R_SELECT + 0.03


def push(f: Facts, g: Grounded) -> tuple[bool, bool]:
    if g.direction is None:
        return False, False
    moved = _first_motion(f)
    first = f.first_down(0, f.L, R_PUSH)
    t = moved[0] if moved is not None else (first[0] if first is not None else None)
    if t is None:
        return False, False
    d = np.array(DIRS[g.direction])
    behind = float((f.tcp[t, :2] - f.xy(g.source, t)) @ d) < 0
    disp = f.xy(g.source, f.L) - f.xy(g.source, 0)
    dist, ang = float(np.hypot(*disp)), _angle(disp, d)
    return behind and (ang <= 45.0 or dist < 0.01), dist >= 0.02 and ang <= 45.0


def _commit(f: Facts, n: str, grasp: int, release: int | None) -> tuple[int | None, str]:
    up = False
    for t in range(grasp, (release if release is not None else f.L) + 1):
        gap = f.bottom(n, t) - f.under_top(n, t)
        if gap > PUT_DOWN_GAP:
            up = True
        elif up and (release is None or t < release):
            return t, "lowered"
    return (release, "released") if release is not None else (None, "held")


def _aim(f: Facts, g: Grounded, grasp: int, release: int | None, at_goal: object, goal: F) -> bool:
    t, how = _commit(f, g.source, grasp, release)
    if t is None:
        return False
    if at_goal(t):  # type: ignore[operator]
        return True
    if how == "lowered" or f.bottom(g.source, t) - f.under_top(g.source, t) <= PUT_DOWN_GAP:
        return False
    want = goal - f.tcp[grasp, :2]
    ang = 0.0 if float(np.hypot(*want)) < 1e-6 else _angle(f.tcp[t, :2] - f.tcp[grasp, :2], want)
    return float(np.hypot(*(f.xy(g.source, t) - goal))) <= HEAD_R and ang <= HEAD_DEG


def _relation_ok(v: F, relation: str) -> bool:
    if float(np.hypot(*v)) > REL_DIST:
        return False
    keys = ("left_of", "right_of") if relation == "beside" else (relation,)
    return min(_angle(v, np.array(RELS[k])) for k in keys) <= REL_DEG


def place(f: Facts, g: Grounded, scene: int) -> tuple[bool, bool]:
    """The placement stage of relative places, stacks, bowls, slots and scene 3 labels."""
    if not f.grasp_rows or g.target is None:
        return False, False
    grasp = f.grasp_rows[0]
    rel = f.after(f.open_rows, grasp)
    end = rel if rel is not None else f.L
    s = min(end + SETTLE_ROWS, f.L)
    src, tgt = g.source, g.target

    def off(t: int) -> float:
        return float(np.hypot(*(f.xy(src, t) - f.xy(tgt, t))))

    if g.action == "place_relative":
        relation = g.relation or ""
        anchor = f.xy(tgt, grasp)
        names = ("right_of", "left_of") if relation == "beside" else (relation,)
        pts = [anchor + PLACE_D * np.array(RELS[k]) for k in names]
        goal = min(pts, key=lambda p: float(np.hypot(*(p - f.tcp[end, :2]))))
        intent = _aim(f, g, grasp, rel, lambda t: _relation_ok(f.xy(src, t) - f.xy(tgt, t), relation), goal)
        placed = _relation_ok(f.xy(src, s) - f.xy(tgt, s), relation)
        return intent, placed and f.bottom(src, s) <= STAGE_TABLE and rel is not None
    if g.action == "route_place":
        intent = _aim(f, g, grasp, rel, lambda t: f.in_label(f.xy(src, t), tgt, t, 0.03), f.xy(tgt, grasp))
        on = f.in_label(f.xy(src, f.L), tgt, f.L, 0.0) and f.bottom(src, f.L) <= STAGE_TABLE
        return intent, rel is not None and on
    radius = {"stack": 0.07 if scene == 4 else 0.03, "place_bowl": 0.04, "place_slot": 0.07}[g.action]
    intent = _aim(f, g, grasp, rel, lambda t: off(t) <= radius, f.xy(tgt, grasp))
    if g.action == "stack":
        rest = 0.05 if scene == 4 else 0.03
        on_top = abs(f.bottom(src, s) - f.top(tgt, s)) <= SUPPORT
        return intent, rel is not None and off(end) <= radius and off(s) <= rest and on_top
    if g.action == "place_bowl":
        inside = off(s) <= 0.04 and f.bottom(src, s) <= f.top(tgt, s)
        return intent, rel is not None and off(end) <= 0.04 and inside
    return intent, rel is not None and off(s) <= 0.05 and f.bottom(src, s) <= STAGE_TABLE


def _yaw_err(yaw: float, target: float) -> float:
    e = (math.degrees(yaw) - target) % 180.0
    return min(e, 180.0 - e)


def orientation(f: Facts, g: Grounded) -> tuple[bool, bool]:
    if g.yaw_deg is None:
        return False, False
    err = _yaw_err(f.yaw(g.source, f.L), g.yaw_deg)
    regrasp = None
    if f.grasp_rows:
        rel = f.after(f.open_rows, f.grasp_rows[0])
        regrasp = None if rel is None else f.after(f.grasp_rows, rel)
    return err <= 40.0 and regrasp is None, err <= 20.0


def _local(f: Facts, bar: str, t: int, p: F) -> tuple[float, float]:
    v, yaw = p - f.xy(bar, t), f.yaw(bar, t)
    return v[0] * math.cos(yaw) + v[1] * math.sin(yaw), -v[0] * math.sin(yaw) + v[1] * math.cos(yaw)


def route(f: Facts, g: Grounded) -> tuple[bool, bool]:
    if not f.grasp_rows or not g.barrier:
        return False, False
    close = f.grasp_rows[0]
    end = f.after(f.open_rows, close) or f.L
    line = float(np.mean([f.xy(b, close)[1] for b in g.barrier]))
    path = f.pos[close : end + 1, f.i(g.source), :2]
    crossings = []
    for k in range(len(path) - 1):
        (x0, y0), (x1, y1) = path[k], path[k + 1]
        if (y0 >= line) != (y1 >= line):
            crossings.append((close + k + 1, x0 + (line - y0) / (y1 - y0) * (x1 - x0)))
    if not crossings:
        return False, False
    forbidden = [b for b in g.barrier if b not in g.allowed_bars]
    clear = math.inf
    for k, p in enumerate(path):
        for b in forbidden:
            lx, ly = _local(f, b, close + k, p)
            hx, hy = f.spec[b].params[:2]
            clear = min(clear, math.hypot(max(abs(lx) - hx, 0.0), max(abs(ly) - hy, 0.0)))
    intent, execution = clear > 0.0, clear >= BAR_CLEAR
    for t, x in crossings:
        over = next(
            (b for b in g.barrier if abs(_local(f, b, t, np.array([x, line]))[0]) <= f.spec[b].params[0] + BAR_END),
            None,
        )
        fine = over in g.allowed_bars if over is not None else g.route_mode == "avoid"
        lifted = f.z(g.source, t) - f.z(g.source, close) >= 0.01
        if over is not None:
            lifted = lifted and f.bottom(g.source, t) >= f.top(over, t)
        intent, execution = intent and fine, execution and fine and lifted
    return intent, intent and execution


def second(f: Facts, g: Grounded) -> tuple[bool, bool]:
    if not f.grasp_rows or g.second is None:
        return False, False
    first = f.grasp_rows[0]
    z = f.pos[first:, f.i(g.source), 2]
    ups = np.flatnonzero(z - z[0] >= 0.01)
    lifted = first + int(ups[0]) if ups.size else None
    rel = f.after(f.open_rows, lifted if lifted is not None else first)
    if lifted is None or rel is None:
        return False, False
    close = f.after(f.grasp_rows, rel)
    if not _pick_choice(f, rel, close, g.second, skip=g.source) or close is None:
        return _pick_choice(f, rel, close, g.second, skip=g.source), False
    rose = _rose(f, g.second, close, f.after(f.open_rows, close)) >= 0.01
    return True, rose and _kept(f, g.second, close, 0.01)


def main_end(f: Facts, g: Grounded) -> int | None:
    if g.action == "push":
        moved = _first_motion(f)
        if moved is None:
            return None
        rows = [t for t in np.flatnonzero(f.touch[:, f.i(g.source)]).tolist() if t >= moved[0] - GRACE_ROWS]
        end = moved[0]
        for t in rows:
            if t > end + GRACE_ROWS:
                break
            end = max(end, t)
        return end
    if not f.grasp_rows:
        return None
    first = f.grasp_rows[0]
    if g.action == "pickup":
        return first
    if g.action == "sequence_pickups":
        z = f.pos[first:, f.i(g.source), 2]
        ups = np.flatnonzero(z - z[0] >= 0.01)
        return f.after(f.grasp_rows, first + int(ups[0]) if ups.size else first)
    return f.after(f.open_rows, first)


def finish(f: Facts, g: Grounded) -> tuple[bool, bool]:
    end = main_end(f, g)
    if end is None:
        return False, False
    holding = g.action in ("pickup", "sequence_pickups")
    bad = any(t > end for t in f.close_rows) or (holding and any(t > end for t in f.open_rows))
    keep = (g.second if g.action == "sequence_pickups" else g.source) if holding else None
    keep_i = f.i(keep) if keep is not None else -1
    later = f.touch[end + GRACE_ROWS + 1 :].copy()
    if keep_i >= 0:
        later[:, keep_i] = False
    bad = bad or bool(later.any())
    d = np.linalg.norm(f.tcp[end:] - np.array(HOME_POS), axis=1)
    out = []
    for r in (0.12, 0.10):
        inside = np.flatnonzero(d <= r)
        out.append(bool(inside.size) and bool((d[int(inside[0]) :] <= r).all()) and not bad)
    return out[0], out[1]


# ---------------------------------------------------------------- completion and disturbance


def _resting(f: Facts) -> bool:
    for t in range(max(f.L - REST_N + 1, 1), f.L + 1):
        dt = float(f.time[t] - f.time[t - 1]) or 1.0
        v = np.linalg.norm(f.pos[t] - f.pos[t - 1], axis=1) / dt
        if v.size and float(v.max()) >= REST_V:
            return False
    return True


def _loose_motion(f: Facts, n: str) -> float:
    """The summed displacement of n over steps at which the gripper had not touched it within CARRY_ROWS."""
    i = f.i(n)
    total = np.zeros(2)
    for t in range(1, f.T):
        if not f.touch[max(0, t - CARRY_ROWS) : t + 1, i].any():
            total += f.pos[t, i, :2] - f.pos[t - 1, i, :2]
    return float(np.hypot(*total))


def complete(f: Facts, g: Grounded, scene: int, intent: float, execution: float, route_raw: bool) -> bool:
    L = f.L  # noqa: N806  (the specification's name for the last row)
    if not _resting(f):
        return False
    if g.action in ("pickup", "sequence_pickups"):
        obj = g.second if g.action == "sequence_pickups" and g.second else g.source
        need = LIFT_S2 if scene == 2 and g.action == "pickup" else LIFT
        holds = int(f.held[L]) == f.i(obj) and f.z(obj, L) - f.z(obj, 0) >= need
        return holds and intent >= 0.8 - 1e-9 and execution >= 0.8 - 1e-9
    src = g.source
    if f.cmd[L] > 0 or f.touch[L, f.i(src)]:
        return False
    if _loose_motion(f, src) > LOOSE_D:
        return False
    ref = g.target if g.target is not None and f.spec[g.target].shape != "label" else None
    if ref is not None and float(np.hypot(*(f.xy(ref, L) - f.xy(ref, 0)))) > REF_D:
        return False
    table = f.bottom(src, L) <= TABLE
    if g.action == "push":
        if g.direction is None:
            return False
        disp = f.xy(src, L) - f.xy(src, 0)
        return float(np.hypot(*disp)) >= 0.02 and _angle(disp, np.array(DIRS[g.direction])) <= 45.0 and table
    if g.target is None:
        return False
    off = float(np.hypot(*(f.xy(src, L) - f.xy(g.target, L))))
    if g.action == "place_relative":
        return g.relation is not None and _relation_ok(f.xy(src, L) - f.xy(g.target, L), g.relation) and table
    if g.action == "stack":
        return off <= (0.05 if scene == 4 else 0.03) and abs(f.bottom(src, L) - f.top(g.target, L)) <= SUPPORT
    if g.action == "place_bowl":
        return off <= BOWL_R and f.bottom(src, L) - f.z(g.target, L) <= BOWL_D
    if g.action == "place_slot":
        return off <= 0.05 and table
    if g.action == "route_place":
        err = _yaw_err(f.yaw(src, L), g.yaw_deg or 0.0)
        return f.in_label(f.xy(src, L), g.target, L, 0.0) and table and err <= 20.0 and route_raw
    return False


def _tilt(q0: F, q1: F) -> float:
    def up(q: F) -> F:
        w, x, y, z = (float(v) for v in q)
        return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])

    a, b = up(q0), up(q1)
    return math.degrees(
        math.acos(min(1.0, max(-1.0, float(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12))))
    )


def disturbed(f: Facts, g: Grounded) -> tuple[str, ...]:
    named = {g.source, g.second, g.target}
    out = []
    for n in f.names:
        o = f.spec[n]
        if n in named or o.shape == "label":
            continue
        i = f.i(n)
        moved = float(np.hypot(*(f.pos[f.L, i, :2] - f.pos[0, i, :2])))
        dz = abs(float(f.pos[f.L, i, 2] - f.pos[0, i, 2]))
        tilt = 0.0 if o.shape in ("sphere", "cube") else _tilt(f.quat[0, i], f.quat[f.L, i])
        if moved >= DIST_XY or dz >= DIST_Z or tilt >= TOPPLE:
            out.append(n)
    return tuple(out)


# ---------------------------------------------------------------- the trial


def verify(traj: Trajectory, g: Grounded, layout: Layout, scene: int) -> Verdict:
    """Recompute every score of one trial from its stored trajectory."""
    f = Facts(traj, layout)
    lift = LIFT_S2 if scene == 2 and g.action == "pickup" else LIFT
    raw: list[tuple[str, float, bool, bool]]
    if g.action == "pickup":
        raw = [("source", 0.8, *source(f, g, lift))]
    elif g.action == "route_place":
        raw = [
            ("source", 0.0, *source(f, g, lift)),
            ("route", 0.3, *route(f, g)),
            ("label", 0.3, *place(f, g, scene)),
            ("orientation", 0.4, *orientation(f, g)),
        ]
    elif g.action == "push":
        raw = [("source", 0.4, *push_source(f, g)), ("push", 0.4, *push(f, g))]
    elif g.action == "sequence_pickups":
        raw = [("source", 0.4, *source(f, g, lift)), ("second", 0.4, *second(f, g))]
    else:
        name = {"place_relative": "place", "stack": "stack", "place_bowl": "bowl", "place_slot": "slot"}[g.action]
        raw = [("source", 0.4, *source(f, g, lift)), (name, 0.4, *place(f, g, scene))]
    if g.action != "route_place":
        raw.append(("finish", 0.2, *finish(f, g)))
    stages, ok_i, ok_e = [], True, True
    intent = execution = 0.0
    for name, w, i, e in raw:
        gi = i and ok_i
        ge = e and i and ok_i and ok_e
        stages.append((name, gi, ge))
        intent += w if gi else 0.0
        execution += w if ge else 0.0
        ok_i, ok_e = ok_i and i, ok_e and e and i
    route_raw = any(name == "route" and i for name, _, i, _ in raw)
    done = complete(f, g, scene, round(intent, 9), round(execution, 9), route_raw)
    return Verdict(tuple(stages), round(intent, 9), round(execution, 9), done, disturbed(f, g))
