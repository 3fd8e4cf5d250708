r"""`heedful report --format latex`: the suite's paper tables and the table of every row, as booktabs tables.

Each table is a `table` float (`\input` it; the preamble needs `\usepackage{booktabs}`), its caption naming the
suite, the agent, the records and the interval method. Values are in % with their 95% intervals; a collapsed
bootstrap interval is marked `*`. Text from the run (agent names, groups, metric names) is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from heedful.metrics.layouts import PaperTable
from heedful.metrics.render import status_line
from heedful.metrics.rows import STATUS_GROUP, MetricRow
from heedful.metrics.tables import table_lines
from heedful.report.cells import (
    ci_methods,
    full_cells,
    full_columns,
    interval_note,
    metric_rows,
)

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': "''",
}
COLLAPSED = "* a collapsed bootstrap interval (every resample scored alike), which is not certainty."
MISSING = "--"


def escape(text: str) -> str:
    """`text` as LaTeX prints it literally (`--` stays two hyphens, not a dash)."""
    out = "".join(_SPECIAL.get(char, char) for char in text)
    return out.replace("--", "-{}-").replace("--", "-{}-")


def to_latex(rows: Sequence[MetricRow], caption: str, tables: Sequence[PaperTable], label: str) -> str:
    """Each paper table the rows fill, then the table of every row (status in the caption).

    Args:
        rows: The report's rows.
        caption: Suite, agent and records, as plain text (escaped here).
        tables: The suite's paper tables.
        label: The `\\label` stem; tables get `-1`, `-2`, ... and the table of every row `-rows`.
    """
    measured = metric_rows(rows)
    status = [row for row in rows if row.group == STATUS_GROUP]
    about = caption.rstrip(".") + (f"; {status_line(status)}" if status else "") + "."
    out = [f"% heedful report --format latex: {_comment(caption)}"]
    for i, table in enumerate(tables, start=1):
        present = table.present(measured)
        if not present:
            continue
        used = [row for _, by_metric in present for row in by_metric.values()]
        header, found = table_lines(table, measured)
        body = [
            [*(escape(label) for label in labels), *(_estimate(value, ci) for value, ci in parts)]
            for labels, parts in found
        ]
        text = f"{table.title}. {about} {_method_note(used)}"
        out += _float(text, f"{label}-{i}", header, _blank_repeats(body, len(table.label_columns)), table, used)
    if measured:
        header = full_columns(measured)
        body = [[MISSING if cell == "-" else escape(cell) for cell in full_cells(row, header)] for row in measured]
        text = f"Every metric of the report. {about} {interval_note(measured)}"
        out += _float(text, f"{label}-rows", header, _blank_repeats(body, 1), None, measured)
    return "\n".join(out)


def _float(
    caption: str,
    label: str,
    header: Sequence[str],
    body: Sequence[Sequence[str]],
    table: PaperTable | None,
    rows: Sequence[MetricRow],
) -> list[str]:
    labels = len(table.label_columns) if table is not None else 2
    spec = "l" * labels + "r" * (len(header) - labels)
    if any(row.collapsed for row in rows):
        caption += " " + COLLAPSED
    lines = [
        "",
        r"\begin{table}[htbp]",
        r"  \centering",
        r"  \small",
        f"  \\caption{{{escape(caption)}}}",
        f"  \\label{{{label}}}",
        f"  \\begin{{tabular}}{{{spec}}}",
        r"    \toprule",
        "    " + " & ".join(escape(cell) for cell in header) + r" \\",
        r"    \midrule",
    ]
    for i, line in enumerate(body):
        if table is None and line[0] and i:  # a new group of the table of every row
            lines.append(r"    \midrule")
        first = "{}" if line[0].startswith("[") else ""  # `\\` would read a leading [ as its optional argument
        lines.append("    " + first + " & ".join(line) + r" \\")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"\end{table}"]
    return lines


def _estimate(value: str, ci: str) -> str:
    value = MISSING if value == "-" else value
    return f"{value} {{\\scriptsize {escape(ci)}}}" if ci else value


def _blank_repeats(body: Sequence[Sequence[str]], labels: int) -> list[list[str]]:
    """Print a label only where it changes (with every label before it), as papers do."""
    out: list[list[str]] = []
    previous: Sequence[str] = ()
    for line in body:
        cells = list(line)
        for i in range(labels):
            if previous and all(cells[j] == previous[j] for j in range(i + 1)):
                cells[i] = ""
            else:
                break
        out.append(cells)
        previous = line
    return out


def _method_note(rows: Sequence[MetricRow]) -> str:
    methods = ci_methods(rows)
    return f"95% CI: {', '.join(methods)} (percentile)." if methods else ""


def _comment(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def label_for(suite: str, agent: str) -> str:
    """A `\\label` stem from the suite and the agent: letters, digits and hyphens only."""
    stem = re.sub(r"[^a-z0-9]+", "-", f"{suite} {agent}".lower()).strip("-")
    return f"tab:heedful-{stem}"
