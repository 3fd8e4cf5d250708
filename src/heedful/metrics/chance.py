"""Exact chance levels, computed from records (never sampled), shown in a `chance` column of every report.

- decisions: the expected score of a uniformly random valid answer (exactly what the `random-valid` agent
  draws): one candidate for `single`, any non-empty subset for `set`, any non-empty ordering of distinct
  candidates for `sequence`, independently per instance. Each metric's expectation follows from the
  per-instance probabilities (a pair is right with p_x * p_y; two random answers agree with |A_x & A_y| /
  (|A_x| |A_y|)), summed over the same units the measured value counts.
- household: the words-only level, the success of an agent that reads only the words and guesses one of the
  rooms they fit (`candidate_rooms`) uniformly, never revising, and does everything else perfectly:
  1 / |fitting rooms| for S_obj and S_hum, 1 for PnP and clear tasks (the words leave nothing to guess). It is
  what ignoring the human's actions can count on without searching, an upper bound for an agent that also
  fails at other things; SPL has no such level (`heedful.suites.household.metrics.household_chance`).
- tabletop: the blind branch draw, see `heedful.suites.tabletop.chance` (rows `chance S / L` of Table 1).

Records made before records kept their inputs (the candidate ids) give no decisions chance: the column
then prints `-`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from heedful.metrics.rows import MetricRow

Chance = dict[tuple[str, str], float]
"""(group, metric) -> chance level."""


def answer_count(decision_type: str, candidates: int) -> int:
    """How many valid answers a decision of this type over `candidates` ids has."""
    if decision_type == "single":
        return candidates
    if decision_type == "set":
        return int(2**candidates - 1)
    return sum(math.perm(candidates, k) for k in range(1, candidates + 1))


def common_answers(x: tuple[str, frozenset[str]], y: tuple[str, frozenset[str]]) -> int:
    """How many answers two decisions (type, candidate ids) share (sets are compared as sorted lists)."""
    (type_x, ids_x), (type_y, ids_y) = x, y
    c = len(ids_x & ids_y)
    if type_x == type_y:
        return answer_count(type_x, c)
    if "single" in (type_x, type_y):
        return 0  # an id string never equals a list
    return int(2**c - 1)  # set vs sequence: each common subset, sorted, is also a valid sequence


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
