"""The suite registry. Third parties add suites through the `heedful.suites` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from heedful.registry import Registry

if TYPE_CHECKING:
    from heedful.suites.base import Suite

SuiteFactory = Callable[[], "Suite"]
"""What the registry holds: a suite class (or any callable) that builds the suite with no arguments."""

SUITES: Registry[SuiteFactory] = Registry(
    kind="suite",
    group="heedful.suites",
    builtins={
        "decisions": "heedful.suites.decisions.suite:DecisionsSuite",
        "household": "heedful.suites.household.suite:HouseholdSuite",
        "tabletop": "heedful.suites.tabletop.suite:TabletopSuite",
    },
)


def get_suite(name: str) -> Suite:
    """Instantiate the suite registered as `name`."""
    return SUITES.get(name)()
