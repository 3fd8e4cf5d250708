"""What a suite's paper tables and main figure show, declared as references to its report rows.

A layout names groups and metrics only: every number it shows is a `MetricRow` of the report (value, interval,
chance, n), looked up by (group, metric), never recomputed. `heedful report --format markdown|latex` renders the
tables (heedful.report.formats, heedful.report.latex) and `heedful plot` draws the figure (heedful.report.plot).
A line or a bar whose group the run does not hold is left out.
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
class PaperTable:
    """A table in a paper's layout: one line per group, label columns first, then one column per `Column`."""

    title: str
    label_columns: tuple[str, ...]
    columns: tuple[Column, ...]
    lines: tuple[tuple[tuple[str, ...], str], ...]
    """(labels, one per label column; the group whose rows fill the line)."""

    def present(self, rows: Sequence[MetricRow]) -> list[tuple[tuple[str, ...], dict[str, MetricRow]]]:
        """The lines whose group the rows hold, each with its rows by metric."""
        by_group: dict[str, dict[str, MetricRow]] = {}
        for row in rows:
            by_group.setdefault(row.group, {})[row.metric] = row
        wanted = {column.metric for column in self.columns}
        return [
            (labels, by_group[group])
            for labels, group in self.lines
            if group in by_group and wanted & set(by_group[group])
        ]


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
