"""Wilson intervals, exact McNemar and the cluster bootstrap, against hand values and known behaviour."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.errors import ConfigError
from heedful.metrics.stats import (
    cluster_bootstrap_ratio,
    cluster_bootstrap_ratios,
    mcnemar_exact,
    paired_cluster_bootstrap_diff,
    paired_cluster_bootstrap_diffs,
    wilson_interval,
)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# Wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_known_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_bounds_are_exact_at_the_extremes() -> None:
    assert wilson_interval(0, 50)[0] == 0.0
    assert wilson_interval(50, 50)[1] == 1.0


def test_wilson_without_units_is_nan() -> None:
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)


@pytest.mark.parametrize(("k", "n"), [(-1, 5), (6, 5), (0, -1)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ConfigError):
        wilson_interval(k, n)


@given(st.integers(1, 5_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_the_proportion_and_is_symmetric(kn: tuple[int, int]) -> None:
    k, n = kn
    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    mirror_low, mirror_high = wilson_interval(n - k, n)
    assert low == pytest.approx(1.0 - mirror_high, abs=1e-12)
    assert high == pytest.approx(1.0 - mirror_low, abs=1e-12)


# McNemar


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (0, 5, 0.0625),  # 2 * (1/2)^5
        (5, 0, 0.0625),
        (3, 3, 1.0),
        (0, 0, 1.0),
        (1, 9, 2 * 11 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2^10
        (0, 1, 1.0),
    ],
)
def test_mcnemar_hand_values(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)


def test_mcnemar_matches_exact_fractions() -> None:
    b, c = 30, 50
    n = b + c
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(b + 1))
    assert mcnemar_exact(b, c) == pytest.approx(float(2 * tail), rel=1e-12)


def test_mcnemar_large_n_does_not_overflow() -> None:
    p = mcnemar_exact(2000, 2100)
    # normal approximation with continuity correction: z = 99 / sqrt(4100), two-sided p ~ 0.122
    z = (abs(2000 - 2100) - 1) / math.sqrt(4100)
    approx = math.erfc(z / math.sqrt(2))
    assert 0.0 < p < 1.0
    assert p == pytest.approx(approx, abs=0.01)
    assert mcnemar_exact(2100, 2000) == p


def test_mcnemar_extreme_imbalance_is_tiny_not_an_error() -> None:
    p = mcnemar_exact(0, 4000)
    assert 0.0 <= p < 1e-300


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ConfigError):
        mcnemar_exact(-1, 3)


# Cluster bootstrap


def _clusters(n_clusters: int, p: float, size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    den = np.full(n_clusters, size, dtype=float)
    num = rng.binomial(size, p, size=n_clusters).astype(float)
    return num, den


def test_bootstrap_contains_point_estimate() -> None:
    num, den = _clusters(200, 0.7, 4, seed=1)
    low, high = cluster_bootstrap_ratio(num, den, resamples=2_000, rng=_rng())
    assert low < num.sum() / den.sum() < high


def test_bootstrap_shrinks_with_more_clusters() -> None:
    small = cluster_bootstrap_ratio(*_clusters(50, 0.7, 4, seed=1), resamples=2_000, rng=_rng())
    large = cluster_bootstrap_ratio(*_clusters(2_000, 0.7, 4, seed=1), resamples=2_000, rng=_rng())
    assert (large[1] - large[0]) < 0.5 * (small[1] - small[0])


def test_bootstrap_is_deterministic_for_a_seed_and_differs_for_another() -> None:
    num, den = _clusters(100, 0.6, 4, seed=3)
    first = cluster_bootstrap_ratio(num, den, resamples=1_000, rng=_rng(7))
    again = cluster_bootstrap_ratio(num, den, resamples=1_000, rng=_rng(7))
    other = cluster_bootstrap_ratio(num, den, resamples=1_000, rng=_rng(8))
    assert first == again
    assert first != other


def test_single_column_equals_a_column_of_the_joint_bootstrap() -> None:
    num1, den1 = _clusters(80, 0.6, 4, seed=3)
    num2, den2 = _clusters(80, 0.3, 2, seed=4)
    joint = cluster_bootstrap_ratios(
        np.column_stack([num1, num2]), np.column_stack([den1, den2]), resamples=1_500, rng=_rng(5)
    )
    assert joint[0] == cluster_bootstrap_ratio(num1, den1, resamples=1_500, rng=_rng(5))
    assert joint[1] == cluster_bootstrap_ratio(num2, den2, resamples=1_500, rng=_rng(5))


def test_chunking_does_not_change_the_number_of_replicates_used() -> None:
    # 2,500 is not a multiple of the 1,000-row chunk: the partial last chunk must still be filled.
    num, den = _clusters(30, 0.5, 4, seed=2)
    low, high = cluster_bootstrap_ratio(num, den, resamples=2_500, rng=_rng())
    assert 0.0 < low < high < 1.0


def test_perfectly_correlated_instances_make_the_family_bootstrap_wider() -> None:
    rng = np.random.default_rng(11)
    family_outcome = (rng.random(300) < 0.7).astype(float)
    instances = np.repeat(family_outcome, 4)  # the 4 instances of a family succeed or fail together
    by_instance = cluster_bootstrap_ratio(instances, np.ones_like(instances), resamples=3_000, rng=_rng())
    by_family = cluster_bootstrap_ratio(4 * family_outcome, np.full(300, 4.0), resamples=3_000, rng=_rng())
    # the effective sample size is 300 families, not 1,200 instances: about twice as wide
    assert (by_family[1] - by_family[0]) > 1.6 * (by_instance[1] - by_instance[0])


def test_bootstrap_of_a_constant_ratio_collapses() -> None:
    assert cluster_bootstrap_ratio([4, 3, 2], [4, 3, 2], resamples=500, rng=_rng()) == (1.0, 1.0)
    assert cluster_bootstrap_ratio([0, 0, 0], [4, 3, 2], resamples=500, rng=_rng()) == (0.0, 0.0)


def test_zero_denominator_replicates_are_dropped() -> None:
    # a quarter of the replicates draw only the empty cluster; keeping them would yield NaN or 0
    assert cluster_bootstrap_ratio([1, 0], [1, 0], resamples=1_000, rng=_rng()) == (1.0, 1.0)


def test_bootstrap_without_any_denominator_is_nan() -> None:
    for num, den in (([0, 0], [0, 0]), ([], [])):
        low, high = cluster_bootstrap_ratio(num, den, resamples=100, rng=_rng())
        assert math.isnan(low) and math.isnan(high)


def test_bootstrap_rejects_bad_input() -> None:
    with pytest.raises(ConfigError):
        cluster_bootstrap_ratio([1, 2], [1], rng=_rng())
    with pytest.raises(ConfigError):
        cluster_bootstrap_ratio([1, 2], [1, 2], resamples=0, rng=_rng())
    with pytest.raises(ConfigError):
        cluster_bootstrap_ratios([[1.0, math.nan]], [[1.0, 1.0]], rng=_rng())


# Paired bootstrap


def test_paired_identical_runs_give_zero_difference() -> None:
    num, den = _clusters(100, 0.6, 4, seed=3)
    assert paired_cluster_bootstrap_diff(num, den, num, den, resamples=1_000, rng=_rng()) == (0.0, 0.0)


def test_paired_difference_contains_the_point_difference() -> None:
    num_a, den = _clusters(300, 0.7, 4, seed=3)
    num_b = np.maximum(num_a - (np.arange(300) % 5 == 0), 0)  # B loses one success in every fifth family
    low, high = paired_cluster_bootstrap_diff(num_a, den, num_b, den, resamples=2_000, rng=_rng())
    point = (num_a.sum() - num_b.sum()) / den.sum()
    assert 0.0 < low < point < high


def test_paired_design_is_narrower_than_independent_resampling() -> None:
    num_a, den = _clusters(300, 0.6, 4, seed=5)
    num_b = np.minimum(num_a + (np.arange(300) % 7 == 0), den)
    paired = paired_cluster_bootstrap_diff(num_a, den, num_b, den, resamples=2_000, rng=_rng(1))
    a = cluster_bootstrap_ratio(num_a, den, resamples=2_000, rng=_rng(2))
    b = cluster_bootstrap_ratio(num_b, den, resamples=2_000, rng=_rng(3))
    # independent intervals combined in quadrature ignore the strong positive correlation
    unpaired_width = math.hypot(a[1] - a[0], b[1] - b[0])
    assert (paired[1] - paired[0]) < 0.5 * unpaired_width


def test_paired_multi_column_matches_single_column() -> None:
    num_a, den = _clusters(60, 0.6, 4, seed=3)
    num_b, _ = _clusters(60, 0.5, 4, seed=4)
    joint = paired_cluster_bootstrap_diffs(
        np.column_stack([num_a, num_b]),
        np.column_stack([den, den]),
        np.column_stack([num_b, num_a]),
        np.column_stack([den, den]),
        resamples=800,
        rng=_rng(9),
    )
    single = paired_cluster_bootstrap_diff(num_a, den, num_b, den, resamples=800, rng=_rng(9))
    assert joint[0] == single
    assert joint[1] == pytest.approx((-single[1], -single[0]), abs=1e-12)


def test_paired_rejects_mismatched_runs() -> None:
    with pytest.raises(ConfigError):
        paired_cluster_bootstrap_diffs([[1.0]], [[1.0]], [[1.0], [2.0]], [[1.0], [2.0]], rng=_rng())
