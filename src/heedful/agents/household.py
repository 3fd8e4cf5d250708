"""Baseline planners for the household suite (Situated Instruction Following).

- `oracle` follows the ground-truth plan (it reads the true state from `observation.privileged`),
  explores only when the target is not in view and never follows the human. It defines L_oracle.
- `commonsense` reads the words only and knows room functions only through priors: it guesses each
  room's function from the furniture on its map, searches the rooms that fit what the human said
  (nearest first) and ignores how the human moves (it never follows, never uses the walking direction).
  Like the paper's commonsense planners it does well on PnP and worse on S_obj and S_hum.

Both are pure functions of the observation (its history included), so they keep no state between calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from heedful.agents.base import AgentReply
from heedful.errors import ConfigError
from heedful.suites.household import language as lang
from heedful.suites.household.observation import HouseholdObservation, RoomView
from heedful.suites.household.oracle import oracle_action
from heedful.suites.household.runtime import TaskEnv

GIVE_PATIENCE = 2
"""Failed Give to Human calls (each a look around) in a room before trying the next fitting room ..."""
LAST_ROOM_PATIENCE = 8
"""... and in the last fitting room left."""


class OracleAgent:
    """The ground-truth plan (privileged: the rollout hands it the live state)."""

    name = "oracle"
    privileged = True

    def act(self, observation: HouseholdObservation) -> AgentReply:
        env = observation.privileged
        if not isinstance(env, TaskEnv):
            raise ConfigError(f"episode {observation.episode_id}: the oracle needs the privileged episode state")
        return AgentReply(text=oracle_action(env))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "the true state (privileged); never follows the human"}


def _facts(rooms: Sequence[RoomView]) -> dict[int, lang.RoomFacts]:
    return {
        r.index: lang.RoomFacts(lang.guess_function(r.receptacles), frozenset(r.receptacles), r.wall_colour)
        for r in rooms
    }


def _by_distance(rooms: Sequence[int], obs: HouseholdObservation) -> list[int]:
    return sorted(rooms, key=lambda i: (obs.room_distances[i], i))


def _rooms_after(obs: HouseholdObservation) -> list[tuple[str, bool, int]]:
    """(action, ok, room the agent was in after it) for each past tool call."""
    return [(item.action, item.ok, item.room) for item in obs.history]


class CommonsenseAgent:
    """Room-function priors and the literal words; blind to the human's movement."""

    name = "commonsense"

    def act(self, observation: HouseholdObservation) -> AgentReply:
        return AgentReply(text=self.decide(observation))

    def decide(self, obs: HouseholdObservation) -> str:
        command = lang.parse_command(obs.command)
        last = obs.history[-1] if obs.history else None
        if command is None or (last is not None and last.ok and last.action.startswith(("Put", "Give"))):
            return "Done"
        facts = _facts(obs.rooms)
        if obs.holding != command.category:
            return self._fetch(obs, command, facts)
        return self._deliver(obs, command, facts)

    def _fetch(self, obs: HouseholdObservation, command: lang.Command, facts: dict[int, lang.RoomFacts]) -> str:
        category = command.category
        failed = {room for action, ok, room in _rooms_after(obs) if action == f"Pick up {category}" and not ok}
        place = lang.moved_object_place(obs.communication, category)
        fresh = [room for cat, room in obs.seen_now if cat == category and room not in failed]
        # where the words say it went, or where it was seen during this task (the premap may be stale)
        trusted = set(fresh) | (
            set(lang.rooms_fitting(place, facts)) if place is not None else set(range(len(obs.rooms)))
        )
        here = obs.current_room
        if f"Pick up {category}" in obs.available_actions and here not in failed and here in trusted:
            return f"Pick up {category}"
        if fresh:  # seen during this task: go and take it
            return f"Go to Room {_by_distance(fresh, obs)[0]}"
        on_map = [r.index for r in obs.rooms if any(obj == category for obj, _ in r.objects)]
        order = _by_distance(lang.rooms_fitting(place, facts), obs) if place is not None else []
        order += _by_distance(on_map, obs)
        order += _by_distance([i for i in range(len(obs.rooms)) if i not in order], obs)
        explored = {room for action, ok, room in _rooms_after(obs) if ok and action.startswith("Explore Room ")}
        for room in dict.fromkeys(order):
            if room in explored:
                continue
            if obs.current_room != room or not self._arrived(obs, room):
                return f"Go to Room {room}"
            return f"Explore Room {room}"
        return "Done"

    @staticmethod
    def _arrived(obs: HouseholdObservation, room: int) -> bool:
        return (
            bool(obs.history)
            and obs.history[-1].ok
            and obs.history[-1].action
            in (
                f"Go to Room {room}",
                f"Explore Room {room}",
            )
        )

    def _deliver(self, obs: HouseholdObservation, command: lang.Command, facts: dict[int, lang.RoomFacts]) -> str:
        if command.goal_kind == "human":
            place = command.human_place
            rooms = _by_distance(lang.rooms_fitting(place, facts), obs) if place else []
            fails = Counter(room for action, ok, room in _rooms_after(obs) if action == "Give to Human" and not ok)
            untried = [r for r in rooms if not fails[r]]
            for room in rooms:
                # wait a little where the words point, longer when no other room is left to try
                patience = GIVE_PATIENCE if any(u != room for u in untried) else LAST_ROOM_PATIENCE
                if fails[room] >= patience:
                    continue
                if obs.current_room != room:
                    return f"Go to Room {room}"
                return "Give to Human"
            return "Done"
        if command.goal_kind == "receptacle":
            rooms = [r.index for r in obs.rooms if command.receptacle in r.receptacles]
            action = f"Put on {command.receptacle}"
        else:
            rooms = [i for i, f in facts.items() if f.function == command.function and obs.rooms[i].receptacles]
            action = "Put down"
        if not rooms:
            return "Done"
        if obs.current_room in rooms and action in obs.available_actions:
            return action
        return f"Go to Room {_by_distance(rooms, obs)[0]}"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "the words and the map; room functions by priors; ignores human motion"}
