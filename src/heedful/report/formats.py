"""`heedful report --format markdown|csv`: the report's rows as a Markdown table (after the suite's paper tables)
and as CSV, from the same `MetricRow`s as the terminal table and JSON (standard library only).

CSV has one line per row of the JSON report, status and usage rows included, with plain numbers (proportions as
fractions, as in JSON, an empty cell for null) and a `collapsed` column. Markdown and LaTeX (heedful.report.latex)
print proportions in % with one decimal; a collapsed bootstrap interval is marked `*`, as in the terminal table.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from heedful.errors import ConfigError
from heedful.metrics.layouts import PaperTable
from heedful.metrics.render import COLLAPSED_NOTE, status_line
from heedful.metrics.rows import STATUS_GROUP, MetricRow
from heedful.metrics.tables import table_lines
from heedful.metrics.usage import USAGE_GROUP, format_usage
from heedful.report import REPORT_FORMATS
from heedful.report.cells import full_cells, full_columns, interval_note, metric_rows

if TYPE_CHECKING:
    from heedful.suites.base import Suite

CSV_COLUMNS = (
    "metric",
    "group",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "k",
    "wilson_low",
    "wilson_high",
    "unit",
    "ci_method",
    "chance",
    "collapsed",
)
CHANCE_NOTE = "the exact score of an agent that ignores what the suite tests, computed, not sampled"


def check_format(fmt: str) -> None:
    """Raises ConfigError for a format `heedful report` does not write, naming the ones it does."""
    if fmt not in REPORT_FORMATS:
        raise ConfigError(f"unknown report format {fmt!r}; choose one of {', '.join(REPORT_FORMATS)}")


def render(
    fmt: str,
    suite: Suite,
    rows: Sequence[MetricRow],
    *,
    title: str,
    caption: str,
    agent: str,
    flags: Sequence[str] = (),
    full: bool = True,
    run: str = "RUN",
) -> str:
    """The report of a run of `suite` in format `fmt` (heedful.report.REPORT_FORMATS).

    Args:
        fmt: The format; "table" is the suite's own terminal layout with a usage line for model runs.
        suite: The run's suite (its `render_report` and `paper_tables`).
        rows: The report's rows.
        title: The report's title line (table, markdown).
        caption: Suite, agent and records, for LaTeX captions.
        agent: The agent's name, for LaTeX labels.
        flags: The run's flags (heedful.report.flags): in JSON every row carries them as `agent_flags`; the other
            formats show them in the title or caption.
        full: "table" only: every group's block in the suite's layout; False: the short report that leads with
            the headline table (heedful.report.summary).
        run: How to name the run in the short report's pointer to `--full`.
    """
    from heedful.metrics.render import rows_to_json
    from heedful.report.latex import label_for, to_latex

    check_format(fmt)
    if fmt == "json":
        return rows_to_json(rows, extra={"agent_flags": list(flags)} if flags else None)
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "markdown":
        return to_markdown(rows, title, suite.paper_tables)
    if fmt == "latex":
        return to_latex(rows, caption, suite.paper_tables, label_for(suite.name, agent))
    plain = [row for row in rows if row.group != USAGE_GROUP]
    if full:
        text = str(suite.render_report(plain, title))
    else:
        from heedful.report.summary import summary_report

        text = summary_report(suite, plain, title, run)
    usage = format_usage(rows)
    return f"{text}\n{usage}" if usage else text


def to_csv(rows: Sequence[MetricRow]) -> str:
    """Every row of the report, one CSV line each, in the JSON report's order, with a header line."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        data = {**row.as_dict(), "collapsed": row.collapsed}
        writer.writerow([_csv_value(data[name]) for name in CSV_COLUMNS])
    return out.getvalue().rstrip("\n")


def _csv_value(value: object) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def to_markdown(rows: Sequence[MetricRow], title: str, tables: Sequence[PaperTable]) -> str:
    """The title, what the intervals are, the status line, each paper table the rows fill, then every row."""
    measured = metric_rows(rows)
    lines = [f"**{_md(title, cell=False)}**", "", _md(interval_note(measured), cell=False)]
    if any(row.chance is not None for row in measured):
        lines[-1] += f" chance: {CHANCE_NOTE}."
    status = [row for row in rows if row.group == STATUS_GROUP]
    if status:
        lines += ["", _md(status_line(status), cell=False)]
    for table in tables:
        present = table.present(measured)
        if not present:
            continue
        lines += ["", f"*{_md(table.title, cell=False)}*", ""]
        header, found = table_lines(table, measured)
        body = [[*labels, *(f"{value} {ci}".rstrip() for value, ci in parts)] for labels, parts in found]
        lines += _md_table(header, body, len(table.label_columns))
    if measured:
        header = full_columns(measured)
        lines += ["", *_md_table(header, [full_cells(row, header) for row in measured], 2)]
    if any(row.collapsed for row in measured):
        lines += ["", _md(" ".join(COLLAPSED_NOTE.split()), cell=False)]
    usage = format_usage(rows)
    if usage:
        lines += ["", _md(usage, cell=False)]
    return "\n".join(lines)


def _md_table(header: Sequence[str], body: Sequence[Sequence[str]], left: int) -> list[str]:
    """A pipe table: the first `left` columns aligned left, the others right."""
    align = ["---" if i < left else "--:" for i in range(len(header))]
    return ["| " + " | ".join(_md(cell) for cell in line) + " |" for line in (header, align, *body)]


def _md(text: str, *, cell: bool = True) -> str:
    """Escape what Markdown would read as markup (`*`, `<`, backquotes; in a table cell also `|`)."""
    if set(text) <= {"-", ":"}:  # an alignment cell
        return text
    for char in ("\\", "|", "*", "<", ">", "`") if cell else ("\\", "*", "<", ">", "`"):
        text = text.replace(char, "\\" + char)
    return text
