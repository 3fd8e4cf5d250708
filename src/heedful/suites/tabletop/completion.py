"""Completion and side effects: what "the task is done and left done" means in physical facts.

ONE implementation, used by the benchmark (`score_trajectory`, hence `heedful run`) and by the Gymnasium
env's `is_success` (`heedful/Tabletop-v0`). The full specification, with its sources, is
docs/tabletop-scoring.md; every number below is named there.

Completion (judged at the trajectory's last row L, "the end"):

- *At rest*: no object moved faster than REST_SPEED over any of the last REST_ROWS control steps (0.25 s:
  left done, not caught in passing).
- *Released* (every task but pickups and sequences, which end holding their object): the gripper command is
  open at L and no gripper body touches the source (RoboTwin's success checks require an open gripper).
  A pickup / sequence instead ends with the object held between both fingers, raised LIFT above its start.
- *Relation with support* (the action's test at L): stack: the source's center within STACK_XY (scene 4
  STACK_XY_S4) of the base's, its bottom within SUPPORT_GAP of the base's top (resting on it: a tower with
  something between fails); bowl: within BOWL_XY of the bowl's center and its bottom within BOWL_DEPTH of the
  bowl's floor (resting inside); relative place: the relation holds (45 degrees, 0.12 m) and the source
  rests on the table (bottom <= TABLE_GAP); slot: within SLOT_XY of the slot, on the table; scene 3: on the
  label, on the table, yaw within 20 degrees and the route followed; push: moved >= 0.02 m within 45
  degrees of the direction, on the table.
- *By the robot's action*: the reference object (base, bowl, anchor) moved at most REF_MOVE in xy; and the
  source's displacement not explained by the gripper (summed over the steps at which no gripper body had
  touched it within TOUCH_CARRY rows) is at most UNEXPLAINED: an object shoved into place by another
  object, or a reference moved to it, does not count.
- Pickups and sequences also keep RoboFollow's rule (intent and execution >= 0.8).

Disturbance: every free object the task does not name (not the source, second object or target) that
ended DISTURB_MOVE or more from its start in xy, DISTURB_DROP or more lower or higher, or tilted by
TOPPLE_DEG or more (spheres and cubes excepted from tilting: they look the same on any face). Reported
beside Completion; `complete_clean` is complete with no disturbance. Extra manipulations after the task
do not cost Completion (a final-state criterion, as RoboFollow's), but they cost the finish stage, and
what they move shows here.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from heedful.suites.tabletop.grounding import DIRECTION_VECTORS, angle_deg, relation_satisfied
from heedful.suites.tabletop.model import Grounded
from heedful.suites.tabletop.stages import HOLD_ACTIONS, Track

REST_SPEED = 0.02  # m/s
REST_ROWS = 5  # control steps
SUPPORT_GAP = 0.01  # m between a resting object's bottom and its support's top
TABLE_GAP = 0.01  # m: bottom at most this high is on the table
BOWL_XY = 0.04
BOWL_DEPTH = 0.02  # bottom at most this far above the bowl's base (its floor is 6 mm thick)
STACK_XY = 0.03
STACK_XY_S4 = 0.05
SLOT_XY = 0.05
PUSH_MIN = 0.02
PUSH_DEG = 45.0
LIFT = 0.01  # m a held object must have risen (and a grasp must lift the source)
PICKUP_LIFT_S2 = 0.03  # m: the same for a scene 2 pickup
REF_MOVE = 0.02  # m a reference object may move
UNEXPLAINED = 0.02  # m of the source's displacement not caused by the gripper
TOUCH_CARRY = 10  # rows (0.5 s) after a touch during which the object's motion is the gripper's doing
DISTURB_MOVE = 0.03
DISTURB_DROP = 0.02
TOPPLE_DEG = 30.0
UPRIGHT_FREE = ("sphere", "cube")  # shapes that look the same on any face: never "toppled"


def required_lift(scene: int, action: str) -> float:
    """How far a grasp must lift the source (source execution) and a held object must end above its start
    (completion): LIFT, or PICKUP_LIFT_S2 for a scene 2 pickup (read at call time, so a mutant can move it)."""
    return PICKUP_LIFT_S2 if scene == 2 and action == "pickup" else LIFT


def speeds(tr: Track, row: int) -> NDArray[np.float64]:
    """Per object, its speed (m/s) over the control step ending at `row` (0 at row 0)."""
    if row <= 0:
        return np.zeros(len(tr.traj.object_names))
    dt = float(tr.traj.time[row] - tr.traj.time[row - 1]) or 1.0
    step = tr.traj.object_poses[row, :, :3] - tr.traj.object_poses[row - 1, :, :3]
    return np.asarray(np.linalg.norm(step, axis=1) / dt, dtype=np.float64)


def at_rest(tr: Track, row: int) -> tuple[bool, str]:
    """No object moved faster than REST_SPEED over the REST_ROWS steps ending at `row` (fewer at the start)."""
    fastest = max(float(speeds(tr, r).max(initial=0.0)) for r in range(max(row - REST_ROWS + 1, 0), row + 1))
    return fastest < REST_SPEED, f"fastest object over the last {REST_ROWS} steps {fastest:.3f} m/s"


def touched(tr: Track, name: str, row: int) -> bool:
    return bool(tr.traj.touched[row, tr.traj.object_names.index(name)])


def held_at(tr: Track, row: int) -> str | None:
    i = int(tr.traj.held[row])
    return None if i < 0 else tr.traj.object_names[i]


def released(tr: Track, name: str, row: int) -> tuple[bool, str]:
    """The gripper command is open at `row` and no gripper body touches `name`."""
    open_ = float(tr.traj.gripper_command[row]) <= 0.0
    free = not touched(tr, name, row)
    return open_ and free, f"gripper open: {open_}, {name} free of the gripper: {free}"


def support_top(tr: Track, name: str, row: int) -> float:
    """Top of what lies under `name`'s center at `row`: the highest other solid object whose footprint
    (grown by 0.02 m) contains it, else the table (0)."""
    xy = tr.xy(name, row)
    tops = [
        tr.top(o.name, row)
        for o in tr.layout.objects
        if o.name != name
        and o.shape != "label"
        and float(np.linalg.norm(xy - tr.xy(o.name, row))) <= o.footprint_radius + 0.02
        and tr.top(o.name, row) <= tr.z(name, row)
    ]
    return max([0.0, *tops])


def on_table(tr: Track, name: str, row: int) -> bool:
    return tr.bottom(name, row) <= TABLE_GAP


def rests_on(tr: Track, name: str, base: str, row: int) -> bool:
    """`name`'s bottom is within SUPPORT_GAP of `base`'s top (touching it, nothing between)."""
    return abs(tr.bottom(name, row) - tr.top(base, row)) <= SUPPORT_GAP


def inside_bowl(tr: Track, name: str, bowl: str, row: int) -> bool:
    off = float(np.linalg.norm(tr.xy(name, row) - tr.xy(bowl, row)))
    return off <= BOWL_XY and tr.bottom(name, row) - tr.z(bowl, row) <= BOWL_DEPTH


def moved_xy(tr: Track, name: str, row: int) -> float:
    return float(np.linalg.norm(tr.xy(name, row) - tr.xy(name, 0)))


def unexplained(tr: Track, name: str, row: int) -> float:
    """Norm of the summed xy displacement of `name` over steps 1..row at which no gripper body had touched it
    within the last TOUCH_CARRY rows."""
    i = tr.traj.object_names.index(name)
    xy = tr.traj.object_poses[: row + 1, i, :2]
    if xy.shape[0] < 2:
        return 0.0
    touch = tr.traj.touched[: row + 1, i].astype(np.int64)
    # recent[t]: touched at some row in t - TOUCH_CARRY .. t
    csum = np.concatenate([[0], np.cumsum(touch)])
    t = np.arange(1, row + 1)
    lo = np.maximum(t - TOUCH_CARRY, 0)
    recent = csum[t + 1] - csum[lo] > 0
    steps = np.diff(xy, axis=0)
    return float(np.linalg.norm(steps[~recent].sum(axis=0)))


def by_robot(tr: Track, g: Grounded, row: int) -> tuple[bool, str]:
    """The source got there by the gripper, and the reference object stayed put."""
    loose = unexplained(tr, g.source, row)
    ok, why = loose <= UNEXPLAINED, f"{loose:.3f} m of {g.source}'s motion not by the gripper"
    if g.target is not None and tr.layout.obj(g.target).shape != "label":
        ref = moved_xy(tr, g.target, row)
        ok = ok and ref <= REF_MOVE
        why += f", {g.target} moved {ref:.3f} m"
    return ok, why


def final_relation(tr: Track, g: Grounded, scene: int, row: int) -> tuple[bool, str]:
    """The action's relation with support at `row` (see the module doc)."""
    src = g.source
    if g.action == "push":
        if g.direction is None:
            return False, "no direction"
        disp = tr.xy(src, row) - tr.xy(src, 0)
        moved, off = float(np.linalg.norm(disp)), angle_deg(disp, np.array(DIRECTION_VECTORS[g.direction]))
        ok = moved >= PUSH_MIN and off <= PUSH_DEG and on_table(tr, src, row)
        return ok, f"moved {moved:.3f} m, {off:.0f} deg off {g.direction}"
    if g.target is None:
        return False, "no target"
    off = float(np.linalg.norm(tr.xy(src, row) - tr.xy(g.target, row)))
    if g.action == "place_relative" and g.relation is not None:
        ok = relation_satisfied(tr.xy(src, row), tr.xy(g.target, row), g.relation) and on_table(tr, src, row)
        return ok, f"{off:.3f} m from {g.target}, {g.relation}: {ok}"
    if g.action == "stack":
        limit = STACK_XY_S4 if scene == 4 else STACK_XY
        resting = rests_on(tr, src, g.target, row)
        return off <= limit and resting, f"{off:.3f} m off {g.target} (limit {limit}), resting on it: {resting}"
    if g.action == "place_bowl":
        inside = inside_bowl(tr, src, g.target, row)
        return inside, f"{off:.3f} m from the bowl's center, resting inside: {inside}"
    if g.action == "place_slot":
        ok = off <= SLOT_XY and on_table(tr, src, row)
        return ok, f"{off:.3f} m from the slot's center"
    return False, f"no relation test for {g.action}"


def completion(
    tr: Track, g: Grounded, scene: int, intent: float, execution: float, route_ok: bool, row: int | None = None
) -> tuple[bool, str]:
    """Whether the task is done and left done at `row` (default: the end); see the module doc.

    Args:
        intent, execution: the trial's gated scores (pickups and sequences need both >= 0.8).
        route_ok: scene 3: whether the route was followed (its raw intent).
    """
    end = tr.last if row is None else row
    rest, rest_why = at_rest(tr, end)
    if g.action in HOLD_ACTIONS:
        obj = g.second if g.action == "sequence_pickups" and g.second else g.source
        lift = required_lift(scene, g.action)
        up = tr.z(obj, end) - tr.z(obj, 0)
        holds = held_at(tr, end) == obj and up >= lift
        staged = intent >= 0.8 - 1e-9 and execution >= 0.8 - 1e-9
        why = f"intent {intent:.2f}, execution {execution:.2f} (>= 0.8 needed); {obj} held {up:.3f} m up: {holds}"
        return staged and holds and rest, f"{why}; {rest_why}"
    free, free_why = released(tr, g.source, end)
    robot, robot_why = by_robot(tr, g, end)
    if g.action == "route_place":
        from heedful.suites.tabletop.placement import on_label, yaw_error_deg

        err = yaw_error_deg(tr.yaw(g.source, end), g.yaw_deg or 0.0)
        placed = g.target is not None and on_label(tr, tr.xy(g.source, end), g.target, end, 0.0)
        placed = placed and on_table(tr, g.source, end)
        ok = placed and err <= 20.0 and route_ok
        where = f"on {g.target}: {placed}, yaw error {err:.0f} deg, route followed: {route_ok}"
    else:
        ok, where = final_relation(tr, g, scene, end)
    done = ok and free and rest and robot
    return done, f"{where}; {free_why}; {rest_why}; {robot_why}"


def tilt_deg(tr: Track, name: str, row: int) -> float:
    """Angle between the object's z axis at `row` and at the start."""

    def axis(q: NDArray[np.float64]) -> NDArray[np.float64]:
        w, x, y, z = (float(v) for v in q)
        return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])

    track = tr.traj.object_track(name)
    a, b = axis(track[0, 3:7]), axis(track[row, 3:7])
    cos = float(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12)
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def disturbance(tr: Track, g: Grounded, row: int | None = None) -> tuple[tuple[str, ...], str]:
    """Objects the task does not name that moved, dropped or fell over (see the module doc), and why."""
    end = tr.last if row is None else row
    named = {g.source, g.second, g.target}
    out, notes = [], []
    for o in tr.layout.objects:
        if o.name in named or o.shape == "label":
            continue
        moved = moved_xy(tr, o.name, end)
        dz = abs(tr.z(o.name, end) - tr.z(o.name, 0))
        tilt = 0.0 if o.shape in UPRIGHT_FREE else tilt_deg(tr, o.name, end)
        if moved >= DISTURB_MOVE or dz >= DISTURB_DROP or tilt >= TOPPLE_DEG:
            out.append(o.name)
            notes.append(f"{o.name} moved {moved:.3f} m, dz {dz:.3f} m, tilted {tilt:.0f} deg")
    return tuple(out), "; ".join(notes) if notes else "no other object disturbed"
