"""Strict parsing of agent answers. Never raises: returns a decision or a typed parse failure.

Accepted: a JSON object with a "decision" field, either as the whole reply or as the only content of one
Markdown code fence (```json ... ```). Other fields are ignored. Nothing is guessed: an answer that is
not exactly well formed is a parse failure with its reason, and it counts as wrong.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from heedful.suites.decisions.model import Decision

MAX_ANSWER_CHARS = 20_000
_FENCE = re.compile(r"\A```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\Z", re.DOTALL)


@dataclass(frozen=True)
class ParsedAnswer:
    """A normalized decision (sets sorted), or None with `reason` saying why the answer was rejected."""

    decision: Decision | None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.decision is not None


def _fail(reason: str) -> ParsedAnswer:
    return ParsedAnswer(None, reason)


def _load_object(text: str) -> tuple[Any, str | None]:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        return json.loads(body), None
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        return None, f"not valid JSON ({type(exc).__name__}: {str(exc)[:80]})"


def parse_answer(text: object, decision_type: str, candidate_ids: tuple[str, ...] | list[str]) -> ParsedAnswer:
    """Parse `text` as a decision of `decision_type` over `candidate_ids`."""
    if not isinstance(text, str):
        return _fail(f"answer is {type(text).__name__}, not text")
    if len(text) > MAX_ANSWER_CHARS:
        return _fail(f"answer too long ({len(text)} characters, limit {MAX_ANSWER_CHARS})")
    obj, error = _load_object(text)
    if error:
        return _fail(error)
    if not isinstance(obj, dict) or "decision" not in obj:
        return _fail('expected a JSON object with a "decision" field')
    return _check(obj["decision"], decision_type, set(candidate_ids))


def _check(value: Any, decision_type: str, ids: set[str]) -> ParsedAnswer:
    if decision_type == "single":
        if not isinstance(value, str):
            return _fail(f"a single decision must be one id string, got {type(value).__name__}")
        return ParsedAnswer(value) if value in ids else _fail(f"unknown candidate id {value[:40]!r}")
    if not isinstance(value, list) or not value:
        return _fail(f"a {decision_type} decision must be a non-empty list of ids")
    if not all(isinstance(v, str) for v in value):
        return _fail("every element of the decision must be an id string")
    unknown = [v for v in value if v not in ids]
    if unknown:
        return _fail(f"unknown candidate id {unknown[0][:40]!r}")
    if len(set(value)) != len(value):
        return _fail("an id appears more than once")
    return ParsedAnswer(sorted(value) if decision_type == "set" else list(value))
