"""Boundary probes for the trajectory fuzzer: trajectories that sit just inside and just outside every
threshold of the tabletop specification (docs/tabletop-scoring.md), so a scorer or verifier that gets one
number or comparison wrong disagrees with the other (issue 38).

Random programs (`fuzz.py`) rarely end 1.5 cm above a base or move a reference by exactly 2 cm, so a
mutated threshold went unnoticed. Two kinds of probe fix that:

- *Edits* of a recorded MuJoCo trajectory (`edge_probes`): the source's final height over its base, the
  table or the bowl's floor; one object moving at about the at-rest speed inside or just outside the
  at-rest window; the reference object's start moved to about the allowed distance; the source's start
  moved so its unexplained motion is about the allowed amount; a brief unexplained jump just inside or just
  outside the touch window; a gripper touch just inside or just outside the grace rows after the main
  action; an object the task does not name starting about the disturbance distance, height or tilt away.
  Each edit changes only the facts its rule reads; the edited trajectory is what a stored
  trajectory could hold, and both implementations must score it the same.
- *Drops* (`drop_motion`, a fuzzer op): the carried source opened in the air at a random distance around
  the drop radius from the goal, on the line from the grasp, in MuJoCo.

The numbers are the specification's, written here a third time on purpose (not imported from the scorer or
the verifier), so mutating either implementation does not move the probes. Margins are drawn per probe,
10-50% of the threshold on either side (whole rows for row counts).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop import motion
from heedful.sims.tabletop.geometry import travel_height
from heedful.sims.tabletop.recorder import Trajectory
from heedful.sims.tabletop.sim import TabletopSim
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.verifier import Facts, main_end

# The specification's numbers ("Numbers at a glance").
SUPPORT_GAP = 0.01
TABLE_GAP = 0.01
STAGE_TABLE = 0.02  # placement execution: bottom at most this high after settling
BOWL_DEPTH = 0.02
REST_SPEED = 0.02
REST_ROWS = 5
REF_MOVE = 0.02
UNEXPLAINED = 0.02
TOUCH_ROWS = 10
GRACE_ROWS = 10
DROP_RADIUS = 0.10
DISTURB_MOVE = 0.03
DISTURB_DROP = 0.02
TOPPLE_DEG = 30.0
PLACE_DIST = 0.10
DOWN_ABOVE = 0.015  # the TCP at most this far above an object's top (within DOWN_XY): down at it
DOWN_XY = 0.07
PUT_DOWN = 0.03  # a carried source this near its support: lowered; farther: up
PICKUP_LIFT = 0.01  # a pickup's grasp lifts the source this much and it ends this high (scene 2: PICKUP_LIFT_S2)
PICKUP_LIFT_S2 = 0.03

HOLDS = ("pickup", "sequence_pickups")
TABLE_TASKS = ("place_relative", "place_slot", "push", "route_place")
PLACES = ("place_relative", "stack", "place_bowl", "place_slot")
FAR = 0.15  # m from the target's center: no placement's goal test holds there (widest: relative, 0.12 m)


@dataclass(frozen=True)
class Probe:
    """One edited trajectory: the rule it probes, which side of its threshold, and the value set."""

    rule: str
    side: str  # "inside" (the rule holds) or "outside"
    value: float
    traj: Trajectory


def _copy(traj: Trajectory) -> Trajectory:
    return dataclasses.replace(
        traj,
        object_poses=traj.object_poses.copy(),
        touched=traj.touched.copy(),
        tcp_pos=traj.tcp_pos.copy(),
        frames={},
    )


def _margin(rng: np.random.Generator, limit: float, side: str) -> float:
    u = float(rng.uniform(0.1, 0.5))
    return limit * (1 - u) if side == "inside" else limit * (1 + u)


def _unit(rng: np.random.Generator) -> NDArray[np.float64]:
    a = float(rng.uniform(0, 2 * np.pi))
    return np.array([np.cos(a), np.sin(a)])


def _last_touch(f: Facts, name: str) -> int | None:
    rows = np.flatnonzero(f.touch[:, f.i(name)])
    return int(rows[-1]) if rows.size else None


def _release(f: Facts) -> int | None:
    return f.after(f.open_rows, f.grasp_rows[0]) if f.grasp_rows else None


def _settled_from(f: Facts, g: Grounded) -> int | None:
    """First row from which the source may be edited without touching the action: after its release (or
    its last touch for a push), and before the at-rest window."""
    start = _release(f) if g.action != "push" else _last_touch(f, g.source)
    if start is None:
        return None
    start += 1
    return start if start <= f.L - REST_ROWS - 1 else None


def _lift_source(traj: Trajectory, f: Facts, g: Grounded, rule: str, gap_now: float, want: float) -> Probe | None:
    start = _settled_from(f, g)
    if start is None:
        return None
    out = _copy(traj)
    out.object_poses[start:, f.i(g.source), 2] += want - gap_now
    return Probe(rule, "", want, out)


def _height_probes(traj: Trajectory, f: Facts, g: Grounded, rng: np.random.Generator) -> list[Probe]:
    """The source's bottom at the end around the support gap over its base, the table (completion and
    placement execution) and the bowl's floor."""
    out: list[Probe] = []
    src, L = g.source, f.L  # noqa: N806  (the specification's name for the last row)
    checks: list[tuple[str, float, float]] = []  # rule, current gap, threshold
    if g.action == "stack" and g.target is not None:
        checks.append(("support gap", f.bottom(src, L) - f.top(g.target, L), SUPPORT_GAP))
    if g.action in TABLE_TASKS:
        checks.append(("on the table", f.bottom(src, L), TABLE_GAP))
        if g.action != "push":
            checks.append(("placement on the table", f.bottom(src, L), STAGE_TABLE))
    if g.action == "place_bowl" and g.target is not None:
        checks.append(("bowl depth", f.bottom(src, L) - f.z(g.target, L), BOWL_DEPTH))
    for rule, now, limit in checks:
        for side in ("inside", "outside"):
            want = _margin(rng, limit, side)
            if rule == "support gap" and rng.random() < 0.3:
                want = -want  # sunk into the base: |gap| is what counts
            p = _lift_source(traj, f, g, rule, now, want)
            if p is not None:
                out.append(dataclasses.replace(p, side=side))
    return out


def _rest_probes(traj: Trajectory, f: Facts, rng: np.random.Generator) -> list[Probe]:
    """One object steps at about the at-rest speed inside the window, and fast just outside / inside it."""
    out: list[Probe] = []
    k = int(rng.integers(0, len(f.names)))
    dt = float(f.time[f.L] - f.time[f.L - 1]) or 0.05
    for side in ("inside", "outside"):  # the speed: inside = slower than the limit (at rest)
        row = f.L - int(rng.integers(0, REST_ROWS))
        v = _margin(rng, REST_SPEED, side)
        e = _copy(traj)
        e.object_poses[row:, k, :2] += v * dt * _unit(rng)
        out.append(Probe("at-rest speed", side, v, e))
    for side, row in (("inside", f.L - REST_ROWS), ("outside", f.L - REST_ROWS + 1)):  # the window's length
        e = _copy(traj)
        e.object_poses[row:, k, :2] += 3 * REST_SPEED * dt * _unit(rng)
        out.append(Probe("at-rest steps", side, float(f.L - row + 1), e))
    return out


def _reference_probes(traj: Trajectory, f: Facts, g: Grounded, rng: np.random.Generator) -> list[Probe]:
    """The reference object's start set at about the allowed distance from where it ends."""
    if g.target is None or f.spec[g.target].shape == "label" or g.action in HOLDS:
        return []
    i, out = f.i(g.target), []
    for side in ("inside", "outside"):
        d = _margin(rng, REF_MOVE, side)
        e = _copy(traj)
        e.object_poses[0, i, :2] = e.object_poses[f.L, i, :2] - d * _unit(rng)
        out.append(Probe("reference moved", side, d, e))
    return out


def _loose(f: Facts, i: int, skip_first: bool) -> NDArray[np.float64]:
    """The source's summed xy steps at rows with no gripper touch within TOUCH_ROWS before (the harness's own
    count, used only to aim the probes)."""
    total = np.zeros(2)
    for t in range(2 if skip_first else 1, f.T):
        if not f.touch[max(0, t - TOUCH_ROWS) : t + 1, i].any():
            total += f.pos[t, i, :2] - f.pos[t - 1, i, :2]
    return total


def _unexplained_probes(traj: Trajectory, f: Facts, g: Grounded, rng: np.random.Generator) -> list[Probe]:
    """The source's start moved so its unexplained motion is about the allowed amount; and a brief jump of
    the source (out and back) whose return step falls just inside or just outside the touch window."""
    if g.action in HOLDS:
        return []
    i, out = f.i(g.source), []
    if not f.touch[:2, i].any():
        rest = _loose(f, i, skip_first=True)
        for side in ("inside", "outside"):
            d = _margin(rng, UNEXPLAINED, side)
            step = d * _unit(rng) - rest  # the first step makes the sum exactly d long
            e = _copy(traj)
            e.object_poses[0, i, :2] = e.object_poses[1, i, :2] - step
            out.append(Probe("unexplained motion", side, d, e))
    last = _last_touch(f, g.source)
    if last is not None and last + TOUCH_ROWS + 2 < f.L - REST_ROWS:
        rest = _loose(f, i, skip_first=False)
        away = rest / n if (n := float(np.hypot(*rest))) > 1e-9 else _unit(rng)
        for side, row in (("inside", last + TOUCH_ROWS - 1), ("outside", last + TOUCH_ROWS)):
            e = _copy(traj)
            e.object_poses[row, i, :2] -= 2 * UNEXPLAINED * away  # back at row + 1: that step adds +2 * away
            out.append(Probe("touch window", side, float(row + 1 - last), e))
    return out


def _grace_probes(traj: Trajectory, f: Facts, g: Grounded) -> list[Probe]:
    """A gripper touch of another object just inside / outside the grace rows after the main action; for a
    push, a touch of the source there (it extends the push, or comes too late)."""
    end = main_end(f, g)
    if end is None or end + GRACE_ROWS + 1 > f.L:
        return []
    keep = {g.source, g.second} if g.action in HOLDS else {g.source}
    others = [n for n in f.names if n not in keep]
    out = []
    for who in ([others[0]] if others else []) + ([g.source] if g.action == "push" else []):
        for side, row in (("inside", end + GRACE_ROWS), ("outside", end + GRACE_ROWS + 1)):
            e = _copy(traj)
            e.touched[row, f.i(who)] = True
            out.append(Probe("grace rows" if who != g.source else "push grace rows", side, float(row - end), e))
    return out


def _quat_about_x(deg: float) -> NDArray[np.float64]:
    h = np.radians(deg) / 2
    return np.array([np.cos(h), np.sin(h), 0.0, 0.0])


def _qmul(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def _disturbance_probes(traj: Trajectory, f: Facts, g: Grounded, rng: np.random.Generator) -> list[Probe]:
    """An object the task does not name whose start is set about the disturbance distance (xy, z) or tilt
    away from where it ends."""
    named = {g.source, g.second, g.target}
    others = [n for n in f.solid if n not in named]
    if not others:
        return []
    n = others[int(rng.integers(0, len(others)))]
    i, out = f.i(n), []
    for side in ("inside", "outside"):
        d = _margin(rng, DISTURB_MOVE, side)
        e = _copy(traj)
        e.object_poses[0, i, :2] = e.object_poses[f.L, i, :2] - d * _unit(rng)
        e.object_poses[0, i, 2] = e.object_poses[f.L, i, 2]
        out.append(Probe("disturbance xy", side, d, e))
        dz = _margin(rng, DISTURB_DROP, side)
        e = _copy(traj)
        e.object_poses[0, i, :2] = e.object_poses[f.L, i, :2]
        e.object_poses[0, i, 2] = e.object_poses[f.L, i, 2] + dz * (1 if rng.random() < 0.5 else -1)
        out.append(Probe("disturbance z", side, dz, e))
        if f.spec[n].shape not in ("sphere", "cube"):
            deg = _margin(rng, TOPPLE_DEG, side)
            e = _copy(traj)
            e.object_poses[0, i, :3] = e.object_poses[f.L, i, :3]
            e.object_poses[0, i, 3:7] = _qmul(e.object_poses[f.L, i, 3:7], _quat_about_x(deg))
            out.append(Probe("disturbance tilt", side, deg, e))
    return out


def _down_probes(traj: Trajectory, f: Facts, g: Grounded, rng: np.random.Generator) -> list[Probe]:
    """Up to the first grasp, the TCP raised wherever it was lower than the margin above the highest top
    within DOWN_XY of it: at the grasp it is then that margin above the object under the fingers; inside
    the down-at height the close is a grasp, outside it is a close in the air (no choice, no grasp)."""
    if g.action in ("push", "route_place") or not f.grasp_rows:
        return []
    grasp = f.grasp_rows[0]
    idx = [f.i(n) for n in f.solid]
    flat = np.linalg.norm(f.pos[: grasp + 1, idx, :2] - f.tcp[: grasp + 1, None, :2], axis=2)
    near = np.where(flat <= DOWN_XY, f.tops[: grasp + 1, idx], -np.inf).max(axis=1)
    out = []
    for side in ("inside", "outside"):
        want = _margin(rng, DOWN_ABOVE, side)
        e = _copy(traj)
        floor = near + want
        rows = np.flatnonzero(np.isfinite(near) & (e.tcp_pos[: grasp + 1, 2] < floor))
        e.tcp_pos[rows, 2] = floor[rows]
        out.append(Probe("down at", side, want, e))
    return out


def _clear_of_others(f: Facts, n: str, t: int, target: str) -> bool:
    """Nothing under `n` at row t (its support is the table) and `n` far from the target."""
    p = f.xy(n, t)
    if float(np.hypot(*(p - f.xy(target, t)))) <= FAR:
        return False
    others = [m for m in f.solid if m != n]
    return all(float(np.hypot(*(p - f.xy(m, t)))) > f.spec[m].footprint_radius + 0.05 for m in others)


def _put_down_probes(traj: Trajectory, f: Facts, g: Grounded, rng: np.random.Generator) -> list[Probe]:
    """One row of the carry, far from the target over the bare table after the source was up, dips the
    source to a gap about the put-down gap: inside it the source is lowered there (the placement's intent
    is judged at a spot that is not the target), outside it is still carried."""
    if g.action not in PLACES or g.target is None or not f.grasp_rows:
        return []
    grasp = f.grasp_rows[0]
    release = f.after(f.open_rows, grasp)
    end = release if release is not None else f.L
    src = g.source
    ok = [t for t in range(grasp, end) if f.bottom(src, t) > 2 * PUT_DOWN and _clear_of_others(f, src, t, g.target)]
    row = next((t for t in ok if t - 1 in ok), None)
    if row is None:
        return []
    out = []
    for side in ("inside", "outside"):
        want = _margin(rng, PUT_DOWN, side)
        e = _copy(traj)
        e.object_poses[row, f.i(src), 2] += want - f.bottom(src, row)
        out.append(Probe("put-down gap", side, want, e))
    return out


def _lift_probes(traj: Trajectory, f: Facts, g: Grounded, scene: int, rng: np.random.Generator) -> list[Probe]:
    """A pickup's source capped, from its grasp on, at a height about the required lift above where it
    started (and above where it was grasped): inside (higher) the grasp lifted it and it ends held up,
    outside (lower) it did not rise enough."""
    if g.action != "pickup" or not f.grasp_rows:
        return []
    grasp, i = f.grasp_rows[0], f.i(g.source)
    limit = PICKUP_LIFT_S2 if scene == 2 else PICKUP_LIFT
    base = max(float(f.pos[0, i, 2]), float(f.pos[grasp, i, 2]))
    rule = "scene 2 pickup lift" if scene == 2 else "pickup lift"
    out = []
    for side in ("inside", "outside"):
        want = _margin(rng, limit, "outside" if side == "inside" else "inside")  # inside: above the limit
        if float(f.pos[f.L, i, 2]) < base + want:
            continue
        e = _copy(traj)
        e.object_poses[grasp + 1 :, i, 2] = np.minimum(e.object_poses[grasp + 1 :, i, 2], base + want)
        out.append(Probe(rule, side, want, e))
    return out


def edge_probes(traj: Trajectory, g: Grounded, layout: Layout, rng: np.random.Generator) -> list[Probe]:
    """Every boundary probe of `traj` (a recorded trial of task `g` on `layout`), both sides of each rule."""
    f = Facts(traj, layout)
    if f.L < 2 * REST_ROWS + 2:
        return []
    return [
        *_height_probes(traj, f, g, rng),
        *_rest_probes(traj, f, rng),
        *_reference_probes(traj, f, g, rng),
        *_unexplained_probes(traj, f, g, rng),
        *_grace_probes(traj, f, g),
        *_disturbance_probes(traj, f, g, rng),
        *_down_probes(traj, f, g, rng),
        *_put_down_probes(traj, f, g, rng),
        *_lift_probes(traj, f, g, layout.scene, rng),
    ]


def goal_point(sim_xy: dict[str, NDArray[np.float64]], g: Grounded, tcp: NDArray[np.float64]) -> NDArray[np.float64]:
    """Where a placement aims: the target's center, or for a relative place the point PLACE_DIST from the
    anchor in the relation's direction (for "beside" the side nearer the TCP)."""
    assert g.target is not None
    anchor = sim_xy[g.target]
    if g.action != "place_relative" or g.relation is None:
        return anchor
    vecs = {"left_of": (-1.0, 0.0), "right_of": (1.0, 0.0), "behind": (0.0, 1.0), "in_front_of": (0.0, -1.0)}
    keys = ("left_of", "right_of") if g.relation == "beside" else (g.relation,)
    pts = [anchor + PLACE_DIST * np.array(vecs[k]) for k in keys]
    return min(pts, key=lambda p: float(np.hypot(*(p - tcp))))


def drop_motion(sim: TabletopSim, g: Grounded, rng: np.random.Generator, side: str | None = None) -> motion.Motion:
    """Carry the held object at travel height to a point about the drop radius from the goal (on the line
    from where the TCP is now, normally over the grasp; `side` "inside" or "outside" it, else drawn) and
    open the gripper in the air."""
    held = sim.held_object()
    if held is None or g.target is None or g.action in HOLDS or g.action == "push":
        return (yield from motion.wait(sim, 1, sim.gripper_command))
    here = sim.tcp_pos()
    xy = {n: np.asarray(sim.object_pose(n)[:2], dtype=np.float64) for n in sim.object_names}
    goal = goal_point(xy, g, here[:2])
    back = here[:2] - goal
    dist = float(np.hypot(*back))
    side = side or ("inside" if rng.random() < 0.5 else "outside")
    r = _margin(rng, DROP_RADIUS, side)
    to = goal + (back / dist if dist > 1e-6 else _unit(rng)) * r
    hang = float(here[2]) - float(sim.object_pose(held)[2])
    z = travel_height(sim, hanging=hang + 0.05, exclude=(held,))
    grip = sim.gripper_command
    yield from motion.go_above(sim, to, z, motion.tool_yaw(sim), grip)
    yield from motion.actuate_gripper(sim, -1.0)
    return (yield from motion.wait(sim, 15, -1.0))


__all__ = ["Probe", "drop_motion", "edge_probes", "goal_point"]
