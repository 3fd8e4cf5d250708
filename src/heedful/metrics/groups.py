"""How metric rows name their groups: one grammar for every suite, built and read only here.

A group is `all`, or parts joined by " / " (a crossing of grouping keys: `val_seen / PnP`, `S1 / L0`,
`val / S_obj / ambiguous`). A part is a bare value where the suite's values cannot collide (splits, task types,
clarity, scenes, levels), or `key:value` where they can (decisions: `category:set` and `decision_type:set`
would both be `set`).
"""

from __future__ import annotations

ALL = "all"
SEPARATOR = " / "


def group_name(*parts: str) -> str:
    """The group of these parts, in order (`all` for none)."""
    return SEPARATOR.join(parts) if parts else ALL


def keyed(key: str, value: object) -> str:
    """A part that names its key, for values that could collide with another key's."""
    return f"{key}:{value}"


def group_parts(group: str) -> list[str]:
    """The parts of a group name (none for `all`)."""
    return [] if group == ALL else group.split(SEPARATOR)
