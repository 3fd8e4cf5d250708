"""A red-team probe for the instruction arms: every string an agent can reach from its observation.

An agent that wanted the original instruction under `--instruction empty|shuffled|other` would look anywhere in
what it is handed: the prompt, the observation's fields, the privileged ground truth. `strings_in` walks all of it
(dataclasses, pydantic models, mappings, sequences, plain objects' attributes), so a test can assert that the
original words are nowhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from pydantic import BaseModel


def strings_in(value: Any, depth: int = 8, seen: set[int] | None = None) -> list[str]:
    """Every string reachable from `value` (cycles and numpy arrays skipped; `depth` levels at most)."""
    seen = set() if seen is None else seen
    if isinstance(value, str):
        return [value]
    if depth == 0 or id(value) in seen or isinstance(value, (bytes, int, float, np.ndarray, np.generic)):
        return []
    seen.add(id(value))
    if isinstance(value, BaseModel):
        children: list[Any] = [getattr(value, name) for name in type(value).model_fields]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        children = [getattr(value, f.name) for f in dataclasses.fields(value)]
    elif isinstance(value, dict):
        children = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    elif hasattr(value, "__dict__"):
        children = list(vars(value).values())
    else:
        return []
    return [s for child in children for s in strings_in(child, depth - 1, seen)]


def leaks(original: str, observations: list[Any]) -> list[str]:
    """The strings of `observations` that contain `original` (empty: the words never reached the agent)."""
    return [s for obs in observations for s in strings_in(obs) if original and original in s]
