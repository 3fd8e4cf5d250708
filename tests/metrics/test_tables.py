"""A table's terminal listing (heedful.metrics.tables): the headline view declared with the table itself."""

from __future__ import annotations

import pytest

from heedful.errors import ConfigError
from heedful.metrics.compare import ComparisonRow
from heedful.metrics.layouts import Column, Listing, PaperTable
from heedful.metrics.rows import MetricRow
from heedful.metrics.tables import listing_comparison_text, table_text

TABLE = PaperTable(
    title="toy",
    label_columns=("kind", "clarity"),
    columns=(Column("n", "hit", "n"), Column("Hit", "hit"), Column("Hit blind", "hit", "chance")),
    lines=((("all", ""), "all"), (("A", ""), "A"), (("A", "clear"), "A / clear")),
    listing=Listing(
        "Hits in % (95% CI: {method}).", notes=("a note",), compare_title="A vs B ({method})", mcnemar="hit"
    ),
)


def _row(group: str, value: float, chance: float | None = None) -> MetricRow:
    return MetricRow("hit", group, value, value - 0.1, value + 0.1, 10, ci_method="episode bootstrap", chance=chance)


def test_listing_indents_later_labels_and_names_the_interval_method() -> None:
    text = table_text(TABLE, [_row("all", 0.5, 0.25), _row("A / clear", 0.75)])
    lines = text.splitlines()
    assert lines[:2] == ["Hits in % (95% CI: episode bootstrap).", "a note"]
    assert lines[2].split() == ["group", "n", "Hit", "95%", "CI", "Hit", "blind"]
    assert lines[3].split() == ["all", "10", "50.0%", "[40.0,", "60.0]", "25.0%"]
    assert lines[4].split() == ["clear", "10", "75.0%", "[65.0,", "85.0]", "-"]  # no line for the absent `A`
    assert lines[4].startswith("    clear")


def test_listing_says_when_no_line_is_filled() -> None:
    assert table_text(TABLE, []) == "Hits in % (95% CI: -).\na note\n  (no scored episodes)"


def test_comparison_listing_pairs_a_and_b_and_marks_a_missing_mcnemar() -> None:
    row = ComparisonRow("hit", "A", 0.5, 0.25, 0.25, 0.1, 0.4, 8, ci_method="paired episode bootstrap")
    test = ComparisonRow("mcnemar_hit", "all", None, None, None, None, None, 8, p_value=0.125)
    lines = listing_comparison_text(TABLE, [row, test]).splitlines()
    assert lines[0] == "A vs B (paired episode bootstrap)"
    assert lines[1].split()[:6] == ["group", "n", "Hit", "A", "Hit", "B"] and lines[1].endswith("McNemar p")
    assert lines[2].split() == ["A", "8", "50.0%", "25.0%", "+25.0", "[+10.0,", "+40.0]", "-"]


def test_comparison_listing_needs_a_declared_comparison() -> None:
    with pytest.raises(ConfigError, match="no comparison listing"):
        listing_comparison_text(PaperTable("plain", ("g",), TABLE.columns, TABLE.lines), [])
