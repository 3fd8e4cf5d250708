"""Start-up stays cheap: importing heedful or its command line, and `heedful --help`, load no heavy module."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("mujoco", "torch", "xllamacpp", "openai", "ray", "pyarrow", "gymnasium", "lerobot", "matplotlib")
"""Simulators, models and clients: loaded where used, never by an import or a parser."""
HELP_ALSO_SKIPS = ("numpy", "pydantic", "importlib.metadata", "heedful.suites", "heedful.agents")
"""What `heedful --help` needs none of (each command builds its own parser only when it runs)."""


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nimport json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    return set(json.loads(out.stdout.splitlines()[-1]))


def _present(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if any(m == name or m.startswith(name + ".") for m in modules)]


@pytest.mark.parametrize("code", ["import heedful", "import heedful.cli.main", "import heedful.api"])
def test_importing_heedful_loads_no_heavy_module(code: str) -> None:
    assert _present(_loaded_after(code), HEAVY) == []


def test_help_loads_no_suite_no_agent_and_no_pydantic() -> None:
    code = "from heedful.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    assert _present(_loaded_after(code), HEAVY + HELP_ALSO_SKIPS) == []


def test_a_command_builds_only_its_own_parser() -> None:
    code = "from heedful.cli.main import main\ntry:\n    main(['report', '--help'])\nexcept SystemExit:\n    pass"
    loaded = _loaded_after(code)
    assert "heedful.cli.results_commands" in loaded
    assert _present(loaded, ("heedful.cli.commands", "heedful.cli.tabletop_commands", "heedful.cli.serve")) == []
    assert _present(loaded, HEAVY) == []


def test_version_is_read_when_asked() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "heedful", "--version"], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.startswith("heedful ") and len(out.stdout.split()) == 2


def test_plot_help_loads_no_matplotlib() -> None:
    code = "from heedful.cli.main import main\ntry:\n    main(['plot', '--help'])\nexcept SystemExit:\n    pass"
    loaded = _loaded_after(code)
    assert "heedful.cli.results_commands" in loaded
    assert _present(loaded, HEAVY) == []
