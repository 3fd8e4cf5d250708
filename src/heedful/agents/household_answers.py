"""Reading the answers of a language model in the household suite (the paper's parsing rule, Section 4).

- An action answer is the text after the LAST "Action:" (first line, quotes, brackets and a final "." or "!"
  removed), matched case-insensitively against the actions available now. Nothing else is accepted: no
  marker, an empty action, extra words, another tool or an unavailable one are parsing failures.
- The evidence answer is read the same way against "Enough Evidence" / "Not Enough Evidence".
- The Prompter's plan is the last bracketed list "[Step, Step, ...]", each step one of: Follow Human,
  Pick up OBJ, Put on the RECEP, Put in the ROOM FUNCTION, Give OBJ to Human (Table A.1 vocabulary).
- The Prompter's search answer is the text after the last "Answer:", which must be "Room N" for a room
  of the house.

A failure is returned with the reason; it is never replaced by a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from heedful.sims.household.vocab import OBJECT_CATEGORIES, RECEPTACLES, ROOM_FUNCTIONS

ENOUGH = "Enough Evidence"
NOT_ENOUGH = "Not Enough Evidence"
EVIDENCE_CHOICES = (ENOUGH, NOT_ENOUGH)
_STRIP = " \t'\"`*[]()"


@dataclass(frozen=True)
class Reading:
    """What an answer was read as (`value`), or why it could not be read (`reason`)."""

    value: str | None
    reason: str | None = None


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip(_STRIP).rstrip(".!").strip(_STRIP)).lower()


def after_last(text: str, marker: str) -> str | None:
    """The first line of the text after the last `marker` (case-insensitive), or None without a marker."""
    found = [m.end() for m in re.finditer(re.escape(marker), text, flags=re.IGNORECASE)]
    if not found:
        return None
    rest = text[found[-1] :].strip()
    return rest.splitlines()[0] if rest else ""


def read_choice(text: str, choices: Sequence[str], marker: str = "Action:") -> Reading:
    """The choice named after the last `marker`, matched against `choices` (canonical spelling returned)."""
    raw = after_last(text, marker)
    if raw is None:
        return Reading(None, f"the answer has no {marker!r}")
    said = _normal(raw)
    if not said:
        return Reading(None, f"nothing follows the last {marker!r}")
    for choice in choices:
        if _normal(choice) == said:
            return Reading(choice)
    return Reading(None, f"{raw.strip()!r} is not one of the available choices: {', '.join(choices)}")


def read_action(text: str, available: Sequence[str]) -> Reading:
    """The available action the answer names after its last "Action:"."""
    return read_choice(text, available)


def read_evidence(text: str) -> Reading:
    """ "Enough Evidence" or "Not Enough Evidence", after the last "Action:"."""
    return read_choice(text, EVIDENCE_CHOICES)


def read_room(text: str, rooms: int) -> Reading:
    """The room named as "Room N" after the last "Answer:", N a room of the house (value: the digits)."""
    raw = after_last(text, "Answer:")
    if raw is None:
        return Reading(None, "the answer has no 'Answer:'")
    match = re.fullmatch(r"room (\d+)", _normal(raw))
    if match is None:
        return Reading(None, f"{raw.strip()!r} is not 'Room N'")
    if int(match.group(1)) >= rooms:
        return Reading(None, f"there is no room {match.group(1)} (rooms 0-{rooms - 1})")
    return Reading(match.group(1))


PlanStep = tuple[str, str]
"""(kind, argument): ("follow", ""), ("pick", OBJ), ("put_on", RECEP), ("put_in", FUNCTION), ("give", OBJ)."""


def _word(text: str, vocabulary: Sequence[str]) -> str | None:
    key = re.sub(r"^(the|a|an) ", "", text).replace(" ", "").replace("_", "")
    for name in vocabulary:
        if key in (name.replace(" ", "").replace("_", ""), name.replace(" ", "").replace("_", "") + "s"):
            return name
    return None


def read_step(text: str) -> PlanStep | None:
    """One plan step, or None when it is not a step of the plan format."""
    step = _normal(text)
    if step == "follow human":
        return ("follow", "")
    forms = (
        (r"pick up (.+)", "pick", OBJECT_CATEGORIES),
        (r"put on (.+)", "put_on", RECEPTACLES),
        (r"put in (.+)", "put_in", ROOM_FUNCTIONS),
        (r"give (.+) to (?:the )?human", "give", OBJECT_CATEGORIES),
    )
    for pattern, kind, vocabulary in forms:
        match = re.fullmatch(pattern, step)
        if match:
            word = _word(match.group(1), vocabulary)
            return (kind, word) if word is not None else None
    return None


def read_plan(text: str) -> tuple[tuple[PlanStep, ...], str | None]:
    """The steps of the last "[...]" list in the answer, or () and the reason it is not a plan."""
    lists = re.findall(r"\[([^\[\]]*)\]", text)
    if not lists:
        return (), "the answer has no '[...]' plan"
    steps = []
    for part in lists[-1].split(","):
        step = read_step(part)
        if step is None:
            return (), f"{part.strip()!r} is not a plan step (Pick up OBJ, Put on the RECEP, Put in the ROOM, ...)"
        steps.append(step)
    return tuple(steps), None
