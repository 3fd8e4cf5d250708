"""Exact reference levels, computed from records (never sampled), shown in a `chance` column of every report.

- chance: the expected score of a uniformly random valid answer, for a suite whose valid answers can be
  counted (declared with its scoring, `Scoring.reference_levels`).
- household: the words-only level, the success of an agent that reads only the words and guesses one of the
  rooms they fit (`candidate_rooms`) uniformly, never revising, and does everything else perfectly:
  1 / |fitting rooms| for S_obj and S_hum, 1 for PnP and clear tasks (the words leave nothing to guess). It is
  what ignoring the human's actions can count on without searching, an upper bound for an agent that also
  fails at other things; SPL has no such level (`heedful.suites.household.metrics.household_chance`).
- tabletop: the blind branch draw, see `heedful.suites.tabletop.chance` (rows `chance S / L` of Table 1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from heedful.metrics.rows import MetricRow

Chance = dict[tuple[str, str], float]
"""(group, metric) -> chance level."""


def with_chance(rows: Sequence[MetricRow], chance: Mapping[tuple[str, str], float]) -> list[MetricRow]:
    """The rows with their `chance` filled in where `chance` has their (group, metric)."""
    return [
        replace(row, chance=chance[(row.group, row.metric)]) if (row.group, row.metric) in chance else row
        for row in rows
    ]


def grouped_means(
    items: Sequence[tuple[Sequence[str], Mapping[str, tuple[float, int]]]],
) -> Chance:
    """Sum expected successes and units per (group, metric) over items (groups, {metric: (expected, units)})."""
    num: dict[tuple[str, str], float] = defaultdict(float)
    den: dict[tuple[str, str], int] = defaultdict(int)
    for groups, counts in items:
        for group in groups:
            for metric, (expected, units) in counts.items():
                num[(group, metric)] += expected
                den[(group, metric)] += units
    return {key: num[key] / den[key] for key in num if den[key]}
