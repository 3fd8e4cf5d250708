"""The packages import each other in layers: no import cycle between heedful's subpackages, and the
generic layers (metrics, the reply types) import no suite or agent.

Only module-level imports count: an import inside a function runs on call, not at import time. The graph is
read from the source (no import runs), so the test is fast and names the offending modules.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import heedful

ROOT = Path(heedful.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("heedful", *parts))


def _package(module: str) -> str:
    """The subpackage a module belongs to (`heedful.suites.household.model` -> `suites`), or its own name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def import_edges() -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> the importing modules, for module-level imports."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                src, dst = _package(module), _package(target)
                if target.startswith("heedful.") and (ROOT / dst).is_dir() and (ROOT / src).is_dir() and src != dst:
                    edges[(src, dst)].append(module)
    return edges


def _cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst in edges:
        graph[src].add(dst)

    def reaches(a: str, b: str) -> bool:
        seen, todo = set(), [a]
        while todo:
            node = todo.pop()
            if node == b:
                return True
            if node not in seen:
                seen.add(node)
                todo.extend(graph[node])
        return False

    return sorted([src, dst] for src, dst in edges if reaches(dst, src))


def test_no_import_cycle_between_subpackages() -> None:
    edges = import_edges()
    cycles = _cycles(edges)
    assert not cycles, {f"{a} -> {b}": edges[(a, b)] for a, b in cycles}


def test_metrics_replies_and_capabilities_import_no_suite_and_no_agent() -> None:
    edges = import_edges()
    assert not [(a, b) for a, b in edges if a == "metrics" and b in ("suites", "agents", "runner", "report")]
    assert not [(a, b) for a, b in edges if a == "payloads"]  # written by suites, read by metrics: imports neither
    for neutral in ("replies.py", "capabilities.py"):  # read by suites and agents alike
        tree = ast.parse((ROOT / neutral).read_text(encoding="utf-8"))
        imported = [n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module]
        assert all(m == "heedful.errors" or not m.startswith("heedful") for m in imported), (neutral, imported)


def test_the_graph_is_read_from_the_source() -> None:
    # the check sees real edges (it would pass vacuously if it found none)
    edges = import_edges()
    assert ("agents", "suites") in edges and ("runner", "suites") in edges
