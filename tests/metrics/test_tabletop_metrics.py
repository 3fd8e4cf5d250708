"""Tabletop metrics from records: task macro per scene x level, CIs over tasks, status handling, Table 1."""

from __future__ import annotations

import pytest

from heedful.errors import RunError
from heedful.metrics.rows import MetricRow
from heedful.metrics.tables import table_text
from heedful.records import Record, Status
from heedful.suites.tabletop.layouts import PAPER_TABLES
from heedful.suites.tabletop.metrics import compare_tabletop_runs, tabletop_metrics


def table1(rows: list[MetricRow]) -> str:
    """The terminal's Table 1: the pivot of the one declared table."""
    return table_text(PAPER_TABLES[0], rows)


def rec(task: str, trial: int, intent: float, execution: float, complete: bool, **kw: object) -> Record:
    scene, level = task.split("_")[:2]
    scores = {
        "intent": intent,
        "execution": execution,
        "complete": float(complete),
        "intent_full": float(intent == 1.0),
        "execution_full": float(execution == 1.0),
    }
    fields: dict[str, object] = {"status": Status.OK, "scores": scores, **kw}
    return Record(
        episode_id=f"{task}/t{trial}",
        index=trial,
        keys={"task": task, "scene": scene.upper(), "level": level, "trial": str(trial)},
        **fields,  # type: ignore[arg-type]
    )


def values(rows: list, group: str) -> dict[str, float | None]:  # type: ignore[type-arg]
    return {r.metric: r.value for r in rows if r.group == group}


def test_task_macro_averages_trials_first_then_tasks() -> None:
    records = [
        # task a: 4 trials, half complete; task b: 1 trial, complete. Macro completion = (0.5 + 1) / 2.
        *(rec("s1_L0_a", i, 1.0, 1.0 if i < 2 else 0.4, i < 2) for i in range(4)),
        rec("s1_L0_b", 0, 0.8, 0.8, True),
    ]
    rows = tabletop_metrics(records, resamples=200)
    got = values(rows, "S1 / L0")
    assert got["complete"] == pytest.approx(0.75)
    assert got["intent"] == pytest.approx((1.0 + 0.8) / 2)
    assert got["execution"] == pytest.approx(((1.0 + 1.0 + 0.4 + 0.4) / 4 + 0.8) / 2)
    assert got["intent_full"] == pytest.approx(0.5)
    row = next(r for r in rows if r.group == "S1 / L0" and r.metric == "complete")
    assert row.n == 2 and row.unit == "task"
    assert row.ci_low is not None and row.ci_high is not None and row.ci_low <= 0.75 <= row.ci_high
    assert {"L0", "all"} <= {r.group for r in rows}


def test_failures_of_the_harness_are_counted_not_scored() -> None:
    records = [
        rec("s2_L1_a", 0, 1.0, 1.0, True),
        rec("s2_L1_a", 1, 0.0, 0.0, False, status=Status.CRASHED, error="boom"),
        rec("s2_L1_b", 0, 0.4, 0.0, False, status=Status.PARSE_ERROR, error="not JSON"),
    ]
    rows = tabletop_metrics(records, resamples=100)
    status = {r.metric: r.k for r in rows if r.group == "status"}
    assert status == {"ok": 1, "parse_error": 1, "crashed": 1}
    got = values(rows, "S2 / L1")
    assert got["complete"] == pytest.approx(0.5)  # the crash is left out; the parse error counts as it scored
    assert got["intent"] == pytest.approx(0.7)


def test_records_of_another_suite_are_refused() -> None:
    bad = Record(episode_id="x", index=0, status=Status.OK, keys={"family": "f"})
    with pytest.raises(RunError, match="tabletop keys"):
        tabletop_metrics([bad])


def test_table1_lays_out_scenes_and_levels_with_the_mean_over_scenes() -> None:
    records = [rec("s1_L0_a", 0, 1.0, 1.0, True), rec("s2_L0_a", 0, 0.5, 0.0, False)]
    text = table1(tabletop_metrics(records, resamples=50))
    first, second = (ln.replace("|", " ").split()[1:] for ln in text.splitlines() if ln.startswith("Intent "))
    assert first[0] == "100.0" and first[4] == "50.0" and first[1] == "-"  # S1 | S2 | S3
    assert second[0] == "-" and second[4] == "75.0"  # S4 | the mean over the scenes present at L0 | all scenes
    assert second[8] == "75.0" and second[12] == "75.0"  # all scenes: the task macro at L0 and over all tasks
    assert max(len(line) for line in text.splitlines()) <= 120


def test_paired_comparison_of_two_runs() -> None:
    a = [rec("s1_L0_a", i, 1.0, 1.0, True) for i in range(3)] + [rec("s1_L0_b", 0, 1.0, 1.0, True)]
    b = [rec("s1_L0_a", i, 0.2, 0.0, False) for i in range(3)] + [rec("s1_L0_b", 0, 1.0, 1.0, True)]
    rows = compare_tabletop_runs(a, b, resamples=200)
    diff = next(r for r in rows if r.group == "all" and r.metric == "complete")
    assert diff.diff == pytest.approx(0.5) and diff.n == 2
    mcnemar = next(r for r in rows if r.group == "all" and r.metric.endswith("complete") and r.p_value is not None)
    assert (mcnemar.mcnemar_b, mcnemar.mcnemar_c) == (3, 0)


def test_table1_prints_the_chance_rows_under_the_measured_ones() -> None:
    records = [rec("s1_L0_a", 0, 1.0, 1.0, True)]
    chance = [
        MetricRow(
            metric=m, group="chance S1 / L0", value=0.25, ci_low=None, ci_high=None, n=1, unit="task", ci_method="none"
        )
        for m in ("intent", "execution", "intent_full", "execution_full", "complete")
    ]
    text = table1(tabletop_metrics(records, resamples=20) + chance)
    line = next(ln for ln in text.splitlines() if ln.startswith("blind Completion"))
    assert line.replace("|", " ").split()[2] == "25.0"
    assert "blind" not in table1(tabletop_metrics(records, resamples=20))


def test_binary_rates_get_a_wilson_interval_over_trials_and_means_none() -> None:
    records = [rec("s1_L0_a", i, 1.0, 1.0, i < 3) for i in range(4)] + [
        rec("s1_L0_b", i, 0.5, 0.5, False) for i in range(4)
    ]
    rows = {(r.group, r.metric): r for r in tabletop_metrics(records, resamples=50)}
    from heedful.metrics.stats import wilson_interval

    complete = rows[("S1 / L0", "complete")]
    assert (complete.wilson_low, complete.wilson_high) == pytest.approx(wilson_interval(3, 8))
    assert rows[("S1 / L0", "intent")].wilson_low is None  # a mean of stage weights is no count
    uneven = tabletop_metrics(records[:-1], resamples=50)  # 4 and 3 trials: the macro value is no share of trials
    assert all(r.wilson_low is None for r in uneven if r.group == "S1 / L0")
