"""Template realization with masking of task-critical slots.

A template is plain text with `{slot}` fields. Realizing it fills the slots and capitalizes the first
letter; the masked variant replaces every task-critical slot with MASK_TOKEN, so that the state, the
candidates and the sentence frame stay while the action-determining words disappear.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

MASK_TOKEN = "[MASK]"


@dataclass(frozen=True)
class Template:
    """An instruction template. `critical` names the slots that determine the decision."""

    id: str
    text: str
    critical: frozenset[str]

    @property
    def slots(self) -> set[str]:
        return {field for _, field, _, _ in string.Formatter().parse(self.text) if field}


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _tidy(text: str) -> str:
    return _capitalize(re.sub(r"\s+", " ", text).strip())


def realize(template: Template, slots: dict[str, str]) -> tuple[str, str]:
    """Return (instruction, masked instruction).

    Raises:
        KeyError: a slot of the template has no value (a bug in the caller's phrasebook).
    """
    missing = template.slots - slots.keys()
    if missing:
        raise KeyError(f"template {template.id} needs slots {sorted(missing)}")
    text = template.text.format(**slots)
    masked = template.text.format(**{k: MASK_TOKEN if k in template.critical else v for k, v in slots.items()})
    return _tidy(text), _tidy(masked)


def words(text: str) -> list[str]:
    """Lower-case word tokens, for comparing surface forms."""
    return re.findall(r"[a-z0-9']+", text.lower())


def join_or(items: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
