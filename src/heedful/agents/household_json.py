"""Constrained mode of the household language-model agents: a JSON schema per question, and back to the text.

With `constrain=True` every question carries a JSON schema as `response_format = json_schema`, so a server
with constrained decoding (llama.cpp, vLLM, SGLang, OpenAI) can only write answers of the right shape:
- an action question: {"reasoning": str (at most `reasoning_chars` characters), "action": one of the actions
  available now}; the keys are the paper's "Reasoning: ... Action: ..." response format;
- the evidence question: the same, the action one of "Enough Evidence" / "Not Enough Evidence";
- the Prompter's plan: {"plan": [1 to 4 steps]}, each step one of the plan vocabulary (Follow Human, Pick up
  OBJ, Put on the RECEP, Put in the ROOM FUNCTION, Give OBJ to Human over Table A.1's words);
- the Prompter's search question: {"answer": "Room N"} for a room of the house.
`reasoning_chars=0` leaves the reasoning out (the answer is the action alone).

The JSON answer is turned back into the paper's text form ("Reasoning: ...\\nAction: Go to Room 3",
"[Pick up cup, Put on the table]", "Answer: Room 2") and read by the same rule as a free-text answer
(`household_answers`), so one reader decides in both modes. A JSON answer that does not parse (e.g. cut
off by max_tokens) or has the wrong keys or types is a parsing failure with the reason, never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from heedful.agents.household_answers import Reading
from heedful.errors import ConfigError
from heedful.sims.household.vocab import OBJECT_CATEGORIES, RECEPTACLES, ROOM_FUNCTIONS

REASONING_CHARS = 200
"""Default bound of the reasoning (characters): a short thought that leaves tokens for the action."""
PLAN_STEPS = 4
"""Most steps of a plan (the paper's plans have two, three with Follow Human first)."""


@dataclass(frozen=True)
class JsonQuestion:
    """The JSON schema of one question and how a JSON answer becomes the paper's text form."""

    name: str
    schema: dict[str, Any]
    to_text: Callable[[dict[str, Any]], str]

    def text_of(self, answer: str, finish_reason: str | None) -> Reading:
        """The paper's text form of a JSON answer (`value`), or why the answer cannot be read (`reason`)."""
        try:
            data = json.loads(answer)
        except json.JSONDecodeError as exc:
            cut = " (cut off by max_tokens: raise --max-tokens)" if finish_reason == "length" else ""
            return Reading(None, f"the JSON answer does not parse{cut}: {exc.msg} at character {exc.pos}")
        except RecursionError:
            return Reading(None, "the JSON answer is nested too deeply to read")
        properties: dict[str, Any] = self.schema["properties"]
        if not isinstance(data, dict) or set(data) != set(properties):
            return Reading(None, f"the JSON answer must be an object with the keys {', '.join(properties)}")
        for key, spec in properties.items():
            if spec["type"] == "string" and not isinstance(data[key], str):
                return Reading(None, f"the JSON answer's {key!r} must be a string")
            if spec["type"] == "array" and not (
                isinstance(data[key], list) and all(isinstance(item, str) for item in data[key])
            ):
                return Reading(None, f"the JSON answer's {key!r} must be a list of strings")
        return Reading(self.to_text(data))


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _enum(choices: Sequence[str]) -> dict[str, Any]:
    values = list(choices)
    if not values or len(set(values)) != len(values):
        raise ConfigError(f"a constrained question needs distinct choices, got {values}")
    return {"type": "string", "enum": values}


def choice_question(choices: Sequence[str], reasoning_chars: int = REASONING_CHARS) -> JsonQuestion:
    """An action (or evidence) question: reasoning first (a short thought), then one of `choices`."""
    properties: dict[str, Any] = {}
    if reasoning_chars > 0:
        properties["reasoning"] = {"type": "string", "maxLength": reasoning_chars}
    properties["action"] = _enum(choices)

    def to_text(data: dict[str, Any]) -> str:
        reasoning = f"Reasoning: {data['reasoning']}\n" if "reasoning" in data else ""
        return f"{reasoning}Action: {data['action']}"

    return JsonQuestion("action", _object(properties), to_text)


def plan_steps() -> tuple[str, ...]:
    """Every step a plan may hold, spelt as the plan format writes them (each one read back by `read_step`)."""
    return (
        "Follow Human",
        *(f"Pick up {obj}" for obj in OBJECT_CATEGORIES),
        *(f"Put on the {recep}" for recep in RECEPTACLES),
        *(f"Put in the {function}" for function in ROOM_FUNCTIONS),
        *(f"Give {obj} to Human" for obj in OBJECT_CATEGORIES),
    )


def plan_question() -> JsonQuestion:
    """The Prompter's plan: a list of 1 to PLAN_STEPS steps of the plan vocabulary."""
    plan = {"type": "array", "items": _enum(plan_steps()), "minItems": 1, "maxItems": PLAN_STEPS}
    return JsonQuestion("plan", _object({"plan": plan}), lambda data: "[" + ", ".join(data["plan"]) + "]")


def room_question(rooms: int) -> JsonQuestion:
    """The Prompter's search question: "Room N" for a room of the house."""
    answer = _enum([f"Room {index}" for index in range(rooms)])
    return JsonQuestion("room", _object({"answer": answer}), lambda data: f"Answer: {data['answer']}")
