"""The text pieces of the household language-model prompts (Appendix 0.B), filled into template files.

The map is turned into text room by room ("Room 0 (yellow walls) has: chair, shoe on a chair, ..."), rooms
named by number and wall colour only. The history interleaves each past tool call with what was observed
right after it (as in ReAct): the agent notes, at each call, the room it scanned or the human it followed
during the tool that just ended, in the episode's `memory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heedful.suites.household.observation import HouseholdObservation, RoomView

CAVEAT = (
    "Your observations (and the map) can be stale/ incorrect/ missing, because the human moved objects since "
    "you had premapped the house, or your vision system is imperfect."
)
"""The paper's caveat after each map (the templates write it after the premap and the latest map themselves)."""
FOLLOWING = "you were following the human"
"""How a Follow Human chunk that was cut at 20 steps begins its message (it did not end the following)."""


def listing(rooms: Sequence[RoomView]) -> str:
    return "; ".join(room.listing() for room in rooms)


def said(obs: HouseholdObservation) -> str:
    """What the human said before the command, in the paper's words ("a little after that, ... A little ...")."""
    text = "".join(f"A little after that, the human said '{c}'. " for c in obs.communication)
    return text[:1].lower() + text[1:]


def human_last(obs: HouseholdObservation) -> str:
    """Where the human was last seen and, when the track says so, the rooms it walks towards."""
    human = obs.human
    if human.last_room is None:
        return "You have not seen the human."
    step = human.last_step or 0
    when = f"at time step {step}" if step >= 0 else f"{-step} time steps before the task began"
    return f"When you last saw the human ({when}), the human was in room {human.last_room}{towards(obs)}."


def towards(obs: HouseholdObservation) -> str:
    rooms = obs.human.walking_towards
    return f", walking towards rooms {', '.join(map(str, rooms))}" if rooms else ""


def human_seen(obs: HouseholdObservation) -> str:
    """For a walking human: where it was when it spoke and where it was last seen; for a human seen carrying
    the object away (S_obj): where it took it and where it was last seen; empty otherwise."""
    if obs.human_carrying is not None and obs.human.first_room is not None:
        return (
            f" Before the human said this, you saw the human take the {obs.human_carrying} in room "
            f"{obs.human.first_room} and carry it away. {human_last(obs)}"
        )
    if not obs.human_walks:
        return ""
    first = obs.human.first_room
    start = (
        f" Right after the human said this, you saw the human in room {first}, starting to walk towards somewhere."
        if first is not None
        else " Right after the human said this, you did not see the human."
    )
    return f"{start} {human_last(obs)}" if obs.human.last_room is not None else start


def _room_view(obs: HouseholdObservation, room: int) -> str:
    return f"{obs.rooms[room].listing()}; {CAVEAT}" if 0 <= room < len(obs.rooms) else CAVEAT


def note_for_last_tool(obs: HouseholdObservation) -> str:
    """The history line of the tool that just ended, with what the agent observed during it."""
    item = obs.history[-1]
    t = item.start_step + item.steps
    seen = f"Based on the premap and the parts of the rooms that you scanned just now, in map {t} (at time step {t}), "
    if item.action.startswith("Explore Room ") and item.ok:
        return (
            f"Timestep {t} : You checked room {item.room}; you scanned some parts of it (and did not scan other "
            f"parts). {seen}you saw that {_room_view(obs, item.room)}"
        )
    if item.action.startswith("Go to Room ") and item.ok:
        return f"Timestep {t} : You went to room {item.room}. {seen}you saw that {_room_view(obs, item.room)}"
    if item.action == "Follow Human" and item.ok:
        human = obs.human
        where = f"the human was in room {human.last_room}" if human.last_room is not None else "you did not see it"
        ended = "" if item.message.startswith(FOLLOWING) else f" Then the following ended: {item.message}."
        return f"Timestep {t} : You were following the human; {where}{towards(obs)}.{ended}"
    verdict = "it worked" if item.ok else "it failed"
    return f"Timestep {t} : You chose '{item.action}'; {verdict}: {item.message}. You are in room {item.room}."


def update_notes(obs: HouseholdObservation) -> list[str]:
    """The history lines so far (one per past tool call), noting the last tool's observations once."""
    notes: list[str] = obs.memory.setdefault("notes", [])
    while len(notes) < len(obs.history) - 1:  # a call the agent was not asked after (cannot happen in the loop)
        item = obs.history[len(notes)]
        notes.append(f"Timestep {item.start_step + item.steps} : You chose '{item.action}'; {item.message}.")
    if obs.history and len(notes) < len(obs.history):
        notes.append(note_for_last_tool(obs))
    return notes


def following_ended(obs: HouseholdObservation) -> bool:
    """Whether the last tool was Follow Human and it ended the following (human stopped, lost, unreachable)."""
    last = obs.history[-1] if obs.history else None
    return last is not None and last.action == "Follow Human" and not last.message.startswith(FOLLOWING)


def scene_fields(obs: HouseholdObservation) -> dict[str, Any]:
    """Fields every household template may use."""
    notes = update_notes(obs)
    rooms = ", ".join(str(r.index) for r in obs.rooms)
    return {
        "premap": listing(obs.premap_rooms),
        "said": said(obs),
        "said_list": "; ".join(f"'{c}'" for c in (*obs.communication, obs.command)),
        "command": obs.command,
        "command_words": obs.command.rstrip("."),
        "human_seen": human_seen(obs),
        "human_last": human_last(obs),
        "history": "\n\n".join(notes),
        "step": str(obs.step),
        "latest_map": listing(obs.rooms),
        "holding": f"You are holding a {obs.holding}." if obs.holding else "Your hand is empty.",
        "available_actions": ", ".join(f"'{a}'" for a in obs.available_actions),
        "room": str(obs.current_room),
        "rooms": rooms,
        "first_room": str(obs.human.first_room),
    }
