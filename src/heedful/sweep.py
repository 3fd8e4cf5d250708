"""Sweeps: a matrix of runs (agents or checkpoints x suites x seeds x option sets) as one resumable job.

    # sweep.toml
    out = "sweeps/main"            # the sweep directory (`heedful sweep --out` overrides)
    baseline = "oracle"            # optional: every other agent is compared with it, paired, per suite and seed

    [run]                          # for every cell: limit, split, order, workers, backend, address, resources
    limit = 40

    [matrix]
    suites = ["decisions", "household"]
    seeds = [0]
    agents = ["oracle", { label = "ckpt-2k", agent = "bc", args = { path = "ckpt/2000" }, suites = ["tabletop"] }]
    options = [{ label = "default" }, { label = "masked", mask = true }]   # optional

Each cell is its own run directory, `OUT/SUITE/AGENT[/OPTIONS]/seedS`, run with `--resume` semantics: a sweep
stopped at any point continues where it stopped, and a finished cell costs nothing to run again. `OUT/sweep.json`
lists the cells and their state. `sweep_table(OUT)` is one table of every cell's overall metrics and, with a
baseline, the paired differences against it. Cells run one after the other, each on the chosen backend (`workers`
processes or a Ray cluster), so one job uses the whole machine or cluster.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError, HeedfulError, RunError
from heedful.sweep_checks import SWEEP_FILE, check_cell_entry, check_cells, check_run_table, plain_name

if TYPE_CHECKING:
    from heedful.metrics.compare import ComparisonRow

TOP_KEYS = {"out", "baseline", "run", "matrix", "options"}
RUN_KEYS = {"limit", "split", "order", "workers", "backend", "address", "resources", "verify"}
MATRIX_KEYS = {"suites", "agents", "seeds", "options"}
SKIPPED_GROUPS = ("status", "usage")


@dataclass(frozen=True)
class AgentEntry:
    """One agent of the matrix: its label (the run directory's name), registry name and arguments."""

    label: str
    agent: str
    args: dict[str, Any] = field(default_factory=dict)
    suites: tuple[str, ...] = ()
    """The suites it runs on (empty: every suite of the matrix); suites have different agents."""


@dataclass(frozen=True)
class Cell:
    """One run of the sweep."""

    suite: str
    agent: AgentEntry
    seed: int
    options_label: str
    options: dict[str, Any]

    def run_dir(self, out: Path) -> Path:
        parts = [self.suite, self.agent.label] + ([self.options_label] if self.options_label else [])
        return out.joinpath(*parts, f"seed{self.seed}")


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file: where it writes, what every cell shares, the cells, and the baseline agent's label."""

    out: Path
    run: dict[str, Any]
    cells: tuple[Cell, ...]
    baseline: str | None
    source: str


def load_sweep(path: Path | str, out: Path | str | None = None) -> Sweep:
    """Parse and check a sweep file (every cell's suite and agent exist) before anything runs.

    Raises:
        ConfigError: the file is not TOML, has unknown keys or values of the wrong type, names an unknown suite or
            an agent a suite does not have, or a baseline that is not one of its agents.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as err:
        raise ConfigError(f"cannot read sweep file {path}: {err.strerror or err}") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"sweep file {path} is not valid TOML: {err}") from err
    _known(data, TOP_KEYS, f"{path}")
    run = _table(data.get("run", {}), f"{path} [run]")
    _known(run, RUN_KEYS, f"{path} [run]")
    matrix = _table(data.get("matrix"), f"{path} [matrix]")
    _known(matrix, MATRIX_KEYS, f"{path} [matrix]")
    suites = _strings(matrix.get("suites"), f"{path} matrix.suites")
    agents = [_agent(entry, f"{path} matrix.agents") for entry in _list(matrix.get("agents"), f"{path} matrix.agents")]
    seeds = matrix.get("seeds", [0])
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
    ):
        raise ConfigError(f"{path} matrix.seeds must be a list of integers, got {seeds!r}")
    check_run_table(run, f"{path} [run]")
    option_sets = [
        _options(entry, f"{path} matrix.options")
        for entry in _list(matrix.get("options", [{"label": ""}]), f"{path} matrix.options")
    ]
    per_suite = _table(data.get("options", {}), f"{path} [options]")
    _known(per_suite, set(suites), f"{path} [options] (a table per suite of the matrix)")
    _unique([label for label, _ in option_sets], f"{path} matrix.options labels")
    baseline = data.get("baseline")
    if baseline is not None and baseline not in {a.label for a in agents}:
        raise ConfigError(
            f"{path}: baseline {baseline!r} is not one of the agents ({', '.join(a.label for a in agents)})"
        )
    cells = tuple(
        Cell(suite, agent, seed, label, {**_table(per_suite.get(suite, {}), f"[options.{suite}]"), **options})
        for suite in suites
        for agent in agents
        if not agent.suites or suite in agent.suites
        for label, options in option_sets
        for seed in seeds
    )
    _unique(
        [f"{c.suite}: {c.agent.label}" for c in cells if c.seed == seeds[0] and c.options_label == option_sets[0][0]],
        f"{path} matrix.agents labels",
    )
    check_cells(cells, path, run)
    where = out if out is not None else data.get("out")
    if not isinstance(where, str | Path):
        raise ConfigError(f'{path} names no sweep directory: add out = "DIR" or pass --out')
    if not str(where) or not str(where).isprintable():
        raise ConfigError(f"{path}: out {str(where)!r} is not a directory name (empty, or a control character)")
    return Sweep(Path(where), run, cells, baseline, text)


def run_sweep(sweep: Sweep, *, progress: bool = True, say: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Run every cell (resuming what an earlier call started) and return the cells as `sweep.json` lists them.

    A cell that fails (an unreachable server, a crash of the run) is recorded as failed with its reason and the
    sweep goes on; Ctrl-C stops the sweep (the interrupted cell resumes next time).
    """
    entries = [_entry(cell, sweep.out, "pending") for cell in sweep.cells]
    with _backend_session(sweep.run):  # bad backend flags fail here, before anything is written
        sweep.out.mkdir(parents=True, exist_ok=True)
        _run_cells(sweep, entries, progress, say)
    return entries


@contextmanager
def _backend_session(run: dict[str, Any]) -> Iterator[None]:
    """One backend session for every cell (on Ray, each run would otherwise start and stop its own Ray instance)."""
    from heedful.runner.backend import BackendFlags, make_backend

    flags = BackendFlags(int(run.get("workers", 1)), run.get("address"), run.get("resources"))
    with make_backend(run.get("backend", "local"), flags).session():
        yield


def _run_cells(sweep: Sweep, entries: list[dict[str, Any]], progress: bool, say: Callable[[str], None]) -> None:
    from heedful.api import evaluate

    for i, cell in enumerate(sweep.cells):
        say(
            f"sweep cell {i + 1}/{len(sweep.cells)}: {cell.suite} {cell.agent.label} {cell.options_label} "
            f"seed {cell.seed}".replace("  ", " ")
        )
        try:
            result = evaluate(
                suite=cell.suite,
                agent=cell.agent.agent,
                agent_args=dict(cell.agent.args),
                out=cell.run_dir(sweep.out),
                seed=cell.seed,
                options=dict(cell.options),
                resume=True,
                progress=progress,
                **sweep.run,
            )
            entries[i].update(state="finished", counts=dict(result.counts))
        except HeedfulError as err:
            entries[i].update(state="failed", reason=f"{type(err).__name__}: {err}")
            say(f"  failed: {entries[i]['reason']}")
        finally:
            _write(sweep, entries)


def sweep_rows(out: Path | str, *, resamples: int = 10_000, baseline: str | None = None) -> list[dict[str, Any]]:
    """One row per cell and overall metric: value with its 95% interval and, against the baseline (the sweep file's,
    or `baseline`, an agent label; same suite, options and seed), the paired difference with its interval.

    Raises:
        ConfigError: `baseline` is no agent of the sweep.
    """
    from heedful.api import compare, report
    from heedful.report.flags import run_flags
    from heedful.runner.manifest import read_manifest

    out = Path(out)
    info = read_sweep(out)
    baseline = baseline or info.get("baseline")
    labels = sorted({c["agent"] for c in info["cells"]})
    if baseline is not None and baseline not in labels:
        raise ConfigError(f"the sweep {out} has no agent {baseline!r} to compare with; its agents: {', '.join(labels)}")
    done = [c for c in info["cells"] if (out / c["run_dir"] / "records.sqlite").exists()]
    rows: list[dict[str, Any]] = []
    for cell in done:
        run_dir = out / cell["run_dir"]
        diffs: dict[str, ComparisonRow] = {}
        base = next((b for b in done if b["agent"] == baseline and _same_slot(b, cell) and b is not cell), None)
        if base is not None:
            for paired in compare(run_dir, out / base["run_dir"], resamples=resamples):  # diff: cell - baseline
                if paired.group == "all":
                    diffs[paired.metric] = paired
        flags = run_flags(read_manifest(run_dir))  # privileged or stateful: shown beside the agent
        for row in report(run_dir, resamples=resamples)[0]:
            if row.group != "all" or row.value is None:
                continue
            diff = diffs.get(row.metric)
            rows.append(
                {
                    "suite": cell["suite"],
                    "options": cell["options_label"],
                    "seed": cell["seed"],
                    "agent": cell["agent"],
                    "metric": row.metric,
                    "value": row.value,
                    "ci_low": row.ci_low,
                    "ci_high": row.ci_high,
                    "n": row.n,
                    "baseline": base["agent"] if base is not None else None,
                    "diff": diff.diff if diff is not None else None,
                    "diff_ci_low": diff.ci_low if diff is not None else None,
                    "diff_ci_high": diff.ci_high if diff is not None else None,
                    "flags": flags,
                }
            )
    return rows


def is_sweep(path: Path | str) -> bool:
    """Whether `path` is a sweep directory (it holds `sweep.json`)."""
    return (Path(path) / SWEEP_FILE).is_file()


def sweep_table(out: Path | str, *, resamples: int = 10_000, baseline: str | None = None) -> str:
    """`sweep_rows` as one terminal table (values in %), with a line on cells that have not finished."""
    info = read_sweep(Path(out))
    rows = sweep_rows(out, resamples=resamples, baseline=baseline)
    baseline = baseline or info.get("baseline")
    header = ("suite", "options", "seed", "agent", "metric", "value [95% CI]", "n", "vs baseline [95% CI]")
    lines = [header]
    for r in rows:
        vs = (
            ""
            if r["diff"] is None
            else f"{_pct(r['diff'], signed=True)} [{_pct(r['diff_ci_low'])}, {_pct(r['diff_ci_high'])}]"
        )
        value = f"{_pct(r['value'])} [{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]"
        agent = r["agent"] + (f" [{'; '.join(r['flags'])}]" if r["flags"] else "")
        lines.append((r["suite"], r["options"] or "-", str(r["seed"]), agent, r["metric"], value, str(r["n"]), vs))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [f"sweep {out}: {len(info['cells'])} cells" + (f", baseline {baseline}" if baseline else "")]
    text += ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in lines]
    open_cells = [c for c in info["cells"] if c.get("state") != "finished"]
    if open_cells:
        text.append(
            f"{len(open_cells)} cells not finished ("
            + "; ".join(f"{c['run_dir']}: {c.get('reason') or c.get('state')}" for c in open_cells)
            + "): run the sweep again to continue"
        )
    return "\n".join(text)


def read_sweep(out: Path) -> dict[str, Any]:
    """The `sweep.json` of a sweep directory, checked like a manifest: every cell names its suite, agent, options
    label, seed and a run directory inside the sweep.

    Raises:
        RunError: `out` holds no sweep, or its `sweep.json` is damaged or of the wrong shape.
    """
    path = out / SWEEP_FILE
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise RunError(f"{out} holds no sweep ({SWEEP_FILE} is missing); run `heedful sweep SWEEP.toml` first") from err
    except json.JSONDecodeError as err:
        raise RunError(f"{path} is damaged ({err.msg}); run the sweep again to rewrite it") from err
    if not isinstance(info, dict) or not isinstance(info.get("cells"), list):
        raise RunError(f"{path} is not a sweep record (no list of cells); run the sweep again to rewrite it")
    for i, cell in enumerate(info["cells"]):
        check_cell_entry(out, cell, f"{path} cell {i + 1}")
    if info.get("baseline") is not None and not isinstance(info["baseline"], str):
        raise RunError(f"{path}: baseline must be an agent label, got {info['baseline']!r}")
    return dict(info)


def cell_run_dirs(out: Path) -> list[Path]:
    """The run directories of a sweep's cells (each checked to lie inside the sweep)."""
    return [out / cell["run_dir"] for cell in read_sweep(Path(out))["cells"]]


# --- parsing helpers ---------------------------------------------------------------------------------------


def _known(table: dict[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise ConfigError(f"{where}: unknown key {', '.join(map(repr, unknown))}; known: {', '.join(sorted(keys))}")


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table, got {value!r}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{where} must be a non-empty list, got {value!r}")
    return value


def _strings(value: Any, where: str) -> list[str]:
    items = _list(value, where)
    if not all(isinstance(item, str) and item for item in items):
        raise ConfigError(f"{where} must be a list of names, got {value!r}")
    return items


def _agent(entry: Any, where: str) -> AgentEntry:
    if isinstance(entry, str) and entry:
        if not plain_name(entry.replace("/", "-")):
            raise ConfigError(f"{where}: agent {entry!r} is not a name (it holds a control character)")
        return AgentEntry(entry.replace("/", "-"), entry)
    table = _table(entry, f"{where} entry")
    _known(table, {"label", "agent", "args", "suites"}, f"{where} entry")
    agent, args = table.get("agent"), table.get("args", {})
    suites = tuple(_strings(table["suites"], f"{where} {agent!r} suites")) if "suites" in table else ()
    if not isinstance(agent, str) or not agent or not isinstance(args, dict):
        raise ConfigError(f'{where}: {entry!r} needs agent = "NAME" and optionally args = {{...}}')
    label = table.get("label", agent)
    if not isinstance(label, str) or not label or not plain_name(label):
        raise ConfigError(f"{where}: label {label!r} must be a plain directory name")
    return AgentEntry(label, agent, args, suites)


def _options(entry: Any, where: str) -> tuple[str, dict[str, Any]]:
    table = dict(_table(entry, f"{where} entry"))
    label = table.pop("label", "")
    if not isinstance(label, str) or (label and not plain_name(label)):
        raise ConfigError(f"{where}: label {label!r} must be a plain directory name")
    return label, table


def _unique(labels: Sequence[str], where: str) -> None:
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ConfigError(f"{where} repeat {', '.join(map(repr, repeated))}: give each a distinct label")


def _entry(cell: Cell, out: Path, state: str) -> dict[str, Any]:
    return {
        "suite": cell.suite,
        "agent": cell.agent.label,
        "agent_name": cell.agent.agent,
        "agent_args": cell.agent.args,
        "options_label": cell.options_label,
        "options": cell.options,
        "seed": cell.seed,
        "run_dir": cell.run_dir(out).relative_to(out).as_posix(),
        "state": state,
    }


def _write(sweep: Sweep, entries: list[dict[str, Any]]) -> None:
    body = {"baseline": sweep.baseline, "run": sweep.run, "source": sweep.source, "cells": entries}
    tmp = sweep.out / (SWEEP_FILE + ".tmp")
    tmp.write_text(json.dumps(body, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(sweep.out / SWEEP_FILE)


def _same_slot(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(a["suite"] == b["suite"] and a["options_label"] == b["options_label"] and a["seed"] == b["seed"])


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"
