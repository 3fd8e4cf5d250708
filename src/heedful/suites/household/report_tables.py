"""The head of the household report and of `heedful compare` for household runs: SR and SPL side by side.

One line per task type, with clear vs ambiguous S_obj / S_hum under it (all splits together). SPL comes
first: it is the paper's primary metric ("because it tests correct reasoning strategies", Section 5).
"""

from __future__ import annotations

from collections.abc import Sequence

from heedful.metrics.compare import MCNEMAR_PREFIX, ComparisonRow
from heedful.metrics.groups import group_name, group_parts
from heedful.metrics.render import column_widths, format_cells, interval_text, p_value_text, percent, points
from heedful.metrics.rows import MetricRow, collapsed

SUMMARY_GROUPS = (
    "all",
    "PnP",
    "S_obj",
    "S_obj / clear",
    "S_obj / ambiguous",
    "S_hum",
    "S_hum / clear",
    "S_hum / ambiguous",
)
PRIMARY = (
    "SPL is the paper's primary metric: success x L_oracle / max(L, L_oracle), path lengths in steps. SR: success rate."
)


def summary_table(rows: Sequence[MetricRow]) -> str:
    """SPL and SR with their 95% intervals per task type and clarity, from a household report's rows."""
    by_key = {(row.group, row.metric): row for row in rows}
    header = ["group", "n", "SPL", "95% CI", "SR", "95% CI", "SR words-only"]
    table = []
    for group in SUMMARY_GROUPS:
        spl, success = by_key.get((group, "spl")), by_key.get((group, "success"))
        if spl is None or success is None:
            continue
        table.append(
            [
                _label(group),
                str(success.n),
                percent(spl.value),
                _ci(spl),
                percent(success.value),
                _ci(success),
                percent(success.chance),
            ]
        )
    title = f"SR and SPL side by side, in % (95% CI: {_method(rows)}).\n{PRIMARY}\n{CHANCE}"
    return _render(title, header, table)


CHANCE = (
    "SR words-only: reading only the words, one uniform guess among the rooms they fit, never revised, all else\n"
    "perfect (100% where the words fit one room): what ignoring the human's actions can count on without searching."
)


def _ci(row: MetricRow) -> str:
    return interval_text(row.ci_low, row.ci_high) + ("*" if row.collapsed else "")


def comparison_summary(rows: Sequence[ComparisonRow]) -> str:
    """SPL and SR of A and B, A - B with its paired 95% interval and McNemar's p on success, per task type."""
    by_key = {(row.group, row.metric): row for row in rows}
    header = ["group", "n", "SPL A", "SPL B", "A - B", "95% CI", "SR A", "SR B", "A - B", "95% CI", "McNemar p"]
    table = []
    for group in SUMMARY_GROUPS:
        spl, success = by_key.get((group, "spl")), by_key.get((group, "success"))
        mcnemar = by_key.get((group, f"{MCNEMAR_PREFIX}success"))
        if spl is None or success is None:
            continue
        cells = [_label(group), str(success.n)]
        for row in (spl, success):
            cells += [percent(row.a), percent(row.b), points(row.diff)]
            cells.append(
                interval_text(row.ci_low, row.ci_high, signed=True)
                + ("*" if collapsed(row.ci_low, row.ci_high) else "")
            )
        cells.append(p_value_text(mcnemar.p_value) if mcnemar is not None else "-")
        table.append(cells)
    methods = ", ".join(sorted({row.ci_method for row in rows if not row.metric.startswith(MCNEMAR_PREFIX)}))
    title = (
        f"SR and SPL side by side, in %; A - B in percentage points with its paired 95% CI ({methods or '-'}); "
        f"McNemar: exact, on success.\n{PRIMARY}"
    )
    return _render(title, header, table)


def _label(group: str) -> str:
    """`S_obj / clear` prints as an indented `clear` under its task type."""
    parts = group_parts(group)
    return "  " + group_name(*parts[1:]) if len(parts) > 1 else group


def _method(rows: Sequence[MetricRow]) -> str:
    methods = sorted({row.ci_method for row in rows if row.metric in ("success", "spl") and row.ci_method})
    return ", ".join(methods) or "-"


def _render(title: str, header: list[str], table: list[list[str]]) -> str:
    if not table:
        return f"{title}\n  (no scored episodes)"
    widths = column_widths([header, *table])
    return "\n".join([title, format_cells(header, widths), *(format_cells(cells, widths) for cells in table)])
