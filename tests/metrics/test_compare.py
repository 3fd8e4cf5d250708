"""Paired comparison of two decisions runs: matching, differences, intervals and McNemar."""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any

import pytest

from heedful.errors import RunError
from heedful.metrics.compare import MCNEMAR_METRIC, ComparisonRow
from heedful.records import Record, Status
from heedful.suites.decisions.metrics import METRICS, compare_decision_runs

ROLES = ("base", "preserve", "change", "change_preserve")
GOLD = {"base": "A", "preserve": "A", "change": "B", "change_preserve": "B"}


def rec(family: str, role: str, pred: Any, *, status: Status = Status.OK, category: str = "set") -> Record:
    keys = {
        "family_id": family,
        "anchor_id": f"anchor-{family}",
        "role": role,
        "category": category,
        "subtype": "x",
        "decision_type": "single",
        "split": "test",
        "anchor_kind": "action",
    }
    correct = (pred == GOLD[role]) if status is Status.OK else (False if status.scored else None)
    return Record(
        episode_id=f"{family}/{role}",
        index=0,
        status=status,
        keys=keys,
        gold=GOLD[role],
        prediction=pred if status is Status.OK else None,
        correct=correct,
    )


def run(n_families: int, over_invariant: Collection[int] = ()) -> list[Record]:
    """Families 0..n-1, perfect except those in `over_invariant`, which answer A everywhere."""
    return [
        rec(f"F{f:02d}", role, "A" if f in over_invariant else GOLD[role], category=("set", "multi")[f % 2])
        for f in range(n_families)
        for role in ROLES
    ]


def rows_by_key(rows: list[ComparisonRow]) -> dict[tuple[str, str], ComparisonRow]:
    return {(row.group, row.metric): row for row in rows}


def test_identical_runs_have_zero_difference_and_mcnemar_one() -> None:
    records = run(20, over_invariant={1, 4, 7})
    rows = compare_decision_runs(records, records, resamples=500)
    for row in rows:
        if row.metric == MCNEMAR_METRIC:
            assert (row.mcnemar_b, row.mcnemar_c, row.p_value) == (0, 0, 1.0)
        elif row.n:
            assert row.a == row.b
            assert (row.diff, row.ci_low, row.ci_high) == (0.0, 0.0, 0.0)


def test_hand_computed_differences() -> None:
    # A perfect; B over-invariant on 4 of 20 families, each losing change and change_preserve.
    a, b = run(20), run(20, over_invariant={0, 2, 5, 9})
    rows = rows_by_key(compare_decision_runs(a, b, resamples=1_000))
    acc = rows[("all", "accuracy")]
    assert (acc.a, acc.b, acc.n) == (1.0, 72 / 80, 80)
    assert acc.diff == pytest.approx(8 / 80)
    assert acc.diff is not None and acc.ci_low is not None and acc.ci_high is not None
    assert 0.0 < acc.ci_low <= acc.diff <= acc.ci_high
    over = rows[("all", "over_invariance")]
    assert (over.a, over.b, over.n, over.unit) == (0.0, 8 / 40, 40, "pair")
    fam = rows[("all", "family_success")]
    assert fam.diff == pytest.approx(4 / 20)
    mc = rows[("all", MCNEMAR_METRIC)]
    assert (mc.mcnemar_b, mc.mcnemar_c, mc.n) == (8, 0, 80)
    assert mc.p_value == pytest.approx(2 / 2**8)
    # families 0, 2 are category set, 5, 9 are multi: two lost families each
    set_mc = rows[("category:set", MCNEMAR_METRIC)]
    assert (set_mc.mcnemar_b, set_mc.mcnemar_c, set_mc.n) == (4, 0, 40)


def test_rows_cover_every_metric_and_group() -> None:
    rows = compare_decision_runs(run(6), run(6, over_invariant={1}), resamples=200)
    expected = [
        (group, metric)
        for group in (
            "all",
            "anchor_kind:action",
            "category:multi",
            "category:set",
            "decision_type:single",
            "split:test",
        )
        for metric in (*METRICS, MCNEMAR_METRIC)
    ]
    assert [(row.group, row.metric) for row in rows] == expected


def test_only_episodes_scored_in_both_runs_are_compared() -> None:
    a = run(10)
    b = [r for r in run(10, over_invariant={3}) if r.episode_id != "F00/base"]  # missing from B
    crashed = rec("F01", "preserve", None, status=Status.CRASHED, category="multi")
    b = [crashed if r.episode_id == crashed.episode_id else r for r in b]
    rows = rows_by_key(compare_decision_runs(a, b, resamples=300))
    acc = rows[("all", "accuracy")]
    assert acc.n == 38
    assert acc.b == pytest.approx(36 / 38)  # F03 lost change and change_preserve
    assert rows[("all", "family_success")].n == 8  # F00 and F01 are incomplete in the paired set
    assert rows[("all", "pair_success")].n == 40 - 2 - 2


def test_parse_errors_are_compared_as_wrong() -> None:
    a = run(4)
    b = [rec("F00", "base", None, status=Status.PARSE_ERROR) if r.episode_id == "F00/base" else r for r in run(4)]
    rows = rows_by_key(compare_decision_runs(a, b, resamples=200))
    assert rows[("all", "accuracy")].n == 16
    assert rows[("all", "parse_success")].diff == pytest.approx(1 / 16)
    assert rows[("all", MCNEMAR_METRIC)].mcnemar_b == 1


def test_comparison_is_antisymmetric_and_order_free() -> None:
    a, b = run(30), run(30, over_invariant={2, 3, 11, 17, 23})
    forward = rows_by_key(compare_decision_runs(a, b, resamples=500, seed=4))
    shuffled = list(b)
    random.Random(0).shuffle(shuffled)
    assert rows_by_key(compare_decision_runs(a, shuffled, resamples=500, seed=4)) == forward
    backward = rows_by_key(compare_decision_runs(b, a, resamples=500, seed=4))
    for key, row in forward.items():
        if row.metric == MCNEMAR_METRIC:
            assert (backward[key].mcnemar_b, backward[key].mcnemar_c) == (row.mcnemar_c, row.mcnemar_b)
            assert backward[key].p_value == row.p_value
        elif row.diff is not None:
            assert backward[key].diff == pytest.approx(-row.diff)
            assert backward[key].ci_low == pytest.approx(-row.ci_high)  # type: ignore[operator]


def test_runs_without_shared_episodes_are_an_error() -> None:
    other = [r.model_copy(update={"episode_id": "other-" + r.episode_id}) for r in run(2)]
    with pytest.raises(RunError, match="share no episode id"):
        compare_decision_runs(run(2), other)


def test_runs_of_different_datasets_are_an_error() -> None:
    b = [r.model_copy(update={"keys": {**r.keys, "category": "temporal"}}) for r in run(2)]
    with pytest.raises(RunError, match="different keys"):
        compare_decision_runs(run(2), b)


def test_duplicate_episode_in_a_run_is_an_error() -> None:
    with pytest.raises(RunError, match="twice"):
        compare_decision_runs(run(2) + run(1), run(2))


def test_as_dict_has_every_field() -> None:
    row = compare_decision_runs(run(2), run(2), resamples=50)[-1]
    assert row.as_dict() == {
        "metric": MCNEMAR_METRIC,
        "group": "split:test",
        "a": None,
        "b": None,
        "diff": None,
        "ci_low": None,
        "ci_high": None,
        "n": 8,
        "unit": "instance",
        "ci_method": "exact McNemar",
        "mcnemar_b": 0,
        "mcnemar_c": 0,
        "p_value": 1.0,
    }
