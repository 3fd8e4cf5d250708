"""Every registered suite states the whole `Suite` contract: no hook is left for the caller to probe."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import heedful
from heedful.suites.base import Suite
from heedful.suites.declared import DeclaredSuite
from heedful.suites.registry import SUITES, get_suite

MEMBERS = sorted(
    {name for name, _ in inspect.getmembers(Suite) if not name.startswith("_")} | set(Suite.__annotations__)
)


def test_the_contract_lists_the_optional_hooks_too() -> None:
    assert {"report_clusters", "prepare_options", "episodes_for_run", "run_label", "attach_images"} <= set(MEMBERS)


@pytest.mark.parametrize("name", SUITES.names())
def test_a_registered_suite_has_every_member(name: str) -> None:
    suite = get_suite(name)
    assert isinstance(suite, DeclaredSuite)
    missing = [member for member in MEMBERS if not hasattr(suite, member)]
    assert not missing, f"{name} lacks {missing}"
    assert suite.report_clusters and all(isinstance(c, str) for c in suite.report_clusters)


def test_the_generic_layers_do_not_probe_suites() -> None:
    root = Path(heedful.__file__).parent
    for path in (root / "api.py", *sorted((root / "runner").glob("*.py")), *sorted((root / "cli").glob("*.py"))):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr"):
                target = node.args[0]
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
                assert "suite" not in name, f"{path.name}:{node.lineno} probes {name}"
