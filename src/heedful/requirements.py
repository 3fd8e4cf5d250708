"""What a suite needs installed, checked before a run writes anything.

Without this, a run on a machine that lacks the simulator would be a green run of `crashed` episodes whose reason
shows only in `heedful export`. A suite (or an agent) declares its `Requirement`s; `check_requirements` imports each
module, in the process that will use it (the main process before anything is written, and each worker process or Ray
actor when it starts), and stops with the install line for a released package and for a clone. Importing, not only
finding, the module: a package that is installed but cannot import (a missing system library) is caught too.
"""

from __future__ import annotations

import importlib
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


def import_failures(requirements: Sequence[Requirement]) -> list[tuple[Requirement, str]]:
    """The requirements whose module does not import, each with why ("not installed", or the import's error)."""
    failures = []
    for requirement in requirements:
        try:
            importlib.import_module(requirement.module)
        except ModuleNotFoundError as err:
            if err.name is not None and requirement.module.startswith(err.name):
                failures.append((requirement, "not installed"))
            else:  # installed, but something it imports is missing
                failures.append((requirement, f"installed but does not import: {err}"))
        except Exception as err:  # a broken install: a missing system library (OSError), a bad build
            failures.append((requirement, f"installed but does not import: {type(err).__name__}: {err}"))
    return failures


def missing(requirements: Sequence[Requirement]) -> list[Requirement]:
    """The requirements whose module cannot be imported (absent, or installed but broken)."""
    return [requirement for requirement, _ in import_failures(requirements)]


def check_requirements(suite: str, requirements: Sequence[Requirement]) -> None:
    """Raise MissingDependencyError naming every module that does not import, what it is for, why, and how to
    install it."""
    failures = import_failures(requirements)
    if failures:
        lines = "; ".join(
            f"{r.module} ({r.purpose}): {r.install_line()}" + ("" if why == "not installed" else f" [{why}]")
            for r, why in failures
        )
        raise MissingDependencyError(f"heedful run {suite} needs {lines}")
