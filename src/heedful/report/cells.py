"""The cells of a report's tables as Markdown (heedful.report.formats), LaTeX (heedful.report.latex) and the summary
(heedful.report.summary) print them: proportions in % with one decimal, a collapsed bootstrap interval marked `*`."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.metrics.render import MISSING, interval_text
from heedful.metrics.rows import STATUS_GROUP, MetricRow
from heedful.metrics.tables import counts, number
from heedful.metrics.usage import USAGE_GROUP


def metric_rows(rows: Sequence[MetricRow]) -> list[MetricRow]:
    """The rows with an estimate: all but the status and usage rows (counts, printed as one line each)."""
    return [row for row in rows if row.group not in (STATUS_GROUP, USAGE_GROUP)]


def ci_methods(rows: Sequence[MetricRow]) -> list[str]:
    """The interval methods of rows that have a bootstrap interval, sorted."""
    return sorted({row.ci_method for row in rows if row.ci_low is not None and row.ci_high is not None})


def interval(row: MetricRow) -> str:
    """The bootstrap interval in %, with `*` where it collapsed to one point."""
    return interval_text(row.ci_low, row.ci_high) + ("*" if row.collapsed else "")


def full_columns(rows: Sequence[MetricRow]) -> list[str]:
    """Headers of the table of every row: a chance column where any row has one, a method column where the rows'
    interval methods differ."""
    with_chance = any(row.chance is not None for row in rows)
    header = ["group", "metric", "value", *(["chance"] if with_chance else []), "95% CI"]
    if len({row.ci_method for row in rows}) > 1:
        header.append("method")
    return [*header, "Wilson 95%", "k/n"]


def full_cells(row: MetricRow, header: Sequence[str]) -> list[str]:
    """The cells of one row under `header` (from `full_columns`)."""
    cells = {
        "group": row.group,
        "metric": row.metric,
        "value": number(row.value),
        "chance": number(row.chance),
        "95% CI": interval(row),
        "method": row.ci_method,
        "Wilson 95%": interval_text(row.wilson_low, row.wilson_high),
        "k/n": counts(row),
    }
    return [cells[name] for name in header]


def interval_note(rows: Sequence[MetricRow]) -> str:
    """What the intervals are, in one sentence."""
    methods = ci_methods(rows)
    return (
        f"Values in %; 95% CI: {', '.join(methods) or MISSING} (percentile); "
        "Wilson 95%: the units taken as independent."
    )
