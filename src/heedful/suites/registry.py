"""The suite registry. Third parties add suites through the `heedful.suites` entry-point group: `module:NAME` of a
`DeclaredSuite` (heedful.suites.declared), or of a class or function that builds a suite with no arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from heedful.registry import Registry

if TYPE_CHECKING:
    from heedful.suites.base import EpisodeModel, Suite
    from heedful.suites.declared import DeclaredSuite

SuiteFactory = Callable[[], "Suite"]
"""A suite class (or any callable) that builds the suite with no arguments."""
SuiteEntry: TypeAlias = "DeclaredSuite[EpisodeModel, EpisodeModel] | SuiteFactory"
"""What the registry holds: a declared suite, or a factory of a suite."""

SUITES: Registry[SuiteEntry] = Registry(
    kind="suite",
    group="heedful.suites",
    builtins={
        "decisions": "heedful.suites.decisions.suite:SUITE",
        "household": "heedful.suites.household.suite:SUITE",
        "tabletop": "heedful.suites.tabletop.suite:SUITE",
    },
)


def get_suite(name: str) -> Suite:
    """The suite registered as `name` (a declared suite as it is, a factory's suite built now)."""
    from heedful.suites.declared import DeclaredSuite

    entry = SUITES.get(name)
    return entry if isinstance(entry, DeclaredSuite) else entry()
