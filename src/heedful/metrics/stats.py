"""Suite-independent statistics: Wilson intervals, exact McNemar, cluster bootstrap of ratios.

Everything here is a pure function of numbers (numpy only). Intervals that cannot be computed
(no units, no replicate with a positive denominator) are `(nan, nan)`; callers that build report
rows turn NaN into None so it never reaches JSON.

The bootstrap resamples whole clusters with replacement. One replicate is a vector of multinomial
counts (how often each cluster was drawn); a ratio replicate is `weights @ num / weights @ den`.
The weights depend only on the number of clusters, the number of resamples and the generator, so
every column of a multi-column call sees the same replicates: the single-column functions return
exactly one column of their multi-column counterparts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from heedful.errors import ConfigError

Z_95 = 1.959963984540054
"""The 97.5% standard normal quantile: two-sided 95% intervals."""

_CHUNK_ROWS = 1_000
_CHUNK_CELLS = 1 << 21  # bounds one weight chunk to about 16 MiB of int64 counts

Interval = tuple[float, float]
FloatArray = NDArray[np.float64]


def wilson_interval(k: int, n: int, z: float = Z_95) -> Interval:
    """Wilson score interval for a binomial proportion.

    Args:
        k: Number of successes, 0 <= k <= n.
        n: Number of independent units.
        z: Normal quantile; the default gives a two-sided 95% interval.

    Returns:
        `(low, high)` clipped to [0, 1], with exact 0 for k == 0 and exact 1 for k == n.
        `(nan, nan)` when n == 0: there is no proportion to bound.

    Raises:
        ConfigError: If the counts are negative or k > n.
    """
    if n < 0 or k < 0 or k > n:
        raise ConfigError(f"wilson_interval needs 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if k == 0 else max(0.0, center - half)
    high = 1.0 if k == n else min(1.0, center + half)
    return (low, high)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar test on the discordant counts of a paired comparison.

    Under the null hypothesis each discordant pair goes either way with probability 1/2, so
    the p-value is `min(1, 2 * P(X <= min(b, c)))` with `X ~ Binomial(b + c, 1/2)`.

    Args:
        b: Pairs where the first system is right and the second wrong.
        c: Pairs where the first system is wrong and the second right.

    Returns:
        The p-value; 1.0 when there is no discordant pair.

    Raises:
        ConfigError: If a count is negative.
    """
    if b < 0 or c < 0:
        raise ConfigError(f"mcnemar_exact needs non-negative counts, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    # Exact integers: binomial coefficients of n ~ 10^4 overflow floats long before ints slow down.
    term = 1
    tail = 1
    for i in range(min(b, c)):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(1.0, (2 * tail) / (1 << n))


def cluster_bootstrap_ratio(
    num: ArrayLike, den: ArrayLike, *, resamples: int = 10_000, rng: np.random.Generator
) -> Interval:
    """Percentile 95% interval of `sum(num) / sum(den)` under a cluster bootstrap.

    Args:
        num: Per-cluster numerator sums, one entry per cluster.
        den: Per-cluster denominator sums, same shape as `num`.
        resamples: Number of bootstrap replicates.
        rng: Source of randomness; the same seed gives the same interval.

    Returns:
        The 2.5 and 97.5 percentiles of the replicate ratios. Replicates whose denominator is
        zero are dropped; `(nan, nan)` when none is left (or there is no cluster).
    """
    num_2d, den_2d = _as_columns(num, den, "cluster_bootstrap_ratio")
    return cluster_bootstrap_ratios(num_2d, den_2d, resamples=resamples, rng=rng)[0]


def cluster_bootstrap_ratios(
    num: ArrayLike, den: ArrayLike, *, resamples: int = 10_000, rng: np.random.Generator
) -> list[Interval]:
    """Cluster bootstrap intervals for several ratios that share the same clusters.

    All columns are resampled with the same weights (one joint bootstrap), which is both faster
    and keeps the intervals of related metrics consistent with each other.

    Args:
        num: Per-cluster numerators, shape (clusters, metrics).
        den: Per-cluster denominators, same shape.
        resamples: Number of bootstrap replicates.
        rng: Source of randomness.

    Returns:
        One `(low, high)` percentile interval per column, as in `cluster_bootstrap_ratio`.
    """
    num_2d, den_2d = _as_matrix(num, den, "cluster_bootstrap_ratios")
    sums = _replicate_sums(np.hstack([num_2d, den_2d]), resamples, rng)
    m = num_2d.shape[1]
    return [_ratio_interval(sums[:, j], sums[:, m + j]) for j in range(m)]


def paired_cluster_bootstrap_diff(
    num_a: ArrayLike,
    den_a: ArrayLike,
    num_b: ArrayLike,
    den_b: ArrayLike,
    *,
    resamples: int = 10_000,
    rng: np.random.Generator,
) -> Interval:
    """Percentile 95% interval of `ratio_a - ratio_b` when A and B are measured on the same clusters.

    Each replicate draws one set of cluster weights and applies it to both A and B, so the
    interval reflects the paired design. Replicates where either denominator is zero are dropped.

    Args:
        num_a: Per-cluster numerators of A.
        den_a: Per-cluster denominators of A.
        num_b: Per-cluster numerators of B (same clusters, same order).
        den_b: Per-cluster denominators of B.
        resamples: Number of bootstrap replicates.
        rng: Source of randomness.

    Returns:
        `(low, high)`, or `(nan, nan)` when no replicate is usable.
    """
    a_num, a_den = _as_columns(num_a, den_a, "paired_cluster_bootstrap_diff")
    b_num, b_den = _as_columns(num_b, den_b, "paired_cluster_bootstrap_diff")
    return paired_cluster_bootstrap_diffs(a_num, a_den, b_num, b_den, resamples=resamples, rng=rng)[0]


def paired_cluster_bootstrap_diffs(
    num_a: ArrayLike,
    den_a: ArrayLike,
    num_b: ArrayLike,
    den_b: ArrayLike,
    *,
    resamples: int = 10_000,
    rng: np.random.Generator,
) -> list[Interval]:
    """Multi-column `paired_cluster_bootstrap_diff`: inputs of shape (clusters, metrics).

    Returns:
        One `(low, high)` interval of the difference per column.
    """
    a_num, a_den = _as_matrix(num_a, den_a, "paired_cluster_bootstrap_diffs")
    b_num, b_den = _as_matrix(num_b, den_b, "paired_cluster_bootstrap_diffs")
    if a_num.shape != b_num.shape:
        raise ConfigError(f"paired bootstrap needs A and B of the same shape, got {a_num.shape} and {b_num.shape}")
    sums = _replicate_sums(np.hstack([a_num, a_den, b_num, b_den]), resamples, rng)
    m = a_num.shape[1]
    intervals = []
    for j in range(m):
        a_n, a_d, b_n, b_d = (sums[:, q * m + j] for q in range(4))
        usable = (a_d > 0) & (b_d > 0)
        diffs = a_n[usable] / a_d[usable] - b_n[usable] / b_d[usable]
        intervals.append(percentile_interval(diffs))
    return intervals


def percentile_interval(samples: FloatArray, level: float = 0.95) -> Interval:
    """Central percentile interval of bootstrap replicates; `(nan, nan)` when there are none."""
    if samples.size == 0:
        return (math.nan, math.nan)
    tail = 50.0 * (1.0 - level)
    low, high = np.percentile(samples, [tail, 100.0 - tail])
    return (float(low), float(high))


def _ratio_interval(num_sums: FloatArray, den_sums: FloatArray) -> Interval:
    usable = den_sums > 0
    return percentile_interval(num_sums[usable] / den_sums[usable])


def _replicate_sums(columns: FloatArray, resamples: int, rng: np.random.Generator) -> FloatArray:
    """Weighted column sums of every replicate: shape (resamples, columns)."""
    if resamples < 1:
        raise ConfigError(f"resamples must be at least 1, got {resamples}")
    out = np.empty((resamples, columns.shape[1]), dtype=np.float64)
    if columns.shape[0] == 0:
        out.fill(0.0)  # no cluster: every replicate has a zero denominator and is dropped
        return out
    start = 0
    for weights in _multinomial_weights(columns.shape[0], resamples, rng):
        out[start : start + weights.shape[0]] = weights @ columns
        start += weights.shape[0]
    return out


def _multinomial_weights(n_clusters: int, resamples: int, rng: np.random.Generator) -> Iterator[FloatArray]:
    """Yield chunks of replicate weights: how often each cluster is drawn, rows summing to n_clusters.

    Drawing indices and counting them with one flat bincount is several times faster than
    `rng.multinomial` and gives the same distribution.
    """
    rows_per_chunk = max(1, min(_CHUNK_ROWS, _CHUNK_CELLS // n_clusters))
    done = 0
    while done < resamples:
        rows = min(rows_per_chunk, resamples - done)
        draws = rng.integers(0, n_clusters, size=(rows, n_clusters))
        draws += (np.arange(rows) * n_clusters)[:, None]
        counts = np.bincount(draws.ravel(), minlength=rows * n_clusters)
        yield counts.reshape(rows, n_clusters).astype(np.float64)
        done += rows


def _as_columns(num: ArrayLike, den: ArrayLike, name: str) -> tuple[FloatArray, FloatArray]:
    num_arr = np.asarray(num, dtype=np.float64)
    den_arr = np.asarray(den, dtype=np.float64)
    if num_arr.ndim != 1 or num_arr.shape != den_arr.shape:
        raise ConfigError(
            f"{name} needs two 1-D arrays of equal length (one entry per cluster), "
            f"got shapes {num_arr.shape} and {den_arr.shape}"
        )
    return num_arr[:, None], den_arr[:, None]


def _as_matrix(num: ArrayLike, den: ArrayLike, name: str) -> tuple[FloatArray, FloatArray]:
    num_arr = np.asarray(num, dtype=np.float64)
    den_arr = np.asarray(den, dtype=np.float64)
    if num_arr.ndim != 2 or num_arr.shape != den_arr.shape:
        raise ConfigError(
            f"{name} needs two 2-D arrays of equal shape (clusters, metrics), "
            f"got shapes {num_arr.shape} and {den_arr.shape}"
        )
    if not (np.all(np.isfinite(num_arr)) and np.all(np.isfinite(den_arr))):
        raise ConfigError(f"{name} needs finite numerators and denominators")
    return num_arr, den_arr
