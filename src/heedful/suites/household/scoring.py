"""Task success of one episode (Section 5 of the paper).

- Receptacle goal: an object of the target category rests on a receptacle of the goal category.
- Room goal: an object of the target category rests (gripper open) inside a room of the goal function.
- Human goal: the human holds an object of the target category; a *clear* S_hum task also fails when the
  agent followed the human for more than 50 steps (unconditional probing lowers the robot's utility).
The step limit (600) is enforced by the simulator. SPL is `metrics.spl`.
"""

from __future__ import annotations

from dataclasses import dataclass

from heedful.sims.household.sim import ObjectState
from heedful.suites.household.metrics import spl
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.runtime import TaskEnv

CLEAR_FOLLOW_LIMIT = 50


def goal_reached(episode: HouseholdEpisode, objects: list[ObjectState]) -> bool:
    """Whether the final object states satisfy the goal (ignoring the following rule)."""
    house = episode.house
    goal = episode.goal
    for obj in objects:
        if obj.category != episode.target_category:
            continue
        if goal.kind == "human":
            if obj.holder == "human":
                return True
            continue
        if obj.holder is not None or obj.receptacle is None:
            continue
        if goal.kind == "receptacle" and house.receptacle(obj.receptacle).category == goal.receptacle:
            return True
        if goal.kind == "room":
            room = house.room_at(obj.x, obj.y)
            if room >= 0 and house.rooms[room].function == goal.function:
                return True
    return False


@dataclass(frozen=True)
class EpisodeScore:
    success: bool
    steps: int
    oracle_steps: int
    spl: float
    followed_steps: int
    reason: str


def score(env: TaskEnv) -> EpisodeScore:
    """Success, SPL and path lengths of a finished episode."""
    episode = env.episode
    reached = goal_reached(episode, list(env.sim.objects.values()))
    over_followed = (
        episode.task_type == "s_hum" and episode.ambiguous is False and env.followed_steps > CLEAR_FOLLOW_LIMIT
    )
    success = reached and not over_followed
    if success:
        reason = "goal reached"
    elif over_followed:
        reason = f"clear task, but the agent followed the human for {env.followed_steps} steps (> {CLEAR_FOLLOW_LIMIT})"
    else:
        reason = "goal not reached"
    steps = env.sim.step
    return EpisodeScore(
        success=success,
        steps=steps,
        oracle_steps=episode.oracle_steps,
        spl=spl(success, steps, episode.oracle_steps),
        followed_steps=env.followed_steps,
        reason=reason,
    )
