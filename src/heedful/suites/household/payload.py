"""The household record's tool calls: one `ToolEntry` per executed call, with why it failed as a code.

Table 8's error modes are computed from `failure` and `put_on`, never from the message text, so rewording
an executor message cannot move a number. Records written before these fields existed stored each call as
the list `[action, start step, steps, ok, message, room]`; `read_tools` still reads them (inferring the
codes from the messages those versions wrote).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict


class ToolFailure(StrEnum):
    """Why a tool call failed."""

    UNAVAILABLE = "unavailable"
    """The call is not among the available actions (nothing happened, no step taken)."""
    UNREACHABLE = "unreachable"
    """Navigation could not reach the room, object, receptacle or human."""
    NOT_MAPPED = "not_mapped"
    """No object of that category on the agent's map in this room."""
    GRAB_FAILED = "grab_failed"
    """Reached, but no object of that category within grasp."""
    NOTHING_TO_PUT = "nothing_to_put"
    """Nothing held, or no such receptacle mapped in this room."""
    PUT_FAILED = "put_failed"
    """Reached, but no receptacle within reach to put on."""
    HUMAN_NOT_SEEN = "human_not_seen"
    """Follow or give with the human out of sight."""
    STEP_LIMIT = "step_limit"
    """The episode's step limit ended the call."""


EXECUTION_FAILURES = frozenset({ToolFailure.UNREACHABLE, ToolFailure.PUT_FAILED})
"""Failures of execution (Table 8's actuation), as opposed to calls that could not apply."""


class ToolEntry(BaseModel):
    """One executed tool call as stored in a household record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: str
    start_step: int
    steps: int
    ok: bool
    message: str
    room: int
    failure: ToolFailure | None = None
    put_on: str | None = None
    """The receptacle category a successful Put placed the object on."""


_LEGACY_PREFIXES: tuple[tuple[str, ToolFailure], ...] = (
    ("could not reach", ToolFailure.UNREACHABLE),
    ("put failed", ToolFailure.PUT_FAILED),
    ("grab failed", ToolFailure.GRAB_FAILED),
    ("nothing to put", ToolFailure.NOTHING_TO_PUT),
    ("you do not see the human", ToolFailure.HUMAN_NOT_SEEN),
    ("the step limit", ToolFailure.STEP_LIMIT),
)
_PUT_PREFIX = "you put the object on the "


def _legacy(row: Sequence[Any]) -> ToolEntry:
    """A call stored as `[action, start, steps, ok, message, room]` by heedful before typed payloads."""
    action, start, steps, ok, message = str(row[0]), int(row[1]), int(row[2]), bool(row[3]), str(row[4])
    room = int(row[5]) if len(row) > 5 else -1
    failure = None
    if not ok:
        failure = next((code for prefix, code in _LEGACY_PREFIXES if message.startswith(prefix)), None)
        if failure is None and " is mapped in room " in message:
            failure = ToolFailure.NOT_MAPPED
    put_on = message[len(_PUT_PREFIX) :] if ok and message.startswith(_PUT_PREFIX) else None
    return ToolEntry(
        action=action, start_step=start, steps=steps, ok=ok, message=message, room=room, failure=failure, put_on=put_on
    )


def read_tools(stored: Any) -> list[ToolEntry]:
    """The tool calls of a household record's `prediction["tools"]` (typed or legacy rows; others skipped)."""
    entries = []
    for row in stored if isinstance(stored, list) else []:
        if isinstance(row, dict):
            entries.append(ToolEntry.model_validate(row))
        elif isinstance(row, list | tuple) and len(row) >= 5:
            entries.append(_legacy(row))
    return entries
