"""`heedful report --format markdown|latex|csv`: the same numbers as `--format json`, read back from each format."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from heedful.api import report_text
from heedful.cli.main import main
from heedful.errors import ConfigError
from heedful.metrics.layouts import Column, MeanOf, PaperTable
from heedful.metrics.rows import MetricRow, collapsed
from heedful.report.latex import escape, to_latex
from heedful.suites.registry import get_suite

SUITES = ("decisions", "household", "tabletop")
RESAMPLES = 200


def _json_rows(run: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(report_text(run, format="json", resamples=RESAMPLES))
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{_pct(low)}, {_pct(high)}]"


def _expected_cells(row: dict[str, Any]) -> dict[str, str]:
    """What the Markdown and LaTeX tables of every row must print for a JSON row."""
    mark = "*" if collapsed(row["ci_low"], row["ci_high"]) else ""
    return {
        "value": _pct(row["value"]),
        "chance": _pct(row["chance"]),
        "95% CI": _interval(row["ci_low"], row["ci_high"]) + mark,
        "Wilson 95%": _interval(row["wilson_low"], row["wilson_high"]),
        "k/n": (f"{row['k']}/" if row["k"] is not None else "") + str(row["n"]),
    }


def _metric_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row for row in rows if row["group"] not in ("status", "usage")]


@pytest.mark.parametrize("suite", SUITES)
def test_csv_rows_equal_the_json_rows(suite: str, runs: dict[str, Path]) -> None:
    expected = _json_rows(runs[suite])
    parsed = list(csv.DictReader(io.StringIO(report_text(runs[suite], format="csv", resamples=RESAMPLES))))
    assert len(parsed) == len(expected) and parsed
    for line, row in zip(parsed, expected, strict=True):
        for key, value in row.items():
            if key == "agent_flags":  # the run's flags (a privileged oracle): in JSON rows, in the CSV's title-less
                continue  # table they would repeat on every line; the other formats show them in the title
            if value is None:
                assert line[key] == "", (key, line)
            elif isinstance(value, float):
                assert float(line[key]) == value, (key, line)  # full precision: the same float
            else:
                assert line[key] == str(value), (key, line)
        assert line["collapsed"] == ("true" if collapsed(row["ci_low"], row["ci_high"]) else "false")


def _md_tables(text: str) -> list[list[list[str]]]:
    """Every pipe table of a Markdown text: its lines of cells (header first, the alignment line dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("| "):
            cells = [c.strip().replace("\\*", "*").replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not all(set(c) <= {"-", ":"} for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


@pytest.mark.parametrize("suite", SUITES)
def test_markdown_numbers_equal_the_json_rows(suite: str, runs: dict[str, Path]) -> None:
    rows = _json_rows(runs[suite])
    text = report_text(runs[suite], format="markdown", resamples=RESAMPLES)
    tables = _md_tables(text)
    full = tables[-1]  # the table of every row comes last
    header = full[0]
    assert header[:3] == ["group", "metric", "value"]
    measured = _metric_rows(rows)
    assert len(full) - 1 == len(measured)
    for cells, row in zip(full[1:], measured, strict=True):
        line = dict(zip(header, cells, strict=True))
        assert (line["group"], line["metric"]) == (row["group"], row["metric"])
        for column, want in _expected_cells(row).items():
            if column in line:
                got = line[column].split()[0] if column == "k/n" else line[column]
                assert got == want, (column, line, row)
    paper = [t for t in get_suite(suite).paper_tables if t.present(_as_metric_rows(measured))]
    assert len(tables) == len(paper) + 1
    for layout, table in zip(paper, tables, strict=False):
        _check_paper_table(layout, table, measured, latex=False)
    assert text.splitlines()[0].startswith(f"**{suite} | agent ")


def _as_metric_rows(rows: list[dict[str, Any]]) -> list[MetricRow]:
    fields = ("metric", "group", "value", "ci_low", "ci_high", "n")
    return [MetricRow(*(row[f] for f in fields), ci_method=row["ci_method"], chance=row["chance"]) for row in rows]


def _check_paper_table(layout: PaperTable, table: list[list[str]], rows: list[dict[str, Any]], *, latex: bool) -> None:
    """Each cell of a paper table shows the JSON row of its line's group and its column's metric."""
    by_key = {(row["group"], row["metric"]): row for row in rows}
    labels = len(layout.label_columns)
    groups = dict(layout.lines)
    assert table[0] == [*layout.label_columns, *(c.label for c in layout.columns)]
    previous: list[str] = []
    for cells in table[1:]:
        names = cells[:labels]
        if tuple(names) not in groups:  # LaTeX prints a repeated label as blank
            names = [cell or previous[i] for i, cell in enumerate(names)]
        previous = names
        group = groups[tuple(names)]
        for column, cell in zip(layout.columns, cells[labels:], strict=True):
            row = by_key.get((group, column.metric)) if isinstance(group, str) else _mean(group, column.metric, by_key)
            assert cell == _paper_cell(column, row, latex=latex), (group, column)


def _mean(line: MeanOf, metric: str, by_key: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any] | None:
    """A `MeanOf` line's cell: the unweighted mean of its groups' values present, without an interval."""
    values = [by_key[(g, metric)]["value"] for g in line.groups if by_key.get((g, metric), {}).get("value") is not None]
    return {"value": sum(values) / len(values), "ci_low": None, "n": len(values)} if values else None


def _paper_cell(column: Column, row: dict[str, Any] | None, *, latex: bool) -> str:
    if row is None:
        return "--" if latex else "-"
    if column.show == "n":
        return str(row["n"])
    if column.show == "chance":
        return _pct(row["chance"])
    value = _pct(row["value"])
    if row["ci_low"] is None:
        return value
    interval = _expected_cells(row)["95% CI"]
    return f"{value} {{\\scriptsize {interval}}}" if latex else f"{value} {interval}"


def _latex_tables(text: str) -> dict[str, list[list[str]]]:
    """The tabulars of a LaTeX report by label: header and body lines of cells, unescaped."""
    tables: dict[str, list[list[str]]] = {}
    for block in text.split(r"\begin{table}")[1:]:
        label = re.search(r"\\label\{([^}]*)\}", block)
        assert label is not None
        body = block.split(r"\toprule")[1].split(r"\bottomrule")[0]
        lines = [line.strip().removesuffix(r"\\").strip() for line in body.splitlines()]
        cells = [
            [c.strip().replace(r"\_", "_").replace(r"\%", "%").replace(r"\&", "&") for c in re.split(r"(?<!\\)&", line)]
            for line in lines
        ]
        tables[label.group(1)] = [c for c, line in zip(cells, lines, strict=True) if line and line != r"\midrule"]
    return tables


@pytest.mark.parametrize("suite", SUITES)
def test_latex_numbers_equal_the_json_rows(suite: str, runs: dict[str, Path]) -> None:
    rows = _json_rows(runs[suite])
    text = report_text(runs[suite], format="latex", resamples=RESAMPLES)
    assert text.count(r"\begin{table}") == text.count(r"\end{table}") == text.count(r"\bottomrule")
    tables = _latex_tables(text)
    full = next(table for label, table in tables.items() if label.endswith("-rows"))
    header = full[0]
    measured = _metric_rows(rows)
    assert len(full) - 1 == len(measured)
    group = ""
    for cells, row in zip(full[1:], measured, strict=True):
        line = dict(zip(header, cells, strict=True))
        group = line["group"] or group
        assert (group, line["metric"]) == (row["group"], row["metric"])
        for column, want in _expected_cells(row).items():
            if column in line:
                got = line[column].split()[0] if column == "k/n" else line[column]
                assert got == ("--" if want == "-" else want), (column, line, row)
    paper = [(i, t) for i, t in enumerate(get_suite(suite).paper_tables, 1) if t.present(_as_metric_rows(measured))]
    for i, layout in paper:
        label = next(name for name in tables if name.endswith(f"-{i}"))
        _check_paper_table(layout, tables[label], measured, latex=True)
    captions = re.findall(r"\\caption\{(.*)\}", text)
    assert captions and all(f"{suite} suite, agent " in c and "records" in c and "bootstrap" in c for c in captions)


def test_latex_escapes_what_the_run_names() -> None:
    row = MetricRow("acc_1", "a&b / 50% #1", 0.5, 0.25, 0.75, 4, ci_method="family bootstrap", k=2)
    text = to_latex([row], "decisions suite, agent my_agent {v2} ~x^2: 4 records (--limit: 4)", (), "tab:x")
    assert r"a\&b / 50\% \#1" in text and r"acc\_1" in text
    assert r"my\_agent \{v2\} \textasciitilde{}x\textasciicircum{}2" in text and "-{}-limit" in text
    body = text.split("\n", 1)[1]  # the first line is a % comment with the raw caption
    assert body.count("{") - body.count(r"\{") == body.count("}") - body.count(r"\}")
    assert escape(r"\ $ <>|") == r"\textbackslash{} \$ \textless{}\textgreater{}\textbar{}"


@pytest.mark.parametrize("suite", SUITES)
def test_latex_compiles(suite: str, runs: dict[str, Path], tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):  # CI installs it (.ci/run): a skip there would hide a missing install
            pytest.fail("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
    (tmp_path / "table.tex").write_text(report_text(runs[suite], format="latex", resamples=RESAMPLES))
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{table}\n\\end{document}\n"
    )
    result = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:]


def test_cli_prints_each_format_and_refuses_an_unknown_one(
    decisions_runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = decisions_runs["oracle"]
    for fmt in ("csv", "markdown", "latex", "json"):
        assert main(["report", str(run), "--format", fmt, "--resamples", str(RESAMPLES)]) == 0
        assert capsys.readouterr().out.rstrip("\n") == report_text(run, format=fmt, resamples=RESAMPLES)
    with pytest.raises(ConfigError, match="choose one of table, json, markdown, latex, csv"):
        report_text(run, format="xml")
