"""One metrics engine for every suite: its report rows and its paired comparison, from its declared scoring.

A suite declares a `Scoring` (heedful.metrics.scoring): its metric spec, how records group, how they are cut into
sampling units (one record, a task's trials, a family's instances) and which clusters of units its bootstrap may
resample. This module derives the rest, the same way for every suite:

- a row per metric and group: value = sum(num) / sum(den) over the group's units; a percentile cluster bootstrap
  whose draws come from `derive_rng(seed, *report_stream, group)` (none where the scoring declares Wilson intervals
  only); a Wilson interval over the units counted (count metrics) or over the records of a 0/1 metric (where every
  unit holds as many records); then the rows of the scoring's extra scorings (household's error modes);
- a comparison row per compared metric and group: A, B, A - B and the paired bootstrap interval (the same cluster
  weights for both runs), then the exact McNemar row of the suite's binary outcome.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from heedful.errors import ConfigError
from heedful.metrics.compare import MCNEMAR_PREFIX, ComparisonRow, matched_scored
from heedful.metrics.rows import MetricRow, status_rows
from heedful.metrics.scoring import CLUSTER, WILSON_ONLY, Scoring, Units
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.metrics.stats import (
    cluster_bootstrap_ratios,
    mcnemar_exact,
    paired_cluster_bootstrap_diffs,
    wilson_interval,
)
from heedful.records import Record
from heedful.seeding import derive_rng


def report_rows(
    scoring: Scoring,
    records: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    cluster: str | None = None,
    spec: MetricSpec | None = None,
) -> list[MetricRow]:
    """Status rows, then one row per metric of the spec (`spec` or the scoring's) for every group, in order, then
    the rows of the scoring's extra scorings.

    Raises:
        ConfigError: If `cluster` is not one the scoring declares.
        RunError: If a record lacks the keys the scoring groups by.
    """
    rows = status_rows(records, unit=scoring.record_unit)
    rows += metric_rows(scoring, records, resamples=resamples, seed=seed, cluster=cluster, spec=spec)
    for extra in scoring.extra:
        rows += metric_rows(extra, records, resamples=resamples, seed=seed)
    return rows


def metric_rows(
    scoring: Scoring,
    records: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    cluster: str | None = None,
    spec: MetricSpec | None = None,
) -> list[MetricRow]:
    """One row per metric of the spec (`spec` or the scoring's) for every group, in order (no status rows).

    Raises:
        ConfigError: If `cluster` is not one the scoring declares.
        RunError: If a record lacks the keys the scoring groups by.
    """
    scoring = scoring if spec is None else replace(scoring, spec=spec)
    cluster = _cluster(scoring, cluster)
    units = scoring.units_of(records)
    rows = []
    for group in scoring.order(units.group_names()):
        num, den = units.cluster_sums(group, cluster)
        members = units.members(group)
        if scoring.intervals == "wilson":
            intervals = [(math.nan, math.nan)] * len(units.metrics)
        else:
            rng = derive_rng(seed, *_stream(scoring.report_stream, cluster), group)
            intervals = cluster_bootstrap_ratios(num, den, resamples=resamples, rng=rng)
        for j, metric in enumerate(units.metrics):
            low, high = intervals[j]
            row = MetricRow(
                metric=metric.name,
                group=group,
                value=None,
                ci_low=_finite(low),
                ci_high=_finite(high),
                n=0,
                unit=metric.unit,
                ci_method=WILSON_ONLY if scoring.intervals == "wilson" else f"{cluster} bootstrap",
            )
            rows.append(_estimate(row, units, j, num, den, members))
    return rows


def compare_rows(
    scoring: Scoring,
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    cluster: str | None = None,
    spec: MetricSpec | None = None,
) -> list[ComparisonRow]:
    """Paired comparison of two runs of one dataset on the episodes scored in both, group by group: each compared
    metric's A, B and A - B with its paired bootstrap interval, then the McNemar row of the scoring's outcome.

    Raises:
        RunError: If the runs share no episode id, hold an episode twice, or disagree on an episode's keys.
        ConfigError: If `cluster` is not one the scoring declares.
    """
    scoring = scoring if spec is None else replace(scoring, spec=spec)
    cluster = _cluster(scoring, cluster)
    matched_a, matched_b = matched_scored(records_a, records_b)
    compared = replace(scoring, spec=MetricSpec(scoring.spec.compared()))
    units_a, units_b = compared.units_of(matched_a), compared.units_of(matched_b)
    names = [metric.name for metric in units_a.metrics]
    rows: list[ComparisonRow] = []
    for group in (scoring.compare_order or scoring.order)(units_a.group_names()):
        num_a, den_a = units_a.cluster_sums(group, cluster)
        num_b, den_b = units_b.cluster_sums(group, cluster)
        rng = derive_rng(seed, *_stream(scoring.compare_stream, cluster), group)
        intervals = paired_cluster_bootstrap_diffs(num_a, den_a, num_b, den_b, resamples=resamples, rng=rng)
        for j, metric in enumerate(units_a.metrics):
            a, b = _ratio(units_a, num_a, den_a, j), _ratio(units_b, num_b, den_b, j)
            low, high = intervals[j]
            rows.append(
                ComparisonRow(
                    metric.name,
                    group,
                    a,
                    b,
                    a - b if a is not None and b is not None else None,
                    _finite(low),
                    _finite(high),
                    int(den_a[:, j].sum()),
                    unit=metric.unit,
                    ci_method=f"paired {cluster} bootstrap",
                )
            )
        test = scoring.mcnemar
        if test is not None and test.outcome in names:
            pairs = [(x, y) for x, y in zip(matched_a, matched_b, strict=True) if group in scoring.groups(x)]
            wins_a = sum(1 for x, y in pairs if test.success(x) and not test.success(y))
            wins_b = sum(1 for x, y in pairs if not test.success(x) and test.success(y))
            rows.append(
                ComparisonRow(
                    test.metric or f"{MCNEMAR_PREFIX}{test.outcome}",
                    group,
                    None,
                    None,
                    None,
                    None,
                    None,
                    len(pairs),
                    unit=test.unit,
                    ci_method=test.ci_method or f"exact McNemar on {test.outcome}",
                    mcnemar_b=wins_a,
                    mcnemar_c=wins_b,
                    p_value=mcnemar_exact(wins_a, wins_b),
                )
            )
    return rows


def _estimate(
    row: MetricRow, units: Units, j: int, num: np.ndarray, den: np.ndarray, members: Sequence[int]
) -> MetricRow:
    """The row's value, n, k and Wilson interval: from the counts (a count metric), else the mean over units with a
    Wilson interval over the records of a 0/1 metric."""
    metric = units.metrics[j]
    if units.counts:
        k, n = int(num[:, j].sum()), int(den[:, j].sum())
        wilson = wilson_interval(k, n)
        return replace(
            row, value=k / n if n else None, n=n, k=k, wilson_low=_finite(wilson[0]), wilson_high=_finite(wilson[1])
        )
    n = int(den[:, j].sum())
    row = replace(row, value=float(num[:, j].sum()) / n if n else None, n=n)
    if not (isinstance(metric, RecordMetric) and metric.binary):
        return row
    per_unit = Counter(len(units.records[i]) for i in members)
    if not members or len(per_unit) != 1:  # a task-macro value is a share of records only when tasks hold alike
        return row
    trials = [record for i in members for record in units.records[i]]
    k = sum(1 for record in trials if metric.value(record) == 1.0)
    low, high = wilson_interval(k, len(trials))
    row = replace(row, wilson_low=_finite(low), wilson_high=_finite(high))
    return replace(row, k=k) if units.per_record else row  # `k` counts the row's `n` units: only where they are records


def _ratio(units: Units, num: np.ndarray, den: np.ndarray, j: int) -> float | None:
    if units.counts:
        k, n = int(num[:, j].sum()), int(den[:, j].sum())
        return k / n if n else None
    n = int(den[:, j].sum())
    return float(num[:, j].sum()) / n if n else None


def _cluster(scoring: Scoring, cluster: str | None) -> str:
    if cluster is None:
        return scoring.clusters[0]
    if cluster not in scoring.clusters:
        raise ConfigError(f"unknown bootstrap cluster {cluster!r}; choose one of {sorted(scoring.clusters)}")
    return cluster


def _stream(parts: Sequence[str], cluster: str) -> tuple[str, ...]:
    return tuple(cluster if part == CLUSTER else part for part in parts)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
