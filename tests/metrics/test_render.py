"""Terminal tables and JSON for metric rows and comparisons."""

from __future__ import annotations

import json
import math

from heedful.metrics.compare import MCNEMAR_METRIC, ComparisonRow
from heedful.metrics.render import render_comparison_table, render_metric_table, rows_to_json
from heedful.metrics.rows import MetricRow


def status_row(name: str, k: int, n: int = 4036) -> MetricRow:
    return MetricRow(name, "status", k / n, None, None, n, k=k, unit="record", ci_method="none")


ROWS = [
    status_row("ok", 4000),
    status_row("parse_error", 30),
    status_row("interface_error", 6),
    MetricRow(
        "accuracy",
        "all",
        0.93215,
        0.921,
        0.9434,
        4030,
        k=3757,
        wilson_low=0.924,
        wilson_high=0.9399,
        ci_method="family bootstrap",
    ),
    MetricRow("pair_success", "all", 0.5, 0.45, 0.55, 4000, k=2000, unit="pair", ci_method="family bootstrap"),
    MetricRow("family_success", "category:set", None, None, None, 0, k=0, unit="family", ci_method="family bootstrap"),
    MetricRow("family_success", "all", 0.75, 0.7, 0.8, 1000, k=750, unit="family", ci_method="family bootstrap"),
]


def test_metric_table_layout() -> None:
    text = render_metric_table(ROWS, title="decisions-v1: oracle")
    lines = text.splitlines()
    assert lines[0] == "decisions-v1: oracle"
    assert "status: ok 4000, parse_error 30, interface_error 6 (of 4036 records)" in lines
    assert "family bootstrap" in lines[1]
    # one block per group, in order of first appearance; a later row of `all` joins its block
    assert lines.index("all") < lines.index("category:set")
    block_all = lines[lines.index("all") : lines.index("category:set")]
    assert any(line.lstrip().startswith("family_success") for line in block_all)
    accuracy = next(line for line in lines if line.lstrip().startswith("accuracy"))
    assert accuracy.split() == [
        "accuracy",
        "93.2%",
        "[92.1,",
        "94.3]",
        "[92.4,",
        "94.0]",
        "3757/4030",
        "instances",
    ]
    pairs = next(line for line in lines if line.lstrip().startswith("pair_success"))
    assert pairs.split()[1:4] == ["50.0%", "[45.0,", "55.0]"]


def test_metric_table_marks_missing_values_and_pluralizes() -> None:
    lines = render_metric_table(ROWS).splitlines()
    block = lines[lines.index("category:set") :]
    empty = next(line for line in block if line.lstrip().startswith("family_success"))
    assert empty.split() == ["family_success", "-", "-", "-", "0/0", "families"]
    pairs = next(line for line in lines if line.lstrip().startswith("pair_success"))
    assert pairs.split()[-3:] == ["-", "2000/4000", "pairs"]  # no Wilson interval given


def test_metric_table_columns_line_up() -> None:
    lines = render_metric_table(ROWS).splitlines()
    table = [line for line in lines if line.startswith("  ")]
    ends = {len(line) for line in table}
    assert len(ends) == 1


def test_mixed_ci_methods_get_a_method_column() -> None:
    rows = [*ROWS, MetricRow("accuracy", "split:test", 0.5, 0.4, 0.6, 10, k=5, ci_method="anchor bootstrap")]
    text = render_metric_table(rows)
    assert "method" in text
    assert any("anchor bootstrap" in line and "50.0%" in line for line in text.splitlines())


def comparison_rows() -> list[ComparisonRow]:
    return [
        ComparisonRow("accuracy", "all", 0.9, 0.85, 0.05, 0.031, 0.069, 4000),
        ComparisonRow("over_invariance", "all", 0.1, None, None, None, None, 0, unit="pair"),
        ComparisonRow(
            MCNEMAR_METRIC,
            "all",
            None,
            None,
            None,
            None,
            None,
            4000,
            ci_method="exact McNemar",
            mcnemar_b=250,
            mcnemar_c=50,
            p_value=3.2e-31,
        ),
    ]


def test_comparison_table_layout() -> None:
    lines = render_comparison_table(comparison_rows(), title="A vs B").splitlines()
    assert lines[0] == "A vs B"
    accuracy = next(line for line in lines if line.lstrip().startswith("accuracy"))
    assert accuracy.split() == ["accuracy", "90.0%", "85.0%", "+5.0", "[+3.1,", "+6.9]", "4000", "instances"]
    missing = next(line for line in lines if line.lstrip().startswith("over_invariance"))
    assert missing.split() == ["over_invariance", "10.0%", "-", "-", "-", "0", "pairs"]
    assert "  McNemar (accuracy): b=250 (A right, B wrong), c=50 (A wrong, B right), n=4000, p=3.2e-31" in lines


def test_comparison_p_value_formatting() -> None:
    row = ComparisonRow(MCNEMAR_METRIC, "all", None, None, None, None, None, 10, mcnemar_b=0, mcnemar_c=0, p_value=1.0)
    assert "p=1.0000" in render_comparison_table([row])
    underflow = ComparisonRow(
        MCNEMAR_METRIC, "all", None, None, None, None, None, 4000, mcnemar_b=3683, mcnemar_c=0, p_value=0.0
    )
    assert "p=<1e-300" in render_comparison_table([underflow])


def test_json_round_trips_and_never_holds_nan() -> None:
    rows = [*ROWS, MetricRow("accuracy", "odd", math.nan, math.inf, -math.inf, 3, k=1, ci_method="family bootstrap")]
    text = rows_to_json(rows)
    assert "NaN" not in text and "Infinity" not in text
    loaded = json.loads(text)
    assert loaded[:-1] == [row.as_dict() for row in ROWS]
    assert loaded[-1]["value"] is None and loaded[-1]["ci_low"] is None and loaded[-1]["ci_high"] is None


def test_json_of_comparison_rows() -> None:
    loaded = json.loads(rows_to_json(comparison_rows()))
    assert [row["metric"] for row in loaded] == ["accuracy", "over_invariance", MCNEMAR_METRIC]
    assert loaded[-1]["mcnemar_b"] == 250 and loaded[-1]["p_value"] == 3.2e-31


def test_a_collapsed_interval_is_marked_and_explained_and_chance_gets_a_column() -> None:
    collapsed = MetricRow(
        "accuracy",
        "all",
        1.0,
        1.0,
        1.0,
        8,
        k=8,
        wilson_low=0.676,
        wilson_high=1.0,
        ci_method="family bootstrap",
        chance=0.037,
    )
    text = render_metric_table([collapsed], chance_note="a uniformly random valid answer")
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("accuracy"))
    assert line.split() == ["accuracy", "100.0%", "3.7%", "[100.0,", "100.0]*", "[67.6,", "100.0]", "8/8", "instances"]
    assert "* collapsed interval" in text and "chance: a uniformly random valid answer" in text
    plain = render_metric_table(ROWS)
    assert "collapsed" not in plain and "chance" not in plain


def test_a_collapsed_paired_interval_is_marked() -> None:
    rows = [
        ComparisonRow("accuracy", "all", 0.5, 0.5, 0.0, 0.0, 0.0, 8, ci_method="paired family bootstrap"),
        ComparisonRow(
            "pair_success", "all", 0.5, 0.25, 0.25, 0.0, 0.5, 8, unit="pair", ci_method="paired family bootstrap"
        ),
    ]
    text = render_comparison_table(rows)
    assert "[+0.0, +0.0]*" in text and "[+0.0, +50.0]*" not in text and "* collapsed interval" in text
