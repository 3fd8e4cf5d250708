"""The suite registry. Third parties add suites through the `heedful.suites` entry-point group."""

from __future__ import annotations

from typing import Any

from heedful.registry import Registry

SUITES: Registry[Any] = Registry(
    kind="suite",
    group="heedful.suites",
    builtins={
        "decisions": "heedful.suites.decisions.suite:DecisionsSuite",
        "household": "heedful.suites.household.suite:HouseholdSuite",
        "tabletop": "heedful.suites.tabletop.suite:TabletopSuite",
    },
)


def get_suite(name: str) -> Any:
    """Instantiate the suite registered as `name`."""
    return SUITES.get(name)()
