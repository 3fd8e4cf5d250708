"""Generic modules name no suite in their code (issue 41: each suite in one package): what a suite adds to the export's
columns, to the generation message or to the language-dependence cut, it declares in its own parts. Docstrings and
comments may use a suite as an example; names in code may not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import heedful
from heedful.suites.registry import SUITES

ROOT = Path(heedful.__file__).parent
GENERIC = (
    "report/export_schema.py",
    "report/export.py",
    "dataset_cache.py",
    "metrics/arms.py",
    "metrics/chance.py",
    "metrics/reference.py",
    "metrics/scoring.py",
    "metrics/engine.py",
    "report/summary.py",
    "suites/declared.py",
    "suites/parts.py",
    "suites/base.py",
)


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of the module's code, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):  # attribute docstrings: a string expression statement after an assignment
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docstrings.add(id(node.value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


@pytest.mark.parametrize("module", GENERIC)
def test_a_generic_module_names_no_suite_in_its_code(module: str) -> None:
    suites = set(SUITES.names())
    assert {"decisions", "household", "tabletop"} <= suites
    named = [(line, text) for line, text in _code_strings(ROOT / module) if any(s in text for s in suites)]
    assert not named, f"{module} names a suite: {named}"


def test_exporting_a_dataset_that_names_no_suite_says_how_to_fix_it(tmp_path: Path) -> None:
    from heedful.errors import DatasetError
    from heedful.report.export import rows_of

    (tmp_path / "dataset.json").write_text('{"format": "x", "counts": {}}', encoding="utf-8")
    (tmp_path / "episodes.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(DatasetError, match=r'names no suite: .*add "suite"'):
        rows_of(tmp_path)
