"""Paired comparison of two household runs on the same episodes: success and SPL differences.

Episodes are matched by id and kept when both runs scored them. Each metric's difference (A - B) gets a
paired percentile bootstrap over episodes (the same resample for both runs), and success an exact McNemar
test, for every group of the report (`household.groups_of`, in the order of `household.group_order`). SPL is
the paper's primary metric.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.metrics.compare import ComparisonRow, matched_scored
from heedful.metrics.household import SPEC, SUCCESS, group_order, groups_of, values_table
from heedful.metrics.paired import mcnemar_count_row, paired_mean_rows
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.records import Record
from heedful.seeding import derive_rng


def compare_household_runs(
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    spec: MetricSpec = SPEC,
) -> list[ComparisonRow]:
    """Rows per group: each compared metric of `spec` for A and B, their difference with a paired CI, and
    McNemar on success."""
    a, b = matched_scored(records_a, records_b)
    members: dict[str, list[int]] = {}
    for i, record in enumerate(a):
        for group in groups_of(record):
            members.setdefault(group, []).append(i)
    metrics = MetricSpec(spec.compared()).of_kind(RecordMetric)
    names = [metric.name for metric in metrics]
    values_a, values_b = values_table(a, metrics), values_table(b, metrics)
    rows: list[ComparisonRow] = []
    for group in group_order(set(members)):
        idx = members[group]
        va, vb = values_a[idx], values_b[idx]
        rng = derive_rng(seed, "household-compare", group)
        rows += paired_mean_rows(
            names, group, va, vb, resamples=resamples, rng=rng, unit="episode", ci_method="paired episode bootstrap"
        )
        if SUCCESS in names:
            j = names.index(SUCCESS)
            wins_a = int(np.sum((va[:, j] == 1) & (vb[:, j] == 0)))
            wins_b = int(np.sum((va[:, j] == 0) & (vb[:, j] == 1)))
            rows.append(mcnemar_count_row(SUCCESS, group, wins_a, wins_b, len(idx), unit="episode"))
    return rows
