"""`heedful report RUN`: a report that leads with the answer (every block: `heedful report RUN --full`).

In order: the title and what the intervals are; the status line; the suite's headline table, its first paper
table (tabletop: the paper's Table 1 layout, scenes x levels; decisions: the category table; household: SPL and SR
per task type and clarity); the overall row with its reference level, interval, Wilson interval and k/n; then one
line per group of a single grouping (a level, a category, a split), values only; then where the rest is. The blocks
of the groups that cross two groupings (`S1 / L0`) and every interval of every group print only under `--full`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from heedful.metrics.render import COLLAPSED_NOTE, MISSING, render_metric_table
from heedful.metrics.rows import STATUS_GROUP, MetricRow
from heedful.metrics.scoring import reference_of
from heedful.metrics.tables import aligned, table_text

if TYPE_CHECKING:
    from heedful.suites.base import Suite

OVERALL = "all"
MAX_COLUMNS = 6
"""Metrics in the per-group lines: the first ones of the overall block (a terminal's width)."""


def summary_report(suite: Suite, rows: Sequence[MetricRow], title: str, run: str) -> str:
    """The short report of a run (see the module docstring); `rows` carry no usage rows."""
    level = reference_of(suite)
    prefixes = _reference_prefixes(suite)
    measured = [row for row in rows if row.group != STATUS_GROUP and not row.group.startswith(prefixes)]
    status = [row for row in rows if row.group == STATUS_GROUP]
    overall = [row for row in measured if row.group == OVERALL]
    top = render_metric_table(status + overall, title=title, chance_note=level.note, reference_label=level.label)
    top = top.replace(f"\n\n{COLLAPSED_NOTE}", "")  # said once, at the end
    head, _, overall_block = top.partition(f"\n\n{OVERALL}\n")
    parts = [head, _headline(suite, rows), f"{OVERALL}\n{overall_block}" if overall_block else ""]
    parts.append(_group_lines(measured, _headline_metrics(suite, [row.metric for row in overall])))
    if any(row.collapsed for row in measured):
        parts.append(COLLAPSED_NOTE)
    parts.append(
        f"every group with its intervals and k/n: heedful report {run} --full; what each column means: --explain"
    )
    return "\n\n".join(part.strip("\n") for part in parts if part.strip())


def _headline_metrics(suite: Suite, overall: Sequence[str]) -> list[str]:
    """The metrics of the suite's first paper table (its headline measures), else the overall block's first."""
    for table in tuple(getattr(suite, "paper_tables", ())):
        named = [column.metric for column in table.columns if column.metric in overall]
        if named:
            return list(dict.fromkeys(named))[:MAX_COLUMNS]
    return list(overall)[:MAX_COLUMNS]


def _reference_prefixes(suite: Suite) -> tuple[str, ...]:
    """The group prefixes of reference-level rows, as the suite's paper tables declare them (tabletop's `chance `):
    those rows are shown beside the measured ones in the headline, not as groups of their own."""
    tables = tuple(getattr(suite, "paper_tables", ()))
    return tuple(table.pivot.reference for table in tables if table.pivot is not None and table.pivot.reference)


def _headline(suite: Suite, rows: Sequence[MetricRow]) -> str:
    """The suite's first paper table the rows fill (tabletop: Table 1's pivot), or that declares a listing
    (household's SR and SPL, which says when no line is filled)."""
    for table in tuple(getattr(suite, "paper_tables", ())):
        if table.present(rows) or table.listing is not None:
            return table_text(table, rows)
    return ""


def _group_lines(measured: Sequence[MetricRow], metrics: Sequence[str]) -> str:
    """One line per group of a single grouping (not `all`, not `A / B`), the overall block's first metrics."""
    by_group: dict[str, dict[str, MetricRow]] = {}
    for row in measured:
        if row.group != OVERALL and " / " not in row.group:
            by_group.setdefault(row.group, {})[row.metric] = row
    if not by_group or not metrics:
        return ""
    body = [[group, *(_value(found.get(metric)) for metric in metrics)] for group, found in by_group.items()]
    return f"per group (values in %)\n{aligned([['group', *metrics], *body], 1)}"


def _value(row: MetricRow | None) -> str:
    if row is None or row.value is None or not math.isfinite(row.value):
        return MISSING
    return f"{100 * row.value:.1f}"
