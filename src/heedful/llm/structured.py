"""Structured output: the JSON schema that admits only well-formed answers to one decision episode.

Sent as `response_format = json_schema`, it makes a server with constrained decoding (llama.cpp, vLLM,
SGLang, OpenAI) emit `{"decision": ...}` over the episode's own candidate ids and nothing else:
- `single`: one id (an enum), so the length is fixed by the type;
- `set`: a non-empty list of distinct ids (`uniqueItems`), at most all candidates;
- `sequence`: a non-empty list of distinct ids in order, at most all candidates.
How many ids a set or sequence holds is what the instruction says; putting it in the schema would leak
the answer, so only the type's own bounds are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heedful.errors import ConfigError

DECISION_TYPES = ("single", "set", "sequence")


def decision_schema(decision_type: str, candidate_ids: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of an answer of `decision_type` over `candidate_ids`.

    Raises:
        ConfigError: an unknown decision type, no candidates, or a repeated id.
    """
    ids = list(candidate_ids)
    if decision_type not in DECISION_TYPES:
        raise ConfigError(f"unknown decision type {decision_type!r}; choose one of {', '.join(DECISION_TYPES)}")
    if not ids or len(set(ids)) != len(ids):
        raise ConfigError(f"candidate ids must be non-empty and distinct, got {ids}")
    item: dict[str, Any] = {"type": "string", "enum": ids}
    if decision_type == "single":
        decision: dict[str, Any] = item
    else:
        decision = {"type": "array", "items": item, "minItems": 1, "maxItems": len(ids), "uniqueItems": True}
    return {
        "type": "object",
        "properties": {"decision": decision},
        "required": ["decision"],
        "additionalProperties": False,
    }
