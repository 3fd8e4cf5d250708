"""The terminal view of a suite's paper tables, from the one declaration Markdown and LaTeX print too.

A table with a `Pivot` prints as a grid of point values in % (tabletop's Table 1, household's Table 6 and Table 9);
one with a `Listing` as a headline, line by line with values and intervals in columns of their own (household's SR
and SPL); any other line by line with its intervals, as Markdown does. Cells without a row print `-`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from heedful.errors import ConfigError
from heedful.metrics.compare import MCNEMAR_PREFIX, ComparisonRow
from heedful.metrics.layouts import Column, Listing, MeanOf, PaperTable, Pivot, line_rows, rows_by_group
from heedful.metrics.render import (
    MISSING,
    column_widths,
    count_text,
    format_cells,
    interval_text,
    p_value_text,
    percent,
    points,
)
from heedful.metrics.rows import MetricRow, collapsed

CELL = 6
"""The narrowest column of a pivot (a value like `100.0`)."""


def table_text(table: PaperTable, rows: Sequence[MetricRow]) -> str:
    """The table as the terminal prints it: its pivot or its listing where it declares one, else line by line."""
    if table.pivot is not None:
        return pivot_text(table, table.pivot, rows)
    if table.listing is not None:
        return listing_text(table, table.listing, rows)
    return lines_text(table, rows)


def listing_text(table: PaperTable, listing: Listing, rows: Sequence[MetricRow]) -> str:
    """The listing of `table`: a label column, then per column its value in % (an estimate: and its interval)."""
    header = [listing.label]
    for column in table.columns:
        header += [column.label, "95% CI"] if column.show == "estimate" else [column.label]
    body = [[_listed_label(labels), *_listed_cells(table.columns, found)] for labels, found in table.present(rows)]
    methods = {row.ci_method for row in rows if row.metric in table.metrics}
    return _listed(listing, listing.title, listing.notes, methods, header, body)


def listing_comparison_text(table: PaperTable, rows: Sequence[ComparisonRow]) -> str:
    """`heedful compare`'s view of a table with a listing: per estimate A, B, A - B and its paired 95% interval, then
    the exact McNemar p of the listing's metric.

    Raises:
        ConfigError: If the table declares no listing with a comparison title.
    """
    listing = table.listing
    if listing is None or not listing.compare_title:
        raise ConfigError(f"the table {table.title!r} declares no comparison listing")
    header = [listing.label]
    for column in table.columns:
        if column.show == "n":
            header.append(column.label)
        elif column.show in ("estimate", "value"):
            header += [f"{column.label} A", f"{column.label} B", "A - B", "95% CI"]
    header.append("McNemar p")
    by_group: dict[str, dict[str, ComparisonRow]] = {}
    for row in rows:
        by_group.setdefault(row.group, {})[row.metric] = row
    body = []
    for labels, source in table.lines:
        found = by_group.get(source, {}) if isinstance(source, str) else {}
        if table.metrics & set(found):
            test = found.get(MCNEMAR_PREFIX + listing.mcnemar)
            cells = [_listed_label(labels), *_compared_cells(table.columns, found)]
            body.append([*cells, p_value_text(test.p_value) if test is not None else MISSING])
    methods = {row.ci_method for row in rows if row.metric in table.metrics}
    return _listed(listing, listing.compare_title, listing.compare_notes, methods, header, body)


def _listed(
    listing: Listing, title: str, notes: Sequence[str], methods: set[str], header: list[str], body: list[list[str]]
) -> str:
    head = "\n".join([title.format(method=", ".join(sorted(methods - {""})) or MISSING), *notes])
    if not body:
        return f"{head}\n  {listing.empty}"
    widths = column_widths([header, *body])
    return "\n".join([head, format_cells(header, widths), *(format_cells(cells, widths) for cells in body)])


def _compared_cells(columns: Sequence[Column], found: dict[str, ComparisonRow]) -> list[str]:
    cells = []
    for column in columns:
        row = found.get(column.metric)
        if column.show == "n":
            cells.append(MISSING if row is None else str(row.n))
        elif column.show in ("estimate", "value"):
            if row is None:
                cells += [MISSING] * 4
                continue
            ci = interval_text(row.ci_low, row.ci_high, signed=True)
            cells += [
                percent(row.a),
                percent(row.b),
                points(row.diff),
                ci + ("*" if collapsed(row.ci_low, row.ci_high) else ""),
            ]
    return cells


def _listed_label(labels: Sequence[str]) -> str:
    """The first label, or the later ones indented (`S_obj`, `clear` prints as `  clear` under it)."""
    named = [label for label in labels if label]
    return "  " + " / ".join(named[1:]) if len(named) > 1 else "".join(named)


def _listed_cells(columns: Sequence[Column], found: dict[str, MetricRow]) -> list[str]:
    cells = []
    for column in columns:
        row = found.get(column.metric)
        if column.show == "estimate":
            ci = MISSING if row is None else interval_text(row.ci_low, row.ci_high) + ("*" if row.collapsed else "")
            cells += [MISSING if row is None else percent(row.value), ci]
        elif column.show == "n":
            cells.append(MISSING if row is None else str(row.n))
        else:
            cells.append(MISSING if row is None else percent(row.chance if column.show == "chance" else row.value))
    return cells


def pivot_text(table: PaperTable, pivot: Pivot, rows: Sequence[MetricRow]) -> str:
    """The pivot of `table`: one block per first label, one column per line of the block, one line per column."""
    by_group = rows_by_group(rows)
    blocks: dict[str, list[tuple[str, str | MeanOf]]] = {}
    for labels, source in table.lines:
        blocks.setdefault(labels[0], []).append((" ".join(labels[1:]), source))
    names = list(blocks)
    bands = _bands(names, pivot.bands)
    shown = [column for column in table.columns if column.show in ("estimate", "value")]
    metrics = {column.metric for column in shown}
    prefixes = [("", "")]
    if pivot.reference and any(row.group.startswith(pivot.reference) for row in rows):
        prefixes.append((pivot.reference, pivot.reference_label))
    out = [pivot.title]
    pad = " " * pivot.label_width
    for band in bands:
        if len(bands) > 1:
            out.append("")
        widths = {name: max(CELL, *(len(cell) for cell, _ in blocks[name])) for name in band}
        spans = {name: len(blocks[name]) * (widths[name] + 1) - 1 for name in band}
        if any(band):
            out.append(pad + " | ".join(f"{name:^{spans[name]}}" for name in band))
        out.append(pad + " | ".join(" ".join(f"{cell:>{widths[name]}}" for cell, _ in blocks[name]) for name in band))
        for prefix, label in prefixes:
            cells = {
                name: [line_rows(source, by_group, metrics, prefix) for _, source in blocks[name]] for name in band
            }
            for column in shown:
                values = (
                    " ".join(f"{_value(found.get(column.metric)):>{widths[name]}}" for found in cells[name])
                    for name in band
                )
                out.append(f"{label + column.label:<{pivot.label_width}}" + " | ".join(values))
    return "\n".join(out)


Line = tuple[tuple[str, ...], list[tuple[str, str]]]
"""A present line of a table: its labels and its cells as (number, interval)."""


def table_lines(table: PaperTable, rows: Sequence[MetricRow]) -> tuple[list[str], list[Line]]:
    """The header and the lines the rows fill, line by line with intervals (Markdown, LaTeX, a table without pivot)."""
    header = [*table.label_columns, *(column.label for column in table.columns)]
    body = [
        (labels, [cell_parts(column, found.get(column.metric)) for column in table.columns])
        for labels, found in table.present(rows)
    ]
    return header, body


def lines_text(table: PaperTable, rows: Sequence[MetricRow]) -> str:
    """The table line by line with its intervals (the terminal's view of a table without a pivot)."""
    header, body = table_lines(table, rows)
    if not body:
        return ""
    cells = [[*labels, *(f"{value} {ci}".rstrip() for value, ci in parts)] for labels, parts in body]
    return f"{table.title}\n{aligned([header, *cells], len(table.label_columns))}"


def aligned(table: Sequence[Sequence[str]], left: int) -> str:
    """Lines of cells, the first `left` columns aligned left, the others right, three spaces apart."""
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = []
    for line in table:
        cells = [
            cell.ljust(w) if i < left else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        lines.append("  " + "   ".join(cells).rstrip())
    return "\n".join(lines)


def cell_parts(column: Column, row: MetricRow | None) -> tuple[str, str]:
    """(number, interval) of a line-by-line cell; the interval is empty unless the column shows an estimate."""
    if row is None:
        return MISSING, ""
    if column.show == "n":
        return str(row.n), ""
    if column.show == "chance":
        return number(row.chance), ""
    if column.show == "value" or row.ci_low is None or row.ci_high is None:
        return number(row.value), ""
    return number(row.value), interval_text(row.ci_low, row.ci_high) + ("*" if row.collapsed else "")


def number(value: float | None) -> str:
    """A proportion in %, one decimal, without the sign; `-` where missing."""
    return MISSING if value is None or not math.isfinite(value) else f"{100 * value:.1f}"


def counts(row: MetricRow) -> str:
    """`k/n unit`, or `n unit` for a mean (as the terminal table)."""
    return count_text(row.k, row.n, row.unit)


def _value(row: MetricRow | None) -> str:
    return MISSING if row is None else number(row.value)


def _bands(names: list[str], sizes: tuple[int, ...]) -> list[list[str]]:
    if not sizes:
        return [names]
    bands, start = [], 0
    for size in sizes:
        bands.append(names[start : start + size])
        start += size
    if start < len(names):
        bands.append(names[start:])
    return [band for band in bands if band]
