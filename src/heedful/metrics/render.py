"""Plain-text tables and JSON for metric rows and run comparisons (standard library only).

Proportions print as percentages with one decimal, differences as signed percentage points.
A missing value (a metric with no units, an interval that could not be computed) prints as `-`
and is `null` in JSON; NaN never reaches either.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from heedful.metrics.compare import MCNEMAR_PREFIX, ComparisonRow
from heedful.metrics.rows import STATUS_GROUP, MetricRow, collapsed

MISSING = "-"
_PLURALS = {"family": "families"}


class _Row(Protocol):
    @property
    def group(self) -> str: ...

    def as_dict(self) -> dict[str, Any]: ...


_R = TypeVar("_R", bound=_Row)


def render_metric_table(
    rows: Sequence[MetricRow],
    title: str | None = None,
    notes: Sequence[str] = (),
    chance_note: str = "",
    reference_label: str = "chance",
) -> str:
    """Render metric rows as a terminal table, one block per group in order of first appearance.

    Status rows (group `status`) become one compact line such as
    `status: ok 4000, parse_error 30, interface_error 6 (of 4036 records)`. A `chance` column appears when
    any row has a chance level; a collapsed bootstrap interval is marked `*` and explained under the table.

    Args:
        rows: Rows as returned by a suite's metrics.
        title: Optional first line.
        notes: Lines printed under the header line (what the suite's intervals count).
        chance_note: What the chance column is, printed under the header line when it appears.
        reference_label: The name of that column: "chance" only for a uniformly random answer (see
            heedful.metrics.reference).

    Returns:
        The table as text, ending without a newline.
    """
    metric_rows = [row for row in rows if row.group != STATUS_GROUP]
    methods = sorted({row.ci_method for row in metric_rows})
    shared_method = methods[0] if len(methods) == 1 else None
    with_chance = any(row.chance is not None for row in metric_rows)
    header = ["metric", "value", *([reference_label] if with_chance else []), "95% CI", "Wilson 95%", "k/n"]
    if shared_method is None:
        header.insert(header.index("95% CI") + 1, "method")
    cells = {id(row): _metric_cells(row, shared_method is None, with_chance) for row in metric_rows}
    widths = column_widths([header, *cells.values()])
    lines = [title] if title else []
    if shared_method is not None:
        lines.append(f"values in %; 95% CI: {shared_method} (percentile); Wilson: units taken as independent")
    lines.extend(notes)
    if with_chance and chance_note:
        lines.append(f"{reference_label}: {chance_note}")
    for group, block in _blocks(rows):
        if group == STATUS_GROUP:
            lines.append(status_line(block))
            continue
        lines.extend(["", group, format_cells(header, widths)])
        lines.extend(format_cells(cells[id(row)], widths) for row in block)
    if any(row.collapsed for row in metric_rows):
        lines += ["", COLLAPSED_NOTE]
    return "\n".join(lines).strip("\n")


COLLAPSED_NOTE = (
    "* collapsed interval: every bootstrap resample gave the same value (all units scored alike), which is\n"
    "  not certainty; read the Wilson interval beside it (heedful report --explain)"
)


def render_comparison_table(rows: Sequence[ComparisonRow], title: str | None = None) -> str:
    """Render a paired comparison: A, B, A - B with its interval, and a McNemar line per group.

    Args:
        rows: Rows of a suite's `compare` (heedful.metrics.engine.compare_rows).
        title: Optional first line.

    Returns:
        The table as text, ending without a newline.
    """
    header = ["metric", "A", "B", "A - B (pp)", "95% CI (pp)", "n"]
    diff_rows = [row for row in rows if not row.metric.startswith(MCNEMAR_PREFIX)]
    cells = {id(row): _comparison_cells(row) for row in diff_rows}
    widths = column_widths([header, *cells.values()])
    methods = sorted({row.ci_method for row in diff_rows})
    lines = [title] if title else []
    lines.append(f"A and B in %, differences in percentage points; 95% CI: {', '.join(methods) or MISSING}")
    for group, block in _blocks(rows):
        lines.extend(["", group, format_cells(header, widths)])
        for row in block:
            if row.metric.startswith(MCNEMAR_PREFIX):
                lines.append("  " + _mcnemar_line(row))
            else:
                lines.append(format_cells(cells[id(row)], widths))
    if any(collapsed(row.ci_low, row.ci_high) for row in diff_rows):
        lines += ["", COLLAPSED_DIFF_NOTE]
    return "\n".join(lines).strip("\n")


COLLAPSED_DIFF_NOTE = (
    "* collapsed interval: every paired resample gave the same difference (A and B agreed on every unit, or\n"
    "  differed alike); the McNemar line says how many units they disagree on"
)


def rows_to_json(rows: Sequence[MetricRow] | Sequence[ComparisonRow], extra: Mapping[str, Any] | None = None) -> str:
    """Serialize rows as a JSON list of their `as_dict()` (each with the `extra` fields, such as a run's flags);
    non-finite numbers become null."""
    payload = [_json_safe({**row.as_dict(), **(extra or {})}) for row in rows]
    return json.dumps(payload, indent=2, allow_nan=False)


def _metric_cells(row: MetricRow, with_method: bool, with_chance: bool) -> list[str]:
    interval = interval_text(row.ci_low, row.ci_high) + ("*" if row.collapsed else "")
    cells = [
        row.metric,
        percent(row.value),
        *([percent(row.chance)] if with_chance else []),
        interval,
        *([row.ci_method] if with_method else []),
        interval_text(row.wilson_low, row.wilson_high),
        count_text(row.k, row.n, row.unit),
    ]
    return cells


def _comparison_cells(row: ComparisonRow) -> list[str]:
    return [
        row.metric,
        percent(row.a),
        percent(row.b),
        points(row.diff),
        interval_text(row.ci_low, row.ci_high, signed=True) + ("*" if collapsed(row.ci_low, row.ci_high) else ""),
        count_text(None, row.n, row.unit),
    ]


def status_line(rows: Sequence[MetricRow]) -> str:
    parts = ", ".join(f"{row.metric} {row.k}" for row in rows)
    total = rows[0].n if rows else 0
    return f"status: {parts} (of {total} records)"


def _mcnemar_line(row: ComparisonRow) -> str:
    measure = row.metric.removeprefix(MCNEMAR_PREFIX)
    return (
        f"McNemar ({measure}): b={row.mcnemar_b} (A right, B wrong), c={row.mcnemar_c} (A wrong, B right), "
        f"n={row.n}, p={p_value_text(row.p_value)}"
    )


def _blocks(rows: Sequence[_R]) -> list[tuple[str, list[_R]]]:
    blocks: dict[str, list[_R]] = {}
    for row in rows:
        blocks.setdefault(row.group, []).append(row)
    return list(blocks.items())


def column_widths(table: Sequence[Sequence[str]]) -> list[int]:
    return [max(len(line[i]) for line in table) for i in range(len(table[0]))]


def format_cells(cells: Sequence[str], widths: Sequence[int]) -> str:
    # Metric names read left to right; numbers line up on the right.
    first = cells[0].ljust(widths[0])
    rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
    return "  " + "   ".join([first, *rest]).rstrip()


def percent(value: float | None) -> str:
    return MISSING if value is None or not math.isfinite(value) else f"{100 * value:.1f}%"


def points(value: float | None) -> str:
    return MISSING if value is None or not math.isfinite(value) else f"{100 * value:+.1f}"


def interval_text(low: float | None, high: float | None, *, signed: bool = False) -> str:
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return MISSING
    spec = "+.1f" if signed else ".1f"
    return f"[{100 * low:{spec}}, {100 * high:{spec}}]"


def count_text(k: int | None, n: int, unit: str) -> str:
    noun = unit if n == 1 else _PLURALS.get(unit, unit + "s")
    return f"{n} {noun}" if k is None else f"{k}/{n} {noun}"


def p_value_text(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return MISSING
    if p == 0.0:  # below the smallest float: the exact value underflowed
        return "<1e-300"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value
