"""High-level tools for planners: parsing tool calls and listing the actions available now.

Canonical forms (case-insensitive; an answer may wrap the call as "Action: ..." as in the paper's
prompts): `Go to Room X`, `Explore Room X`, `Follow Human`, `Pick up OBJ` (or `Grab OBJ`),
`Put on RECEP`, `Put down`, `Give to Human` (or `Give Obj to Human`), `Done` (or `Done!`).
A call that does not parse, or that is not available now, ends the episode as a parse error: it is
never replaced by a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from heedful.sims.household.vocab import OBJECT_CATEGORIES, RECEPTACLES
from heedful.suites.household.runtime import TaskEnv

ToolName = Literal["go_to_room", "explore_room", "follow_human", "grab", "put", "give", "done"]


@dataclass(frozen=True)
class ToolCall:
    name: ToolName
    room: int | None = None
    category: str | None = None

    @property
    def text(self) -> str:
        """The canonical spelling (what `available_actions` lists)."""
        if self.name == "go_to_room":
            return f"Go to Room {self.room}"
        if self.name == "explore_room":
            return f"Explore Room {self.room}"
        if self.name == "follow_human":
            return "Follow Human"
        if self.name == "grab":
            return f"Pick up {self.category}"
        if self.name == "put":
            return "Put down" if self.category is None else f"Put on {self.category}"
        if self.name == "give":
            return "Give to Human"
        return "Done"


@dataclass(frozen=True)
class ParseResult:
    call: ToolCall | None
    reason: str | None = None


def _category(word: str, vocabulary: tuple[str, ...]) -> str | None:
    key = word.strip().lower().replace(" ", "_")
    for name in vocabulary:
        if key in (name, name + "s", "a_" + name, "the_" + name):
            return name
    return None


_ROOM = re.compile(r"^(go to|explore)\s+room\s+(\d+)$")
_GRAB = re.compile(r"^(?:pick up|grab)\s+(?:obj\s+)?(.+)$")
_PUT = re.compile(r"^put\s+(?:(?:the|a)\s+)?(?:\w+\s+)?(?:on|in)\s+(?:the\s+|a\s+)?(.+)$")


def _action_text(text: str) -> str:
    found = re.findall(r"action\s*:\s*(.+)", text, flags=re.IGNORECASE)
    raw = found[-1] if found else text
    raw = raw.strip().splitlines()[0] if raw.strip() else ""
    return re.sub(r"\s+", " ", raw.strip().strip("'\"`[]().").rstrip("!.").strip()).lower()


def parse_tool(text: str) -> ParseResult:
    """Parse one tool call from an agent's answer; `call` is None (with a reason) when it does not parse."""
    action = _action_text(text)
    if not action:
        return ParseResult(None, "the answer names no action")
    if action in ("done", "stop", "finish"):
        return ParseResult(ToolCall("done"))
    if action == "follow human":
        return ParseResult(ToolCall("follow_human"))
    if re.fullmatch(r"give( \w+)?( obj(ect)?)? to (the )?human", action):
        return ParseResult(ToolCall("give"))
    if action in ("put down", "put obj", "put object"):
        return ParseResult(ToolCall("put"))
    match = _ROOM.match(action)
    if match:
        name: ToolName = "go_to_room" if match.group(1) == "go to" else "explore_room"
        return ParseResult(ToolCall(name, room=int(match.group(2))))
    match = _GRAB.match(action)
    if match:
        category = _category(match.group(1), OBJECT_CATEGORIES)
        if category is None:
            return ParseResult(None, f"unknown object {match.group(1)!r}; objects: {', '.join(OBJECT_CATEGORIES)}")
        return ParseResult(ToolCall("grab", category=category))
    match = _PUT.match(action)
    if match:
        category = _category(match.group(1), RECEPTACLES)
        if category is None:
            return ParseResult(None, f"unknown receptacle {match.group(1)!r}; receptacles: {', '.join(RECEPTACLES)}")
        return ParseResult(ToolCall("put", category=category))
    return ParseResult(None, f"{action!r} is not a tool call")


def available_actions(env: TaskEnv) -> list[str]:
    """The tool calls that make sense now, in the paper's style (rooms, then manipulation, then Done)."""
    rooms = [room.index for room in env.episode.house.rooms]
    actions = [f"Go to Room {i}" for i in rooms] + [f"Explore Room {i}" for i in rooms]
    if env.map.human_track:
        actions.append("Follow Human")
    here = env.current_room()
    if env.sim.held is None:
        actions += [f"Pick up {c}" for c in sorted({m.category for m in env.map.objects_in(here)})]
    else:
        receptacles = sorted({env.episode.house.receptacle(rid).category for rid in env.map.receptacles_in(here)})
        actions += [f"Put on {c}" for c in receptacles]
        if receptacles:
            actions.append("Put down")
        actions.append("Give to Human")
    actions.append("Done")
    return actions


def check_available(env: TaskEnv, call: ToolCall) -> str | None:
    """Why `call` cannot be executed now, or None when it can."""
    if call.text in available_actions(env):
        return None
    if call.name in ("go_to_room", "explore_room"):
        return f"there is no room {call.room}"
    if call.name == "follow_human":
        return "you have not seen the human"
    if call.name == "grab":
        return f"no {call.category} is on your map of room {env.current_room()} (or your hand is full)"
    if call.name == "put":
        return f"you hold nothing, or no {call.category or 'receptacle'} is on your map of room {env.current_room()}"
    return "you hold nothing to give"
