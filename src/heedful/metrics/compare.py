"""Paired comparison of two decisions runs over the same dataset.

Instances are matched by episode id, and only instances scored in both runs (status ok or
parse_error in each) enter the comparison: both runs are then measured on exactly the same
units, pairs and families, which is what a paired difference needs. An instance that crashed or
timed out in one run is left out here; each run's own report shows it in its status rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from heedful.errors import RunError
from heedful.metrics.decisions import (
    SPEC,
    FamilyMetric,
    IntArray,
    family_table,
    group_labels,
    group_names,
)
from heedful.metrics.spec import MetricSpec
from heedful.metrics.stats import Interval, mcnemar_exact, paired_cluster_bootstrap_diffs
from heedful.records import Record
from heedful.seeding import derive_rng

MCNEMAR_PREFIX = "mcnemar_"
MCNEMAR_METRIC = "mcnemar_accuracy"


@dataclass(frozen=True)
class ComparisonRow:
    """One metric of run A against run B on matched instances.

    `diff` is `a - b` and `ci_low` / `ci_high` its paired bootstrap interval. McNemar rows
    (metric `mcnemar_accuracy`) instead carry `mcnemar_b` (instances A got right and B wrong),
    `mcnemar_c` (A wrong, B right) and the exact two-sided `p_value`; those fields are None elsewhere.
    They are not called `b` and `c` because `b` already holds run B's value.
    """

    metric: str
    group: str
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    unit: str = "instance"
    ci_method: str = "paired family bootstrap"
    mcnemar_b: int | None = None
    mcnemar_c: int | None = None
    p_value: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "group": self.group,
            "a": self.a,
            "b": self.b,
            "diff": self.diff,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "unit": self.unit,
            "ci_method": self.ci_method,
            "mcnemar_b": self.mcnemar_b,
            "mcnemar_c": self.mcnemar_c,
            "p_value": self.p_value,
        }


def compare_decision_runs(
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    cluster: str = "family",
    spec: MetricSpec = SPEC,
) -> list[ComparisonRow]:
    """Compare two runs of the same decisions dataset, metric by metric and group by group.

    Args:
        records_a: Records of run A.
        records_b: Records of run B.
        resamples: Bootstrap replicates per group.
        seed: Root seed; group g draws from `derive_rng(seed, "compare", cluster, g)`.
        cluster: `"family"` or `"anchor"`: the unit the paired bootstrap resamples.
        spec: The metrics; those marked `compared` are compared (the decisions `SPEC` by default).

    Returns:
        For each group (`all` first, then the others sorted): one row per compared metric of `spec`
        with A, B, A - B and the paired bootstrap interval of the difference, then one
        `mcnemar_accuracy` row with the discordant counts and the exact McNemar p-value.

    Raises:
        RunError: If the runs share no episode id, hold an episode twice, or disagree on an
            episode's keys (they are not runs of the same dataset).
        ConfigError: If `cluster` is unknown.
    """
    matched_a, matched_b = matched_scored(records_a, records_b)
    compared = MetricSpec(spec.compared())
    table_a, table_b = family_table(matched_a, compared), family_table(matched_b, compared)
    rows: list[ComparisonRow] = []
    for group in group_names(table_a):
        num_a, den_a = table_a.cluster_sums(group, cluster)
        num_b, den_b = table_b.cluster_sums(group, cluster)
        rng = derive_rng(seed, "compare", cluster, group)
        intervals = paired_cluster_bootstrap_diffs(num_a, den_a, num_b, den_b, resamples=resamples, rng=rng)
        method = f"paired {cluster} bootstrap"
        rows.extend(_diff_rows(group, (num_a, den_a), (num_b, den_b), intervals, method, table_a.metrics))
        rows.append(mcnemar_row(group, matched_a, matched_b))
    return rows


def matched_scored(records_a: Sequence[Record], records_b: Sequence[Record]) -> tuple[list[Record], list[Record]]:
    """The records of both runs for the episodes present and scored in both, aligned by episode id.

    Raises:
        RunError: If the runs share no episode id, a run holds an episode twice, or the two runs
            disagree on an episode's keys.
    """
    by_id_a, by_id_b = _by_episode(records_a, "A"), _by_episode(records_b, "B")
    shared = sorted(by_id_a.keys() & by_id_b.keys())
    if not shared:
        raise RunError(
            f"the two runs share no episode id (A has {len(by_id_a)} records, B has {len(by_id_b)}); "
            "compare runs of the same dataset"
        )
    for episode_id in shared:
        if by_id_a[episode_id].keys != by_id_b[episode_id].keys:
            raise RunError(
                f"episode {episode_id!r} has different keys in the two runs; are they runs of the same dataset?"
            )
    both = [e for e in shared if by_id_a[e].status.scored and by_id_b[e].status.scored]
    return [by_id_a[e] for e in both], [by_id_b[e] for e in both]


def mcnemar_row(group: str, matched_a: Sequence[Record], matched_b: Sequence[Record]) -> ComparisonRow:
    """McNemar's exact test on accuracy over the aligned instances that belong to `group`."""
    a_only = b_only = n = 0
    for x, y in zip(matched_a, matched_b, strict=True):
        if group not in group_labels(x):
            continue
        n += 1
        a_only += x.correct is True and y.correct is not True
        b_only += x.correct is not True and y.correct is True
    return ComparisonRow(
        metric=MCNEMAR_METRIC,
        group=group,
        a=None,
        b=None,
        diff=None,
        ci_low=None,
        ci_high=None,
        n=n,
        ci_method="exact McNemar",
        mcnemar_b=a_only,
        mcnemar_c=b_only,
        p_value=mcnemar_exact(a_only, b_only),
    )


def _diff_rows(
    group: str,
    sums_a: tuple[IntArray, IntArray],
    sums_b: tuple[IntArray, IntArray],
    intervals: list[Interval],
    ci_method: str,
    metrics: Sequence[FamilyMetric],
) -> list[ComparisonRow]:
    rows = []
    for j, metric in enumerate(metrics):
        a = _ratio(sums_a, j)
        b = _ratio(sums_b, j)
        low, high = intervals[j]
        rows.append(
            ComparisonRow(
                metric=metric.name,
                group=group,
                a=a,
                b=b,
                diff=a - b if a is not None and b is not None else None,
                ci_low=low if math.isfinite(low) else None,
                ci_high=high if math.isfinite(high) else None,
                n=int(sums_a[1][:, j].sum()),
                unit=metric.unit,
                ci_method=ci_method,
            )
        )
    return rows


def _ratio(sums: tuple[IntArray, IntArray], column: int) -> float | None:
    k, n = int(sums[0][:, column].sum()), int(sums[1][:, column].sum())
    return k / n if n else None


def _by_episode(records: Sequence[Record], run: str) -> dict[str, Record]:
    by_id: dict[str, Record] = {}
    for record in records:
        if record.episode_id in by_id:
            raise RunError(f"run {run} holds episode {record.episode_id!r} twice; a run must hold each episode once")
        by_id[record.episode_id] = record
    return by_id
