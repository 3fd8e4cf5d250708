"""What a suite needs installed, checked before a run writes anything.

Without this, a run on a machine that lacks the simulator would be a green run of `crashed` episodes whose reason
shows only in `heedful export`. A suite declares its `Requirement`s; `check_requirements` finds each module
without importing it and stops with the install line for a released package and for a clone.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass

from heedful.errors import MissingDependencyError


@dataclass(frozen=True)
class Requirement:
    """A module a suite imports while it runs, and the heedful extra that installs it (None: a core dependency)."""

    module: str
    purpose: str
    extra: str | None = None

    def install_line(self) -> str:
        if self.extra is None:
            return 'reinstall heedful: pip install heedful (from a clone: pip install -e ".")'
        return f'pip install "heedful[{self.extra}]" (from a clone: pip install -e ".[{self.extra}]")'


def missing(requirements: Sequence[Requirement]) -> list[Requirement]:
    """The requirements whose module cannot be found (found without importing it)."""
    absent = []
    for requirement in requirements:
        try:
            found = importlib.util.find_spec(requirement.module) is not None
        except (ImportError, ValueError):  # a parent package missing, or a module without a spec
            found = False
        if not found:
            absent.append(requirement)
    return absent


def check_requirements(suite: str, requirements: Sequence[Requirement]) -> None:
    """Raise MissingDependencyError naming every missing module, what it is for, and how to install it."""
    absent = missing(requirements)
    if absent:
        lines = "; ".join(f"{r.module} ({r.purpose}): {r.install_line()}" for r in absent)
        raise MissingDependencyError(f"heedful run {suite} needs {lines}")
