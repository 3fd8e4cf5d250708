"""The oracle planner (Appendix 0.D.1): the ground-truth plan, exploring only when the target is not seen.

It reads the true state (where the target object is now, the goal, the human's destination) and issues
the same tool calls any planner may issue. It never follows the human: in S_hum it fetches the object and
goes straight to the human's destination room, then gives (waiting there for a human still on the way;
when the human has arrived but stands out of sight in a large room, it scans the room once first).
Among several objects of the target category
and several fitting goals it takes the pair with the shortest geodesic path. Its step count defines
L_oracle for SPL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heedful.sims.household.fields import Field, sample
from heedful.suites.household.executors import GRAB_APPROACH, put_field, reach_field, room_entry_field
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.scoring import goal_reached

GIVE_UP_AFTER = 3
"""The oracle declares Done after the same call failed this many times in a row ..."""

GIVE_UP_AFTER_GIVE = 8
"""... except Give to Human: the oracle waits (looking around) for a human who is still on the way."""


@dataclass(frozen=True)
class OraclePlan:
    object_id: str
    goal_room: int
    goal_receptacle: str | None


def _object_field(env: TaskEnv, oid: str) -> Field:
    obj = env.sim.objects[oid]
    room = env.episode.house.room_at(obj.x, obj.y)
    return reach_field(env, f"{obj.x:.3f},{obj.y:.3f}", obj.x, obj.y, GRAB_APPROACH, room)


def _goal_options(env: TaskEnv) -> list[tuple[int, str | None, Field]]:
    """(room, receptacle id or None, field to reach it) for every place that satisfies the goal."""
    episode, house = env.episode, env.episode.house
    goal = episode.goal
    if goal.kind == "human":
        room = int(episode.human.destination_room or 0)
        return [(room, None, room_entry_field(env, room))]
    if goal.kind == "receptacle":
        recs = [r for r in house.receptacles if r.category == goal.receptacle and r.id in env.map.receptacles]
        return [(r.room, r.id, put_field(env, r)) for r in recs]
    rooms = [i for i in house.rooms_of(str(goal.function)) if env.map.receptacles_in(i)]
    return [(i, None, room_entry_field(env, i)) for i in rooms]


def make_plan(env: TaskEnv) -> OraclePlan:
    """The object instance and goal place with the shortest geodesic detour from the agent's start."""
    episode, sim = env.episode, env.sim
    if episode.task_type == "s_obj":
        candidates = [r.object_id for r in episode.relocations if r.category == episode.target_category]
    else:
        candidates = [
            o.id for o in sim.free_objects() if o.category == episode.target_category and o.id in episode.premap.objects
        ]
    options = _goal_options(env)
    best: tuple[float, str, int, str | None] | None = None
    x, y = np.array([sim.pose.x]), np.array([sim.pose.y])
    for oid in sorted(candidates):
        field = _object_field(env, oid)
        to_object = float(sample(env.grid, field, x, y)[0])
        reach = field == 0.0
        for room, rid, goal_field in options:
            onward = float(goal_field[reach].min()) if reach.any() else np.inf
            cost = to_object + onward
            if best is None or cost < best[0]:
                best = (cost, oid, room, rid)
    if best is None:
        return OraclePlan(object_id=candidates[0] if candidates else "", goal_room=0, goal_receptacle=None)
    return OraclePlan(object_id=best[1], goal_room=best[2], goal_receptacle=best[3])


def _gave_up(env: TaskEnv) -> bool:
    if not env.history:
        return False
    patience = GIVE_UP_AFTER_GIVE if env.history[-1].action == "Give to Human" else GIVE_UP_AFTER
    recent = env.history[-patience:]
    return len(recent) == patience and all(not h.ok and h.action == recent[0].action for h in recent)


def _human_out_of_sight(env: TaskEnv, room: int) -> bool:
    """The last Give failed although the human had already arrived (so it stands out of sight in a large
    room) and the oracle has not scanned the room yet: exploration as required (Appendix 0.D.1)."""
    history = env.history
    if not history or history[-1].action != "Give to Human" or history[-1].ok:
        return False
    if any(h.action == f"Explore Room {room}" for h in history):
        return False
    return env.sim.human.arrival_step <= history[-1].start_step


def oracle_action(env: TaskEnv) -> str:
    """The oracle's next tool call."""
    episode, sim = env.episode, env.sim
    task = (episode.target_category, episode.goal)  # a new task mid-episode (--reinstruct) gets a new plan
    memo = env.scratch.get("oracle")
    if isinstance(memo, tuple) and memo[0] == task:
        plan = memo[1]
    else:
        plan = make_plan(env)
        env.scratch["oracle"] = (task, plan)
    if goal_reached(episode, list(sim.objects.values())) or _gave_up(env) or not plan.object_id:
        return "Done"
    here = env.current_room()
    category = episode.target_category
    if env.holding is not None and env.holding != category:
        return "Put down"  # what an earlier task had it carry (--reinstruct)
    if env.holding != category:
        obj = sim.objects[plan.object_id]
        if obj.holder is not None:
            return "Done"
        room = episode.house.room_at(obj.x, obj.y)
        if here != room:
            return f"Go to Room {room}"
        if env.map.objects_in(room, category):
            return f"Pick up {category}"
        return f"Explore Room {room}"
    if here != plan.goal_room:
        return f"Go to Room {plan.goal_room}"
    goal = episode.goal
    if goal.kind == "human":
        return f"Explore Room {plan.goal_room}" if _human_out_of_sight(env, plan.goal_room) else "Give to Human"
    if goal.kind == "receptacle":
        return f"Put on {goal.receptacle}"
    return "Put down"
