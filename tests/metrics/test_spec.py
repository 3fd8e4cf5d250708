"""Metric specs: a metric added as one spec entry reaches the report, its intervals and the comparison; a report
that emits an undeclared metric is rejected; every suite declares what it reports."""

from __future__ import annotations

import pytest
from test_decision_metrics import family  # the hand-built records of the suites' own metric tests
from test_household_compare import record as household_record
from test_tabletop_metrics import rec as tabletop_record

from heedful.errors import RunError
from heedful.metrics.rows import MetricRow
from heedful.metrics.spec import Metric, MetricSpec, RecordMetric
from heedful.records import Record, Status
from heedful.suites.decisions import metrics as decisions
from heedful.suites.decisions.metrics import compare_decision_runs
from heedful.suites.household import metrics as household
from heedful.suites.household.metrics import compare_household_runs
from heedful.suites.registry import SUITES, get_suite
from heedful.suites.tabletop import metrics as tabletop


def _rows(rows: list[MetricRow], metric: str, group: str = "all") -> list[MetricRow]:
    return [row for row in rows if row.metric == metric and row.group == group]


def test_a_tabletop_metric_added_to_the_spec_is_reported_with_intervals_and_compared() -> None:
    # the new metric: share of trials that executed at least half of the task (one entry, nothing else edited)
    half = RecordMetric(
        name="execution_half",
        description="share of trials with execution >= 0.5",
        unit="task",
        value=lambda r: float(r.scores["execution"] >= 0.5),
    )
    spec = tabletop.SPEC + MetricSpec((half,))
    a = [tabletop_record(f"s1_L0_t{t}", i, 1.0, 0.6 if t % 2 else 0.2, False) for t in range(6) for i in range(2)]
    b = [tabletop_record(f"s1_L0_t{t}", i, 1.0, 0.2, False) for t in range(6) for i in range(2)]
    (row,) = _rows(tabletop.tabletop_metrics(a, resamples=300, spec=spec), "execution_half")
    assert row.value == pytest.approx(0.5) and row.n == 6 and row.unit == "task"
    assert row.ci_low is not None and row.ci_high is not None and row.ci_low < 0.5 < row.ci_high
    (diff,) = [r for r in compare_tabletop(a, b, spec) if r.metric == "execution_half" and r.group == "all"]
    assert diff.diff == pytest.approx(0.5)
    # and the default report is unchanged by the spec that was not passed
    assert not _rows(tabletop.tabletop_metrics(a, resamples=50), "execution_half")


def compare_tabletop(a: list[Record], b: list[Record], spec: MetricSpec) -> list:  # type: ignore[type-arg]
    return tabletop.compare_tabletop_runs(a, b, resamples=300, spec=spec)


def test_a_decisions_metric_added_to_the_spec_is_counted_per_family_and_compared() -> None:
    base_only = decisions.FamilyMetric(
        name="base_accuracy",
        description="accuracy on the base instruction of each family",
        unit="instance",
        count=lambda f: (
            sum(r.correct is True for r in f.scored if r.keys["role"] == "base"),
            sum(1 for r in f.scored if r.keys["role"] == "base"),
        ),
    )
    spec = decisions.SPEC + MetricSpec((base_only,))
    # four families: base right in three of them; run B gets every base wrong
    a = [r for i in range(4) for r in family(f"f{i}", {"base": "A" if i < 3 else "B"})]
    b = [r for i in range(4) for r in family(f"f{i}", {"base": "B"})]
    (row,) = _rows(decisions.decision_metrics(a, resamples=300, spec=spec), "base_accuracy")
    assert (row.k, row.n, row.value) == (3, 4, 0.75) and row.wilson_low is not None
    (diff,) = [r for r in compare_decision_runs(a, b, resamples=300, spec=spec) if r.metric == "base_accuracy"][:1]
    assert diff.diff == pytest.approx(0.75)


def test_a_metric_left_out_of_compare_is_still_reported() -> None:
    spl_only = MetricSpec((household.SPEC["spl"], Metric("success", "reported, not compared", "episode", False)))
    a = [household_record(i, success=True, spl=0.5) for i in range(6)]
    b = [household_record(i, success=False, spl=0.0) for i in range(6)]
    compared = {row.metric for row in compare_household_runs(a, b, resamples=100, spec=spl_only)}
    assert compared == {"spl"}  # no success difference and no McNemar row on success


def test_a_report_with_an_undeclared_metric_is_rejected() -> None:
    row = MetricRow("made_up", "all", 0.5, None, None, 2, ci_method="none")
    with pytest.raises(RunError, match=r"\['made_up'\].*metric_spec"):
        tabletop.SPEC.check([row], "tabletop")
    status = MetricRow("ok", "status", 1.0, None, None, 2, ci_method="none")
    tabletop.SPEC.check([status], "tabletop")  # status and usage rows are common to every suite


@pytest.mark.parametrize("name", SUITES.names())
def test_every_registered_suite_declares_its_metrics(name: str) -> None:
    spec = get_suite(name).metric_spec
    assert len(spec) and len(set(spec.names)) == len(spec)
    assert all(metric.description and metric.unit for metric in spec)


def test_household_scores_a_parse_error_as_a_failure_in_report_and_comparison_alike() -> None:
    ok = household_record(0, success=True, spl=1.0)
    parse_error = household_record(1, success=True, spl=1.0).model_copy(update={"status": Status.PARSE_ERROR})
    assert [m.value(parse_error) for m in household.SPEC.of_kind(RecordMetric)] == [0.0, 0.0]
    assert [m.value(ok) for m in household.SPEC.of_kind(RecordMetric)] == [1.0, 1.0]
