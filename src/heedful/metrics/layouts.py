"""What a suite's paper tables and main figure show, declared as references to its report rows.

A layout names groups and metrics only: every number it shows is a `MetricRow` of the report (value, interval,
chance, n), looked up by (group, metric), never recomputed. `heedful report --format markdown|latex` renders the
tables (heedful.report.formats, heedful.report.latex) and `heedful plot` draws the figure (heedful.report.plot).
A line or a bar whose group the run does not hold is left out. A table is declared once: Markdown and LaTeX print it
one line per group with intervals, the terminal as its `pivot` (a grid of point values) or its `listing` (a headline
line by line) declares (heedful.metrics.tables).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from heedful.metrics.rows import MetricRow

Show = Literal["estimate", "value", "chance", "n"]


@dataclass(frozen=True)
class Column:
    """One column of a paper table: what it shows of the row of `metric` in each line's group."""

    label: str
    metric: str
    show: Show = "estimate"
    """"estimate": the value with its 95% interval; "value" alone; "chance": the row's chance level; "n": its units."""


@dataclass(frozen=True)
class MeanOf:
    """A line that is the unweighted mean of other groups' values (tabletop's mean over scenes, the paper's headline):
    a value without an interval, from the groups the run holds."""

    groups: tuple[str, ...]

    def row(self, metric: str, by_group: dict[str, dict[str, MetricRow]], prefix: str = "") -> MetricRow | None:
        """The mean of the values of `metric` in the (prefixed) groups present; None where none is."""
        found = [
            row
            for g in self.groups
            if (row := by_group.get(prefix + g, {}).get(metric)) is not None and row.value is not None
        ]
        if not found:
            return None
        value = sum(row.value for row in found if row.value is not None) / len(found)
        return MetricRow(
            metric, f"mean of {len(found)} groups", value, None, None, len(found), ci_method="none", unit="group"
        )


@dataclass(frozen=True)
class Pivot:
    """How the terminal shows a paper table: point values in %, one block of columns per value of the first label
    column (in line order), one column per line of the block (headed by its other labels), one line per shown column
    of the table."""

    title: str
    label_width: int = 7
    bands: tuple[int, ...] = ()
    """How many blocks each band of lines holds (to fit a terminal); empty: every block in one band."""
    reference: str = ""
    """A group prefix whose rows are a reference level (tabletop: "chance "): where the run has such rows, each
    line is repeated under the measured ones from the prefixed groups, labelled `reference_label` + its label."""
    reference_label: str = ""


@dataclass(frozen=True)
class Listing:
    """How the terminal shows a paper table line by line as a headline (household's SR and SPL): one label column,
    a line's later labels indented under its first; each estimate as its value in % and its 95% interval in two
    columns; the title, then the notes. Unlike a pivot, it prints when the rows fill no line (saying so). A comparison
    of two runs shows each estimate as A, B, A - B and its paired interval (heedful.metrics.tables)."""

    title: str
    """`{method}` stands for the interval methods of the table's rows."""
    notes: tuple[str, ...] = ()
    compare_title: str = ""
    """The title of `heedful compare`'s view (A, B, A - B and its paired interval per estimate); empty: none."""
    compare_notes: tuple[str, ...] = ()
    mcnemar: str = ""
    """The metric whose exact McNemar p the comparison's last column shows."""
    label: str = "group"
    empty: str = "(no scored episodes)"


@dataclass(frozen=True)
class PaperTable:
    """A table in a paper's layout: one line per group, label columns first, then one column per `Column`."""

    title: str
    label_columns: tuple[str, ...]
    columns: tuple[Column, ...]
    lines: tuple[tuple[tuple[str, ...], str | MeanOf], ...]
    """(labels, one per label column; the group whose rows fill the line, or the groups it averages)."""
    pivot: Pivot | None = None
    """The terminal's view of this table; None: its `listing`, else line by line (heedful.metrics.tables)."""
    listing: Listing | None = None
    """The terminal's view of a headline table printed line by line (where it declares no pivot)."""

    @property
    def metrics(self) -> set[str]:
        """The metrics whose rows the table shows."""
        return {column.metric for column in self.columns}

    def present(self, rows: Sequence[MetricRow]) -> list[tuple[tuple[str, ...], dict[str, MetricRow]]]:
        """The lines whose group the rows hold, each with its rows by metric."""
        by_group = rows_by_group(rows)
        wanted = self.metrics
        out = []
        for labels, source in self.lines:
            found = line_rows(source, by_group, wanted)
            if wanted & set(found):
                out.append((labels, found))
        return out


def rows_by_group(rows: Sequence[MetricRow]) -> dict[str, dict[str, MetricRow]]:
    by_group: dict[str, dict[str, MetricRow]] = {}
    for row in rows:
        by_group.setdefault(row.group, {})[row.metric] = row
    return by_group


def line_rows(
    source: str | MeanOf, by_group: dict[str, dict[str, MetricRow]], metrics: set[str], prefix: str = ""
) -> dict[str, MetricRow]:
    """The rows by metric of one line: its group's (with `prefix`), or the means a `MeanOf` line declares."""
    if isinstance(source, str):
        return by_group.get(prefix + source, {})
    means = {metric: source.row(metric, by_group, prefix) for metric in sorted(metrics)}
    return {metric: row for metric, row in means.items() if row is not None}


@dataclass(frozen=True)
class Panel:
    """One axes of a suite's figure: a bar per metric and group, with its 95% error bar.

    With several runs, a panel of several metrics is drawn once per metric, one bar per run in each group.
    """

    title: str
    metrics: tuple[tuple[str, str], ...]
    """(metric, label), in bar order."""
    groups: tuple[tuple[str, str], ...]
    """(group, tick label), in axis order."""


@dataclass(frozen=True)
class Scatter:
    """A panel drawn only for several runs: one point per run, metric `x` against metric `y` in `group`, with the
    95% interval of each as error bars."""

    title: str
    x: tuple[str, str]
    y: tuple[str, str]
    group: str = "all"


@dataclass(frozen=True)
class FigureLayout:
    """A suite's main figure: its bar panels in reading order, `columns` to a line, and the panels it adds for
    several runs."""

    panels: tuple[Panel, ...]
    columns: int
    several_runs: tuple[Scatter, ...] = ()
