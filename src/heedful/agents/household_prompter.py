"""`household/prompter`: the paper's Prompter (Section 4.2), an open-loop language-model planner.

At t = 0 the model writes one plan in a fixed format ("[Pick up OBJ, Put on the RECEP]", "[Pick up OBJ,
Put in the ROOM]" or "[Pick up OBJ, Give OBJ to Human]", the form chosen from the command's wording). In
S_hum tasks it is first asked, once, whether there is enough evidence of the room the human walks to; "Not
Enough Evidence" puts Follow Human before the plan, as in the paper.

The plan is then executed without asking for actions: a step whose object or receptacle is on the map
goes to the nearest room holding it (by path length) and acts there. When it is not on the map, and for a
room-function goal or the human's room (unless the agent followed the human to it), the model is asked
"In which room, is the X likely to be in? ... Answer: Room X"; the agent explores (object) or goes to
(receptacle, room, human) that room, and asks again if that did not help. A step gives up after 3 failed
tool calls (8 for Give to Human, which waits for a human still on the way, as the oracle does) and the
plan ends with Done. An unreadable answer ends the episode as a parsing failure.

With `constrain=True` each question carries a JSON schema (`household_json`): the plan is a list of steps
of the plan vocabulary, the search answer one of "Room 0" ... "Room N-1", the evidence answer one of the two
choices.
"""

from __future__ import annotations

import re
from typing import Any

from heedful.agents.household_answers import (
    EVIDENCE_CHOICES,
    NOT_ENOUGH,
    Reading,
    read_evidence,
    read_plan,
    read_room,
)
from heedful.agents.household_json import plan_question, room_question
from heedful.agents.household_llm import CALL_LIMIT, CallLimitError, HouseholdLLMAgent, Turn
from heedful.agents.household_text import following_ended
from heedful.replies import AgentReply
from heedful.suites.household.observation import HouseholdObservation

FOLLOW = "Follow Human"
STEP_PATIENCE = 3
GIVE_PATIENCE = 8


class _SearchError(Exception):
    """The search answer named no room of the house."""


def plan_format(command: str) -> tuple[str, str]:
    """The plan format and example the planning prompt asks for, chosen from the command's wording."""
    words = command.lower()
    if re.search(r"\bto me\b", words):
        return "[Pick up OBJ, Give OBJ to Human]", "[Pick up saltshaker, Give saltshaker to Human]"
    if re.search(r"\bon the\b", words):
        return "[Pick up OBJ, Put on the RECEP]", "[Pick up saltshaker, Put on the table]"
    return "[Pick up OBJ, Put in the ROOM]", "[Pick up saltshaker, Put in the bedroom]"


def _plan_reading(text: str) -> Reading:
    steps, reason = read_plan(text)
    return Reading(None, reason) if reason else Reading(", ".join(f"{kind} {arg}".strip() for kind, arg in steps))


def _nearest(obs: HouseholdObservation, rooms: list[int]) -> int:
    return min(rooms, key=lambda r: (obs.room_distances[r], r))


class PrompterAgent(HouseholdLLMAgent):
    """The paper's Prompter; options as for every `llm` agent (see `HouseholdLLMAgent`)."""

    name = "prompter"
    templates = ("household-plan", "household-search", "household-prompter-evidence")

    def act(self, observation: HouseholdObservation) -> AgentReply:
        turn = self.turn(observation)
        try:
            if "plan" not in observation.memory:
                failure = self._make_plan(turn, observation)
                if failure is not None:
                    return failure
            return self._execute(turn, observation)
        except CallLimitError as limit:
            return turn.end(CALL_LIMIT, str(limit))
        except _SearchError as failed:
            return turn.parse_failure("search", str(failed))

    def _make_plan(self, turn: Turn, obs: HouseholdObservation) -> AgentReply | None:
        follow_first = False
        if obs.human_walks and FOLLOW in obs.available_actions:
            form = self.choice_form(EVIDENCE_CHOICES)
            reading = turn.ask("evidence", "household-prompter-evidence", read_evidence, form)
            if reading.value is None:
                return turn.parse_failure("evidence", str(reading.reason))
            follow_first = reading.value == NOT_ENOUGH
        plan_form, example = plan_format(obs.command)
        form = plan_question() if self.constrain else None
        reading = turn.ask("plan", "household-plan", _plan_reading, form, plan_format=plan_form, plan_example=example)
        if reading.value is None:
            return turn.parse_failure("plan", str(reading.reason))
        steps, _ = read_plan(turn.last_text)
        obs.memory["plan"] = [["follow", ""]] * follow_first + [list(step) for step in steps]
        obs.memory["step_index"], obs.memory["step_fails"] = 0, 0
        return None

    def _execute(self, turn: Turn, obs: HouseholdObservation) -> AgentReply:
        memory: dict[str, Any] = obs.memory
        plan = memory["plan"]
        if obs.history and not obs.history[-1].ok and memory["step_index"] < len(plan):
            memory["step_fails"] += 1
            kind = plan[memory["step_index"]][0]
            if memory["step_fails"] >= (GIVE_PATIENCE if kind == "give" else STEP_PATIENCE):
                return turn.reply(
                    "Done", gave_up=f"step {memory['step_index']} ({kind}) failed {memory['step_fails']} times"
                )
        while memory["step_index"] < len(plan):
            kind, arg = plan[memory["step_index"]]
            action = getattr(self, f"_{kind}")(turn, obs, arg)
            if action is not None:
                return turn.reply(action)
            memory["step_index"] += 1
            memory["step_fails"] = 0
            memory.pop("search_room", None)
        return turn.reply("Done")

    def _search(self, turn: Turn, obs: HouseholdObservation, target: str) -> int:
        """Ask the model where `target` is; a reply that names no room ends the episode (raised)."""
        rooms = len(obs.rooms)
        form = room_question(rooms) if self.constrain else None
        reading = turn.ask("search", "household-search", lambda t: read_room(t, rooms), form, target=target)
        if reading.value is None:
            raise _SearchError(str(reading.reason))
        return int(reading.value)

    # step handlers: the next tool call of the step, or None when the step is complete

    def _follow(self, turn: Turn, obs: HouseholdObservation, _: str) -> str | None:
        if FOLLOW not in obs.available_actions or following_ended(obs):
            obs.memory["followed"] = FOLLOW in obs.available_actions
            return None
        return FOLLOW

    def _pick(self, turn: Turn, obs: HouseholdObservation, category: str) -> str | None:
        if obs.holding is not None:
            return None if obs.holding == category else "Done"
        if f"Pick up {category}" in obs.available_actions:
            return f"Pick up {category}"
        rooms = [r.index for r in obs.rooms if any(obj == category for obj, _ in r.objects)]
        if rooms and _nearest(obs, rooms) != obs.current_room:
            return f"Go to Room {_nearest(obs, rooms)}"
        return f"Explore Room {self._search(turn, obs, category)}"

    def _put_on(self, turn: Turn, obs: HouseholdObservation, receptacle: str) -> str | None:
        if obs.holding is None:
            return None
        if f"Put on {receptacle}" in obs.available_actions:
            return f"Put on {receptacle}"
        rooms = [r.index for r in obs.rooms if receptacle in r.receptacles and r.index != obs.current_room]
        room = _nearest(obs, rooms) if rooms else self._search(turn, obs, receptacle)
        return f"Go to Room {room}" if room != obs.current_room else "Done"

    def _put_in(self, turn: Turn, obs: HouseholdObservation, function: str) -> str | None:
        if obs.holding is None:
            return None
        room = obs.memory.get("search_room")
        if room is None:
            room = obs.memory["search_room"] = self._search(turn, obs, function)
        if obs.current_room != room:
            return f"Go to Room {room}"
        return "Put down" if "Put down" in obs.available_actions else "Done"

    def _give(self, turn: Turn, obs: HouseholdObservation, _: str) -> str | None:
        if obs.holding is None:
            return None
        room = obs.memory.get("search_room")
        if room is None:
            followed = obs.memory.get("followed") and obs.human.last_room is not None
            room = obs.human.last_room if followed else self._search(turn, obs, "human")
            obs.memory["search_room"] = room
        return f"Go to Room {room}" if obs.current_room != room else "Give to Human"
