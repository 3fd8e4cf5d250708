"""`sweep`: the language-blind searcher, a control for the household suite (issue 40).

It reads the instruction's object and goal ("Put a cup on the table", "Put a cup in the kitchen", "Bring a cup
to me") and nothing else: not what the human said about where it moved things or where it will be, and not
how the human moves. It fetches the object as `commonsense` does without the words (where the premap showed it,
then every room, nearest first, exploring each) and delivers to a receptacle or room goal as `commonsense` does;
to the human it tries the rooms greedily: one Give to Human in the nearest room it has tried least, then the
next. PnP needs no more than this (the paper's control: every agent should solve it); an S_obj or S_hum task on
which `sweep` scores as well as `situated` would not need the words or the human it claims to need.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from heedful.agents.household import CommonsenseAgent, Facts, by_distance, rooms_after
from heedful.suites.household import language as lang
from heedful.suites.household.observation import HouseholdObservation


class SweepAgent(CommonsenseAgent):
    """The object and the goal kind from the instruction; blind to the place words and to the human."""

    name = "sweep"

    @staticmethod
    def _moved_place(obs: HouseholdObservation, category: str) -> lang.Place | None:
        return None  # never reads "I took a cup and moved it with me. I am ..."

    def _deliver(self, obs: HouseholdObservation, command: lang.Command, facts: Facts) -> str:
        if command.goal_kind != "human":
            return super()._deliver(obs, command, facts)
        # "I will be ..." is never read: every room is a candidate, the least tried nearest first
        tried = Counter(room for action, ok, room in rooms_after(obs) if action == "Give to Human" and not ok)
        rooms = by_distance(range(len(obs.rooms)), obs)
        least = min(tried[room] for room in rooms)
        room = next(r for r in rooms if tried[r] == least)
        if obs.current_room != room:
            return f"Go to Room {room}"
        return "Give to Human"

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "reads": "the instruction's object and goal only; ignores what the human said about places and its motion",
        }
