"""What `heedful view` shows, as plain JSON-ready dicts: each run's summary and metric rows, the paired
comparisons of runs of one suite, and every record with what `heedful show` reads for it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import DatasetError
from heedful.records import PROMPT, Record

if TYPE_CHECKING:
    from heedful.results import ReadRun
    from heedful.suites.base import Suite

MAIN_SCORES = ("spl", "execution", "score", "success")
"""The per-episode score the episode list shows, the first a record holds (else correctness)."""


def run_summary(run_id: str, run_dir: Path, manifest: Any, records: list[Record]) -> dict[str, Any]:
    """A run's suite, agent and its arguments, records and status counts, and the suite's metric rows."""
    from heedful.report.flags import run_flags
    from heedful.results import ReadRun, report

    rows, title = report(ReadRun(run_dir, manifest, records))  # the records read once, by the caller
    spec = manifest.spec
    return {
        "id": run_id,
        "dir": str(run_dir),
        "name": run_dir.name,
        "suite": spec.suite,
        "agent": spec.agent,
        "model": manifest.agent.get("model"),
        "flags": run_flags(manifest),
        "agent_args": spec.agent_args,
        "options": spec.options,
        "seed": spec.seed,
        "state": manifest.state,
        "title": title,
        "records": len(records),
        "status_counts": dict(Counter(r.status.value for r in records)),
        "correct": sum(1 for r in records if r.correct),
        "rows": [row.as_dict() for row in rows],
        "keys": sorted({key for r in records for key in r.keys}),
        "list_keys": list_keys(records),
    }


def list_keys(records: list[Record]) -> list[str]:
    """The grouping keys the episode list shows: those that vary, and no ids (they repeat the episode's own)."""
    keys: list[str] = []
    for record in records:
        keys += [key for key in record.keys if key not in keys]
    values = {key: {r.keys.get(key) for r in records} for key in keys}
    return [
        key
        for key in keys
        if 1 < len(values[key]) <= max(2, len(records) // 2) and not key.endswith(("_id", "_seed")) and key != "task"
    ]


def comparisons(runs: list[tuple[str, ReadRun]]) -> list[dict[str, Any]]:
    """For each suite with two or more runs (id, the run read once): the first run as baseline A against each other
    run as B."""
    from heedful.results import compare, pairing_line

    by_suite: dict[str, list[tuple[str, ReadRun]]] = {}
    for run_id, run in runs:
        by_suite.setdefault(run.manifest.spec.suite, []).append((run_id, run))
    out = []
    for suite, members in by_suite.items():
        base_id, base = members[0]
        for other_id, other in members[1:]:
            entry: dict[str, Any] = {"suite": suite, "a": base_id, "b": other_id, "rows": [], "error": None}
            try:
                entry["rows"] = [row.as_dict() for row in compare(base, other)]
                entry["pairing"] = pairing_line(base.records, other.records)
            except Exception as exc:  # different datasets: the page says why there is no paired comparison
                entry["error"] = str(exc)
            out.append(entry)
    return out


def episode_entries(run_dir: Path, manifest: Any, records: list[Record]) -> list[dict[str, Any]]:
    """Every record with its instruction, task, observation summary, the suite's details and the prompt text."""
    from heedful.runner.store import RunStore
    from heedful.suites.registry import get_suite

    suite = get_suite(manifest.spec.suite)
    lines = _dataset_lines(suite, manifest.spec.dataset_source)
    with RunStore(run_dir) as store:
        prompts = {
            r.episode_id: store.prompt_text(str(r.inputs[PROMPT]["sha256"]))
            for r in records
            if isinstance(r.inputs.get(PROMPT), dict)
        }
    return [_entry(suite, r, lines, prompts.get(r.episode_id)) for r in records]


def _entry(suite: Suite, record: Record, lines: dict[str, Any], prompt: str | None) -> dict[str, Any]:
    line = lines.get(record.episode_id) or lines.get(record.keys.get("task", ""))
    instruction = record.inputs.get("instruction")
    task, observation = None, []
    if line is not None:
        described, task = suite.describe_task(line)
        instruction = described if instruction is None else instruction
        observation = [[name, text] for name, text in suite.observation_summary(line)]
    prediction = record.prediction if isinstance(record.prediction, dict) else {}
    main = next((name for name in MAIN_SCORES if name in record.scores), None)
    return {
        "id": record.episode_id,
        "index": record.index,
        "status": record.status.value,
        "error": record.error,
        "correct": record.correct,
        "keys": record.keys,
        "main": {"name": main or "correct", "value": _main_value(record, main)},
        "instruction": instruction,
        "inputs": {k: v for k, v in record.inputs.items() if k not in ("instruction", PROMPT)},
        "task": task,
        "observation": observation,
        "gold": record.gold,
        "prediction": record.prediction,
        "raw_output": record.raw_output,
        "prompt": prompt,
        "scores": record.scores,
        "details": [[name, text] for name, text in suite.record_details(record)],
        "queries": prediction.get("model_queries") or [],
        "stages": prediction.get("stages") or [],
        "agent_info": record.agent_info,
        "usage": record.usage,
        "truncated": record.truncated,
        "media": None,
    }


def _main_value(record: Record, main: str | None) -> float | None:
    if main is not None:
        return float(record.scores[main])
    return None if record.correct is None else float(record.correct)


def _dataset_lines(suite: Suite, source: str) -> dict[str, Any]:
    """The run's dataset episodes by id, or nothing when the dataset is not here (the page then shows less)."""
    from heedful.dataset_cache import GENERATED, source_episodes

    base = source.split(" split=")[0]
    if not base.startswith(GENERATED) and not Path(base).is_dir():
        return {}
    try:
        return {ep.episode_id: ep for ep in source_episodes(suite, source, verify=False)}
    except (DatasetError, ValueError, OSError):
        return {}


def to_script(data: dict[str, Any]) -> str:
    """`data.js`: the site's data as one global, so that the page reads it from file:// without a fetch."""
    # NaN and Infinity are JavaScript globals: a score that is not a number stays readable
    from heedful.redact import redact_value

    # a run made before redaction, or by another tool, may hold a credential header: a site is for publishing
    text = json.dumps(redact_value(data), ensure_ascii=True, sort_keys=False, default=str, allow_nan=True)
    return f"window.HEEDFUL_SITE = {text};\n"
