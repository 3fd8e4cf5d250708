"""The packages import each other in layers, read from the table in docs/architecture.md: no import statement
(module level, in a class or inside a function) reaches a higher layer, no module-level cycle joins two
units (type-only imports aside), the generic layers import no suite or agent, and no module takes a private name
from another.

The graph is read from the source by `scripts/architecture_counts.py` (no import runs), so the test is fast
and names the offending modules and lines.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "architecture_counts.py"


@pytest.fixture(scope="module")
def counts() -> ModuleType:
    spec = importlib.util.spec_from_file_location("architecture_counts", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_unit_is_in_the_layer_table(counts: ModuleType) -> None:
    layers = counts.layer_table()
    units = {counts.unit(module) for module in counts.modules()}
    assert not units - set(layers), f"add these to the table in docs/architecture.md: {sorted(units - set(layers))}"
    assert not set(layers) - units, f"the table names units that do not exist: {sorted(set(layers) - units)}"


def test_no_import_climbs_the_layers(counts: ModuleType) -> None:
    climbing = counts.climbing(counts.module_edges(), counts.layer_table())
    assert not climbing, "\n".join(f"{e.module}:{e.line} imports {e.target}" for e in climbing)


def test_no_module_takes_a_private_name_from_another(counts: ModuleType) -> None:
    assert not counts.private_imports(counts.all_imports())


def test_no_module_level_cycle_between_units(counts: ModuleType) -> None:
    module_level = [e for e in counts.module_edges() if not e.in_function and not e.type_only]
    assert not counts.circles(module_level, by_unit=True)


def test_metrics_replies_and_capabilities_import_no_suite_and_no_agent(counts: ModuleType) -> None:
    imported: dict[str, set[str]] = defaultdict(set)
    for edge in counts.module_edges():
        imported[counts.unit(edge.module)].add(counts.unit(edge.target))
    assert not imported["metrics"] & {"suites", "agents", "runner", "report"}
    for neutral in ("replies", "capabilities"):  # read by suites and agents alike
        assert imported[neutral] <= {neutral, "errors", "requirements"}, (neutral, imported[neutral])


def test_the_checks_see_real_imports(counts: ModuleType) -> None:
    # the checks would pass vacuously if they found nothing: an import in a function is seen, and a climbing one
    # in a table that puts `agents` below `suites` is caught
    edges = counts.module_edges()
    assert any(e.in_function and e.module == "heedful.api" for e in edges)
    upside_down = {**counts.layer_table(), "agents": 0}
    assert any(counts.unit(e.module) == "agents" for e in counts.climbing(edges, upside_down))
    table = "## Import layers\n\n| layer | units |\n|---|---|\n| 0 | `errors` |\n| 1 | `errors` |\n"
    with pytest.raises(ValueError, match="errors is in two layers"):
        counts.layer_table(table)
