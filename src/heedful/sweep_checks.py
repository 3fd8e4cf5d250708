"""Checks of a sweep before anything is written: the `[run]` table, every cell (agent arguments, options, split), the
labels that become directory names, and each cell of a stored `sweep.json` (its run directory inside the sweep)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError, RunError

if TYPE_CHECKING:
    from heedful.sweep import Cell

SWEEP_FILE = "sweep.json"


RUN_TYPES: dict[str, tuple[type, ...]] = {
    "limit": (int,),
    "workers": (int,),
    "split": (str,),
    "order": (str,),
    "backend": (str,),
    "address": (str,),
    "resources": (str, dict),
    "verify": (bool,),
}


def check_run_table(run: dict[str, Any], where: str) -> None:
    """Every [run] value of the type and range `heedful run` takes (checked before any cell runs)."""
    for key, value in run.items():
        kinds = RUN_TYPES[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join("a table" if k is dict else k.__name__ for k in kinds)
            raise ConfigError(f"{where} {key} must be {names}, got {value!r}")
    for key in ("limit", "workers"):
        if key in run and run[key] < 1:
            raise ConfigError(f"{where} {key} must be at least 1, got {run[key]}")
    if run.get("order", "stratified") not in ("stratified", "file"):
        raise ConfigError(f"{where} order must be stratified or file, got {run['order']!r}")
    from heedful.runner.backend import BACKENDS

    if run.get("backend", "local") not in BACKENDS.names():
        raise ConfigError(f"{where} backend must be one of {', '.join(BACKENDS.names())}, got {run['backend']!r}")


def check_cells(cells: Sequence[Cell], path: Path, run: dict[str, Any] | None = None) -> None:
    """Every cell's suite, agent, agent arguments, options and split, all checked before anything is written."""
    from heedful.agent_args import check_agent_args
    from heedful.agents.registry import agent_class
    from heedful.suites.registry import get_suite

    problems: list[str] = []
    for suite, agent in sorted({(c.suite, c.agent.agent) for c in cells}):
        try:
            get_suite(suite)
            agent_class(agent, suite)
        except ConfigError as err:
            problems.append(f"{suite} / {agent}: {err}")
    if problems:
        raise ConfigError(f"{path}: cells that cannot run (nothing was started):\n  " + "\n  ".join(problems))
    checked: set[str] = set()
    for cell in cells:
        what = f"{cell.suite} / {cell.agent.label}" + (f" / {cell.options_label}" if cell.options_label else "")
        try:
            chosen = get_suite(cell.suite)
            check_agent_args(cell.agent.agent, agent_class(cell.agent.agent, cell.suite), dict(cell.agent.args))
            chosen.check_options(dict(cell.options))
            split = (run or {}).get("split", "all")
            if split not in chosen.splits:
                raise ConfigError(f"split {split!r} is not one of {', '.join(chosen.splits)}")
        except ConfigError as err:
            if what not in checked:
                problems.append(f"{what}: {err}")
        checked.add(what)
    if problems:
        raise ConfigError(f"{path}: cells that cannot run (nothing was started):\n  " + "\n  ".join(problems))


def check_cell_entry(out: Path, cell: Any, where: str) -> None:
    if not isinstance(cell, dict):
        raise RunError(f"{where} is not an object; run the sweep again to rewrite {SWEEP_FILE}")
    for key in ("suite", "agent", "options_label", "run_dir"):
        if not isinstance(cell.get(key), str):
            raise RunError(f"{where}: {key} must be a string, got {cell.get(key)!r}")
    if not isinstance(cell.get("seed"), int) or isinstance(cell.get("seed"), bool):
        raise RunError(f"{where}: seed must be an integer, got {cell.get('seed')!r}")
    run_dir = Path(cell["run_dir"])
    inside = not run_dir.is_absolute() and ".." not in run_dir.parts and "\0" not in cell["run_dir"]
    if not inside or not (out / run_dir).resolve().is_relative_to(out.resolve()):
        raise RunError(
            f"{where}: run_dir {cell['run_dir']!r} is not inside the sweep {out}; heedful reads only its own cells"
        )


def plain_name(label: str) -> bool:
    """A directory name on every system: printable (no NUL or control character), no separator, not hidden."""
    return label.isprintable() and not ({"/", "\\"} & set(label)) and not label.startswith(".") and len(label) <= 100
