"""The one metrics engine: rows and comparisons derived from a declared Scoring, checked against the statistics
computed by hand from the same numbers and the same documented random stream."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from heedful.errors import ConfigError
from heedful.metrics.engine import compare_rows, report_rows
from heedful.metrics.scoring import WILSON_ONLY, MacroOver, McNemar, PerRecord, Scoring
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.metrics.stats import cluster_bootstrap_ratios, paired_cluster_bootstrap_diffs, wilson_interval
from heedful.records import Record, Status
from heedful.seeding import derive_rng

HIT = RecordMetric(name="hit", description="d", unit="episode", value=lambda r: r.scores["hit"], binary=True)
SCORING = Scoring(MetricSpec((HIT,)), mcnemar=McNemar("hit", lambda r: r.scores["hit"] == 1.0, "episode"))


def rec(i: int, hit: float, task: str = "t", status: Status = Status.OK) -> Record:
    return Record(episode_id=f"e{i:02d}", index=i, keys={"task": task}, status=status, scores={"hit": hit})


def test_a_record_metric_row_is_the_mean_with_the_declared_stream_and_wilson() -> None:
    hits = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    records = [rec(i, h) for i, h in enumerate(hits)] + [rec(9, 1.0, status=Status.CRASHED)]
    ok, crashed, row = report_rows(SCORING, records, resamples=300, seed=5)
    assert (ok.metric, ok.k, ok.n, crashed.k) == ("ok", 7, 8, 1)
    num = np.array(hits)[:, None]
    ((low, high),) = cluster_bootstrap_ratios(
        num, np.ones_like(num), resamples=300, rng=derive_rng(5, "bootstrap", "episode", "all")
    )
    assert (row.value, row.k, row.n, row.ci_low, row.ci_high) == (5 / 7, 5, 7, low, high)
    assert (row.wilson_low, row.wilson_high) == wilson_interval(5, 7) and row.ci_method == "episode bootstrap"


def test_a_task_macro_gets_wilson_over_trials_only_when_tasks_hold_alike_and_no_k() -> None:
    macro = Scoring(MetricSpec((HIT,)), units=MacroOver("task", "task"), clusters=("task",))
    even = [rec(0, 1.0, "a"), rec(1, 0.0, "a"), rec(2, 1.0, "b"), rec(3, 1.0, "b")]
    (row,) = [r for r in report_rows(macro, even, resamples=50) if r.metric == "hit"]
    assert (row.value, row.n, row.k) == (0.75, 2, None) and row.wilson_low == wilson_interval(3, 4)[0]
    (uneven,) = [r for r in report_rows(macro, even[:-1], resamples=50) if r.metric == "hit"]
    assert uneven.value == 0.75 and uneven.wilson_low is None  # (0.5 + 1.0) / 2 is no share of 3 trials


def test_extra_scorings_follow_with_wilson_intervals_only_and_are_not_compared() -> None:
    counted = Scoring(
        MetricSpec(
            (RecordMetric(name="miss", description="d", unit="episode", value=lambda r: 1.0 - r.scores["hit"]),)
        ),
        units=lambda records, spec, groups: replace(PerRecord()(records, spec, groups), counts=True),
        intervals="wilson",
    )
    both = replace(SCORING, extra=(counted,))
    assert both.full_spec.names == ("hit", "miss")
    records = [rec(i, float(i % 3 > 0)) for i in range(6)]
    rows = report_rows(both, records, resamples=50)
    assert [row.metric for row in rows] == ["ok", "hit", "miss"]
    miss = rows[-1]
    assert (miss.value, miss.k, miss.n, miss.ci_low, miss.ci_high, miss.ci_method) == (
        2 / 6,
        2,
        6,
        None,
        None,
        WILSON_ONLY,
    )
    assert (miss.wilson_low, miss.wilson_high) == wilson_interval(2, 6)
    assert [row.metric for row in compare_rows(both, records, records, resamples=50)] == ["hit", "mcnemar_hit"]


def test_a_comparison_pairs_the_same_weights_and_tests_mcnemar() -> None:
    a = [rec(i, 1.0) for i in range(6)]
    b = [rec(i, float(i % 2)) for i in range(6)]
    diff, mcnemar = compare_rows(SCORING, a, b, resamples=200, seed=1)
    ones = np.ones((6, 1))
    hits_b = np.array([[float(i % 2)] for i in range(6)])
    rng = derive_rng(1, "compare", "episode", "all")
    (want,) = paired_cluster_bootstrap_diffs(ones, ones, hits_b, ones, resamples=200, rng=rng)
    assert (diff.a, diff.b, diff.diff, (diff.ci_low, diff.ci_high)) == (1.0, 0.5, 0.5, want)
    assert (mcnemar.metric, mcnemar.mcnemar_b, mcnemar.mcnemar_c, mcnemar.n) == ("mcnemar_hit", 3, 0, 6)


def test_an_undeclared_cluster_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown bootstrap cluster 'anchor'"):
        report_rows(SCORING, [rec(0, 1.0)], cluster="anchor")
