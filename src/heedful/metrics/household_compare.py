"""Paired comparison of two household runs on the same episodes: success and SPL differences.

Episodes are matched by id and kept when both runs scored them. Each metric's difference (A - B) gets a
paired percentile bootstrap over episodes (the same resample for both runs), and success an exact McNemar
test, overall and per split, task type, clear vs ambiguous S_obj / S_hum, and split x type (in the order of
`household.group_order`). SPL is the paper's primary metric.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.metrics.compare import ComparisonRow, matched_scored
from heedful.metrics.groups import ALL, group_name
from heedful.metrics.household import TYPE_LABELS, group_order
from heedful.metrics.paired import mcnemar_count_row, paired_mean_rows
from heedful.records import Record
from heedful.seeding import derive_rng

METRICS = ("success", "spl")


def _groups(record: Record) -> list[str]:
    split, kind = record.keys["split"], TYPE_LABELS.get(record.keys["task_type"], record.keys["task_type"])
    groups = [ALL, group_name(split), group_name(kind), group_name(split, kind)]
    clarity = {"true": "ambiguous", "false": "clear"}.get(record.keys.get("ambiguous", ""))
    return [*groups, group_name(kind, clarity)] if clarity else groups


def _values(record: Record) -> list[float]:
    return [float(record.scores.get("success", 0.0)), float(record.scores.get("spl", 0.0))]


def compare_household_runs(
    records_a: Sequence[Record], records_b: Sequence[Record], *, resamples: int = 10_000, seed: int = 0
) -> list[ComparisonRow]:
    """Rows per group: success and SPL of A and B, their difference with a paired CI, and McNemar on success."""
    a, b = matched_scored(records_a, records_b)
    members: dict[str, list[int]] = {}
    for i, record in enumerate(a):
        for group in _groups(record):
            members.setdefault(group, []).append(i)
    values_a = np.array([_values(r) for r in a], dtype=float).reshape(-1, len(METRICS))
    values_b = np.array([_values(r) for r in b], dtype=float).reshape(-1, len(METRICS))
    rows: list[ComparisonRow] = []
    for group in group_order(set(members)):
        idx = members[group]
        va, vb = values_a[idx], values_b[idx]
        rng = derive_rng(seed, "household-compare", group)
        rows += paired_mean_rows(
            METRICS, group, va, vb, resamples=resamples, rng=rng, unit="episode", ci_method="paired episode bootstrap"
        )
        wins_a = int(np.sum((va[:, 0] == 1) & (vb[:, 0] == 0)))
        wins_b = int(np.sum((va[:, 0] == 0) & (vb[:, 0] == 1)))
        rows.append(mcnemar_count_row("success", group, wins_a, wins_b, len(idx), unit="episode"))
    return rows
