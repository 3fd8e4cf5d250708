"""Paired comparison of household runs on hand-built records."""

from __future__ import annotations

from heedful.records import Record, Status
from heedful.suites.household.metrics import compare_household_runs


def record(i: int, success: bool, spl: float, task_type: str = "pnp") -> Record:
    return Record(
        episode_id=f"e{i}",
        index=i,
        status=Status.OK,
        correct=success,
        keys={"split": "val_seen", "task_type": task_type, "ambiguous": "n/a", "house_id": "h0"},
        scores={"success": float(success), "spl": spl},
    )


def test_differences_intervals_and_mcnemar() -> None:
    a = [record(i, True, 1.0) for i in range(10)]
    b = [record(i, i < 6, 0.5 if i < 6 else 0.0) for i in range(10)]
    rows = compare_household_runs(a, b, resamples=2000)
    success = next(r for r in rows if r.metric == "success" and r.group == "all")
    spl = next(r for r in rows if r.metric == "spl" and r.group == "all")
    assert (success.a, success.b, success.n) == (1.0, 0.6, 10)
    assert abs(success.diff - 0.4) < 1e-12 and success.ci_low > 0
    assert abs(spl.diff - 0.7) < 1e-12 and spl.ci_low <= 0.7 <= spl.ci_high
    mcnemar = next(r for r in rows if r.metric == "mcnemar_success" and r.group == "all")
    assert (mcnemar.mcnemar_b, mcnemar.mcnemar_c) == (4, 0) and abs(mcnemar.p_value - 0.125) < 1e-12
    assert {r.group for r in rows} == {"all", "val_seen", "PnP", "val_seen / PnP"}


def test_identical_runs_differ_by_nothing() -> None:
    a = [record(i, i % 2 == 0, 0.5 * (i % 2 == 0)) for i in range(8)]
    rows = compare_household_runs(a, a, resamples=500)
    for row in rows:
        if row.diff is not None:
            assert row.diff == 0 and row.ci_low == 0 and row.ci_high == 0
        else:
            assert row.p_value == 1.0
