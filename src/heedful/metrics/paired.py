"""Paired comparison rows over matched units (episodes, tasks), shared by the household and tabletop suites.

Each unit has one value per metric in both runs; a row gives both means, their difference and a paired
bootstrap interval over units. A McNemar row compares a binary outcome unit by unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from heedful.metrics.compare import MCNEMAR_PREFIX, ComparisonRow
from heedful.metrics.stats import mcnemar_exact, paired_cluster_bootstrap_diffs


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def paired_mean_rows(
    metrics: Sequence[str],
    group: str,
    values_a: np.ndarray,
    values_b: np.ndarray,
    *,
    resamples: int,
    rng: np.random.Generator,
    unit: str,
    ci_method: str,
) -> list[ComparisonRow]:
    """One row per metric column of the (units x metrics) arrays: means of A and B and A - B with its CI."""
    ones = np.ones_like(values_a)  # every unit weighs the same: a bootstrap over units
    intervals = paired_cluster_bootstrap_diffs(values_a, ones, values_b, ones, resamples=resamples, rng=rng)
    rows = []
    for j, metric in enumerate(metrics):
        mean_a, mean_b = float(values_a[:, j].mean()), float(values_b[:, j].mean())
        low, high = intervals[j]
        rows.append(
            ComparisonRow(
                metric,
                group,
                mean_a,
                mean_b,
                mean_a - mean_b,
                _finite(low),
                _finite(high),
                len(values_a),
                unit=unit,
                ci_method=ci_method,
            )
        )
    return rows


def mcnemar_count_row(outcome: str, group: str, wins_a: int, wins_b: int, n: int, *, unit: str) -> ComparisonRow:
    """Exact McNemar test on a binary outcome: `wins_a` units only A achieved, `wins_b` only B."""
    return ComparisonRow(
        f"{MCNEMAR_PREFIX}{outcome}",
        group,
        None,
        None,
        None,
        None,
        None,
        n,
        unit=unit,
        ci_method=f"exact McNemar on {outcome}",
        mcnemar_b=wins_a,
        mcnemar_c=wins_b,
        p_value=mcnemar_exact(wins_a, wins_b),
    )
