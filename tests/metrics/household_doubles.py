"""Test doubles for the household error modes: planners that fail in one scripted way each.

They are privileged (they read the live state to steer into the failure they script); most of them follow
the oracle's ground-truth plan up to the point where they go wrong.
"""

from __future__ import annotations

from collections.abc import Callable

from heedful.agents.base import AgentReply
from heedful.suites.household.observation import HouseholdObservation
from heedful.suites.household.oracle import oracle_action
from heedful.suites.household.runtime import TaskEnv

Policy = Callable[[HouseholdObservation, TaskEnv], str]


class PolicyDouble:
    """Test double: answers what `policy(observation, live state)` says."""

    name = "policy-double"
    privileged = True

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def act(self, observation: HouseholdObservation) -> AgentReply:
        env = observation.privileged
        assert isinstance(env, TaskEnv), "the rollout hands privileged test doubles the live state"
        return AgentReply(text=self.policy(observation, env))


def holds_target(env: TaskEnv) -> bool:
    return env.holding == env.episode.target_category


def done_at_once(obs: HouseholdObservation, env: TaskEnv) -> str:
    return "Done"


def garbage(obs: HouseholdObservation, env: TaskEnv) -> str:
    return "I would rather dance"


def done_when_holding(obs: HouseholdObservation, env: TaskEnv) -> str:
    return "Done" if holds_target(env) else oracle_action(env)


def over_follow(obs: HouseholdObservation, env: TaskEnv) -> str:
    return "Follow Human" if len(obs.history) < 3 else "Done"


def search_elsewhere(obs: HouseholdObservation, env: TaskEnv) -> str:
    """Explore, once each, only rooms that hold no object of the target category; then Done."""
    target = env.episode.target_category
    house = env.episode.house
    holding_rooms = {house.room_at(o.x, o.y) for o in env.sim.free_objects() if o.category == target}
    explored = {h.action for h in obs.history}
    for room in house.rooms:
        action = f"Explore Room {room.index}"
        if room.index not in holding_rooms and action not in explored:
            return action
    return "Done"


def wrong_object(obs: HouseholdObservation, env: TaskEnv) -> str:
    """Pick up the first object of another category it can, then Done."""
    if env.sim.held is not None:
        return "Done"
    target = env.episode.target_category
    picks = [a for a in obs.available_actions if a.startswith("Pick up ") and a != f"Pick up {target}"]
    if picks:
        return picks[0]
    explored = {h.action for h in obs.history}
    return next(
        (f"Explore Room {r.index}" for r in env.episode.house.rooms if f"Explore Room {r.index}" not in explored),
        "Done",
    )


def put_on_other(obs: HouseholdObservation, env: TaskEnv) -> str:
    """Oracle until holding the target, then put it on the first other receptacle it can, then Done."""
    if obs.history and obs.history[-1].ok and obs.history[-1].action.startswith("Put"):
        return "Done"
    if not holds_target(env):
        return oracle_action(env)
    goal = env.episode.goal.receptacle
    puts = [a for a in obs.available_actions if a.startswith("Put on ") and a != f"Put on {goal}"]
    if puts:
        return puts[0]
    gone = {h.action for h in obs.history}
    return next(
        (f"Go to Room {r.index}" for r in env.episode.house.rooms if f"Go to Room {r.index}" not in gone), "Done"
    )


def drop_in_wrong_room(obs: HouseholdObservation, env: TaskEnv) -> str:
    """Oracle until holding the target, then Put down in a room of another function, then Done."""
    if obs.history and obs.history[-1].ok and obs.history[-1].action.startswith("Put"):
        return "Done"
    if not holds_target(env):
        return oracle_action(env)
    house, goal = env.episode.house, env.episode.goal.function
    here = env.current_room()
    if house.rooms[here].function != goal and "Put down" in obs.available_actions:
        return "Put down"
    other = next(r.index for r in house.rooms if r.function != goal and env.map.receptacles_in(r.index))
    return f"Go to Room {other}"


def give_in_wrong_room(obs: HouseholdObservation, env: TaskEnv) -> str:
    """Oracle until holding the target, then wait for the human in a room it will never come to."""
    if not holds_target(env):
        return oracle_action(env)
    house = env.episode.house
    walked = {house.room_at(*env.sim.human.position(t)) for t in range(0, env.sim.max_steps, 2)}
    wrong = next(r.index for r in house.rooms if r.index not in walked)
    return "Give to Human" if env.current_room() == wrong else f"Go to Room {wrong}"
