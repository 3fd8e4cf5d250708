"""A small household dataset shared by the suite tests (generated once per test process)."""

from __future__ import annotations

from functools import lru_cache

from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.suite import SUITE

SMALL = {"houses": 4, "seen_houses": 2, "per_split_type": 2}


@lru_cache(maxsize=1)
def small_episodes() -> tuple[HouseholdEpisode, ...]:
    return tuple(SUITE.generate(5, SMALL))


def first(task_type: str, ambiguous: bool | None = None) -> HouseholdEpisode:
    return next(
        ep for ep in small_episodes() if ep.task_type == task_type and (ambiguous is None or ep.ambiguous is ambiguous)
    )
