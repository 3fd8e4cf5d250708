"""Execution of the planner tools with the robot's low-level actions (Table C.3), every step counted.

- Go to Room X: the geodesic planner drives to the nearest point at least 0.6 m inside room X (a fixed
  point instead of the paper's random one, so that path lengths do not depend on a draw).
- Explore Room X: drive to the most central free point of X, then turn right until every bearing of the
  room's floor and furniture has been inside the field of view (at most a full turn; the paper turns 15
  times at a random point).
- Follow Human: Appendix 0.C.3; returns control every FOLLOW_CHUNK steps so the planner can decide again.
- Pick up OBJ / Put on RECEP / Put down: drive within reach of the mapped object / receptacle in the
  current room, then grab / put. A grab that closes on nothing removes the (stale) entry from the map.
- Give to Human: look for the human (turning towards where it was last seen), approach within 0.9 m
  while it stays visible, then give.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from heedful.sims.household.fields import Field, cached_field, disk
from heedful.sims.household.grid import Grid
from heedful.sims.household.house import room_viewpoint
from heedful.sims.household.model import HouseSpec, ReceptacleSpec, Rect
from heedful.sims.household.navigate import Pursuit, act, at_goal, navigate, turn_towards
from heedful.sims.household.sim import StepLimitError
from heedful.sims.household.vision import HEADINGS
from heedful.suites.household.payload import ToolFailure
from heedful.suites.household.runtime import TaskEnv, ToolOutcome
from heedful.suites.household.tools import ToolCall, check_available

ENTRY_DEPTH = 0.6
GRAB_APPROACH = 1.85
"""Approach radius for grabs: within the 2 m grab range even at a cell's far corner."""

PUT_APPROACH = 1.0
GIVE_APPROACH = 0.9
FOLLOW_CHUNK = 20
FOLLOW_GOAL_RADIUS = 1.0
SCAN_HALF_FOV = 39
"""Explore Room turns until every bearing of the room's floor and furniture has been in view."""
APPROACH_LIMIT = 200


def room_entry_field(env: TaskEnv, room: int) -> Field:
    return entry_field(env.grid, env.episode.house, room)


def entry_fields(grid: Grid, house: HouseSpec) -> list[Field]:
    """`entry_field` of every room, by room number (solved once per house, then cached on the grid)."""
    return [entry_field(grid, house, room.index) for room in house.rooms]


def entry_field(grid: Grid, house: HouseSpec, room: int) -> Field:
    """Path distance to `room`: to its cells `ENTRY_DEPTH` inside the walls (all its cells in a tiny room)."""
    spec = house.rooms[room]
    inset = house.wall_thickness / 2 + ENTRY_DEPTH

    def goal() -> np.ndarray:
        gx, gy = grid.centres()
        r = spec.rect
        deep = (gx > r.x0 + inset) & (gx < r.x1 - inset) & (gy > r.y0 + inset) & (gy < r.y1 - inset)
        return deep if (deep & grid.plan_free).any() else grid.room_mask(room)

    return cached_field(grid, ("room", room), goal)


def view_field(grid: Grid, house: HouseSpec, room: int) -> Field:
    """Path distance to `room`'s viewpoint, where Explore Room looks around (solved once, then cached on the grid)."""
    vx, vy = room_viewpoint(grid, house, room)
    return cached_field(grid, ("view", room), lambda: disk(grid, vx, vy, 0.25))


def reach_field(env: TaskEnv, key: str, x: float, y: float, radius: float, room: int) -> Field:
    grid = env.grid
    return cached_field(grid, ("reach", key, radius), lambda: disk(grid, x, y, radius) & grid.room_mask(room))


def _ok(env: TaskEnv, call: ToolCall, start: int, ok: bool, message: str, **typed: Any) -> ToolOutcome:
    return ToolOutcome(
        action=call.text,
        start_step=start,
        steps=env.sim.step - start,
        ok=ok,
        message=message,
        room=env.current_room(),
        **typed,
    )


def _failed(env: TaskEnv, call: ToolCall, start: int, failure: ToolFailure, message: str) -> ToolOutcome:
    return _ok(env, call, start, False, message, failure=failure)


def go_to_room(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    start, room = env.sim.step, int(call.room or 0)
    status = navigate(env.sim, room_entry_field(env, room))
    return _ok(
        env,
        call,
        start,
        status == "reached",
        f"you went to room {room}" if status == "reached" else f"could not reach room {room} ({status})",
    )


def _required_bearings(env: TaskEnv, room: int, x: float, y: float) -> np.ndarray:
    """One-degree bearing bins, seen from (x, y), of the room's floor and of every point of its furniture."""
    grid = env.grid
    gx, gy = grid.centres()
    cells = grid.room_mask(room)
    xs, ys = [gx[cells]], [gy[cells]]
    for rec in env.episode.house.receptacles_in(room):
        r = rec.rect
        px, py = np.meshgrid(np.linspace(r.x0, r.x1, 12), np.linspace(r.y0, r.y1, 12))
        xs.append(px.ravel())
        ys.append(py.ravel())
    px, py = np.concatenate(xs), np.concatenate(ys)
    near = np.hypot(px - x, py - y) <= env.sim.range_m
    bins = np.floor(np.degrees(np.arctan2(py[near] - y, px[near] - x)) % 360.0).astype(int) % 360
    required = np.zeros(360, dtype=bool)
    required[bins] = True
    return required


def _mark_view(covered: np.ndarray, heading: int) -> None:
    # bins wholly inside the 79 deg field of view around the heading
    covered[(heading * 10 + np.arange(-SCAN_HALF_FOV, SCAN_HALF_FOV)) % 360] = True


def explore_room(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    start, room, sim = env.sim.step, int(call.room or 0), env.sim
    field = view_field(env.grid, env.episode.house, room)
    status = navigate(sim, field)
    if status != "reached":
        return _failed(
            env, call, start, ToolFailure.UNREACHABLE, f"could not reach the middle of room {room} ({status})"
        )
    required = _required_bearings(env, room, sim.pose.x, sim.pose.y)
    covered = np.zeros(360, dtype=bool)
    _mark_view(covered, sim.pose.heading)
    turns = 0
    while (required & ~covered).any() and turns < HEADINGS:
        sim.turn(-1)
        _mark_view(covered, sim.pose.heading)
        turns += 1
    return _ok(env, call, start, True, f"you explored room {room}")


def grab(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    start, room, sim = env.sim.step, env.current_room(), env.sim
    found = env.map.objects_in(room, call.category)
    if not found:
        return _failed(env, call, start, ToolFailure.NOT_MAPPED, f"no {call.category} is mapped in room {room}")
    target = min(found, key=lambda m: (math.hypot(m.x - sim.pose.x, m.y - sim.pose.y), m.id))
    field = reach_field(env, f"{target.x:.3f},{target.y:.3f}", target.x, target.y, GRAB_APPROACH, room)
    status = navigate(sim, field, stop=lambda: target.id not in env.map.objects)
    if status not in ("reached", "stopped"):
        return _failed(env, call, start, ToolFailure.UNREACHABLE, f"could not reach the {call.category} ({status})")
    got = sim.grab(call.category)
    if got is None:
        # the gripper closed on nothing: the map entry was stale (Appendix 0.C.1 updates the map on grab)
        env.map.objects.pop(target.id, None)
        return _failed(env, call, start, ToolFailure.GRAB_FAILED, f"grab failed: no {call.category} within reach")
    return _ok(env, call, start, True, f"you picked up the {call.category}")


def put(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    start, room, sim = env.sim.step, env.current_room(), env.sim
    house = env.episode.house
    rids = env.map.receptacles_in(room, call.category)
    if sim.held is None or not rids:
        return _failed(
            env, call, start, ToolFailure.NOTHING_TO_PUT, "nothing to put, or no such receptacle mapped here"
        )
    recs = [house.receptacle(rid) for rid in rids]
    target = min(recs, key=lambda r: (r.rect.distance(sim.pose.x, sim.pose.y), r.id))
    status = navigate(sim, put_field(env, target))
    if status != "reached":
        return _failed(env, call, start, ToolFailure.UNREACHABLE, f"could not reach the {target.category} ({status})")
    placed = sim.put(call.category or target.category)
    if placed is None:
        return _failed(env, call, start, ToolFailure.PUT_FAILED, "put failed: no receptacle within reach")
    on = house.receptacle(placed).category
    return _ok(env, call, start, True, f"you put the object on the {on}", put_on=on)


def put_field(env: TaskEnv, receptacle: ReceptacleSpec) -> Field:
    """Field to the planner-free cells of the receptacle's room within PUT_APPROACH of it."""
    grid = env.grid
    return cached_field(
        grid,
        ("reach-rec", receptacle.id, PUT_APPROACH),
        lambda: _near_rect(env, receptacle.rect, PUT_APPROACH) & grid.room_mask(receptacle.room),
    )


def _near_rect(env: TaskEnv, rect: Rect, radius: float) -> np.ndarray:
    gx, gy = env.grid.centres()
    dx = np.maximum(np.maximum(rect.x0 - gx, 0.0), gx - rect.x1)
    dy = np.maximum(np.maximum(rect.y0 - gy, 0.0), gy - rect.y1)
    return np.asarray(dx * dx + dy * dy <= radius * radius)


def _human_field(env: TaskEnv, x: float, y: float, radius: float) -> Field:
    kx, ky = round(x / 0.2) * 0.2, round(y / 0.2) * 0.2
    return cached_field(env.grid, ("human", round(kx, 1), round(ky, 1), radius), lambda: disk(env.grid, kx, ky, radius))


def _look_for_human(env: TaskEnv) -> bool:
    """Turn towards where the human was last seen, then sweep a full turn to the right."""
    sim = env.sim
    last = env.map.human_last
    if last is not None:
        for _ in range(HEADINGS // 2):
            if sim.human_visible() or turn_towards(sim, last[1], last[2]) == 0:
                break
    for _ in range(HEADINGS):
        if sim.human_visible():
            return True
        sim.turn(-1)
    return sim.human_visible()


def give(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    start, sim = env.sim.step, env.sim
    if not _look_for_human(env):
        return _failed(env, call, start, ToolFailure.HUMAN_NOT_SEEN, "you do not see the human")
    pursuit: Pursuit | None = None
    key = None
    for _ in range(APPROACH_LIMIT):
        last = env.map.human_last
        if last is None:
            break
        hx, hy = last[1], last[2]
        if math.hypot(hx - sim.pose.x, hy - sim.pose.y) <= GIVE_APPROACH:
            if sim.human_visible():
                if sim.give():
                    return _ok(env, call, start, True, "you gave the object to the human")
            elif turn_towards(sim, hx, hy) == 0:
                sim.turn(-1)
            continue
        new_key = (round(hx / 0.2), round(hy / 0.2))
        if pursuit is None or new_key != key:
            key, pursuit = new_key, Pursuit(sim, _human_field(env, hx, hy, GIVE_APPROACH - 0.2))
        action = pursuit.action()
        if action is None:
            return _failed(env, call, start, ToolFailure.UNREACHABLE, "could not reach the human")
        act(sim, action)
    return _failed(env, call, start, ToolFailure.UNREACHABLE, "could not reach the human in time")


def follow_human(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    start, sim = env.sim.step, env.sim
    try:
        message = _follow(env, start)
    finally:
        env.followed_steps += sim.step - start
    return _ok(env, call, start, True, message)


def _human_moving(env: TaskEnv) -> bool:
    """Whether the human moved between its last two sightings; True (wait and see) when they are far apart."""
    track = env.map.human_track
    if len(track) < 2:
        return True
    (t0, x0, y0), (t1, x1, y1) = track[-2], track[-1]
    if t1 - t0 > 3:
        return True
    return math.dist((x0, y0), (x1, y1)) > 0.02 * (t1 - t0)


def _follow(env: TaskEnv, start: int) -> str:
    sim = env.sim
    last = env.map.human_last
    if last is None:
        return "you have not seen the human"
    goal = (last[1], last[2])
    while sim.step - start < FOLLOW_CHUNK:
        last = env.map.human_last or last
        if math.dist(goal, (last[1], last[2])) > 0.5:
            goal = (last[1], last[2])
        field = _human_field(env, goal[0], goal[1], FOLLOW_GOAL_RADIUS)
        if at_goal(sim, field) or math.dist(goal, (sim.pose.x, sim.pose.y)) <= FOLLOW_GOAL_RADIUS:
            if sim.human_visible():
                if not _human_moving(env):
                    return "the human stopped"
                # close behind a walking human: keep it in view while it walks on
                if turn_towards(sim, last[1], last[2]) == 0:
                    sim.turn(1)
                continue
            if not _scan_for_move(env, goal):
                return "you either lost track of the human or the human stopped"
            continue
        target = goal
        before = sim.step
        status = navigate(
            sim,
            field,
            stop=lambda target=target: (  # type: ignore[misc]
                sim.step - start >= FOLLOW_CHUNK
                or (env.map.human_last is not None and math.dist(target, env.map.human_last[1:]) > 0.5)
            ),
        )
        if status in ("stuck", "unreachable") or sim.step == before:
            return "you could not keep up with the human"
    last = env.map.human_last
    return f"you were following the human; the human was at step {last[0] if last else '?'}"


def _scan_for_move(env: TaskEnv, goal: tuple[float, float]) -> bool:
    """Turn on the spot (a full turn at most, even past the chunk) looking for the human somewhere new."""
    sim = env.sim
    for _ in range(HEADINGS):
        sim.turn(-1)
        last = env.map.human_last
        if last is not None and last[0] == sim.step and math.dist(goal, last[1:]) > 0.5:
            return True
    return False


def execute(env: TaskEnv, call: ToolCall) -> ToolOutcome:
    """Run one tool call; an unavailable call fails without a step, the step limit ends the episode."""
    start = env.sim.step
    problem = check_available(env, call)
    if problem is not None:
        return _failed(env, call, start, ToolFailure.UNAVAILABLE, problem)
    if call.name == "done":
        env.done = True
        return _ok(env, call, start, True, "you declared the task done")
    runner = {
        "go_to_room": go_to_room,
        "explore_room": explore_room,
        "follow_human": follow_human,
        "grab": grab,
        "put": put,
        "give": give,
    }[call.name]
    try:
        return runner(env, call)
    except StepLimitError:
        env.done = True
        return _failed(env, call, start, ToolFailure.STEP_LIMIT, f"the step limit of {env.sim.max_steps} was reached")
