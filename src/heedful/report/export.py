"""Export a run (one row per record) or a dataset (one row per episode) as JSONL or Parquet.

A run's rows are typed and versioned (`heedful.report.export_schema`): one JSON type per column in JSONL and
Parquet alike, nested values (gold, prediction, usage, ...) as JSON text. A dataset's rows are its episodes (the
suite's episode schema, `heedful schema SUITE`): JSONL keeps their nested values as JSON, Parquet as JSON text.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError, DatasetError
from heedful.records import PROMPT, Record
from heedful.report.export_schema import (
    EXPORT_SCHEMA_VERSION,
    OTHER_KEY,
    OTHER_SCORE,
    column_type,
    typed_rows,
)
from heedful.suites.parts import ColumnType

NESTED = {
    "gold",
    "prediction",
    "state",
    "candidates",
    "task",
    "usage",
    "agent_info",
    "timing",
    "scores",
    "truncated",
    "inputs",
}


def record_row(record: Record, prompts: dict[str, str] | None = None) -> dict[str, Any]:
    """A flat row (untyped: `run_rows` types it): the record's fields with its grouping keys lifted to columns;
    `instruction` (as the agent was shown it) and, for language agents, `prompt` (the exact text, from `prompts`:
    sha256 -> text) as columns."""
    row: dict[str, Any] = {"episode_id": record.episode_id, "index": record.index}
    row.update(record.keys)
    if "instruction" in record.inputs:
        row["instruction"] = record.inputs["instruction"]
    row.update(record.scores)  # per-episode scores (household: success, spl, steps, ...) as columns too
    row.update(
        gold=record.gold,
        prediction=record.prediction,
        status=record.status.value,
        correct=record.correct,
        error=record.error,
        raw_output=record.raw_output,
        usage=record.usage,
        timing=record.timing,
    )
    extra = {k: v for k, v in record.inputs.items() if k not in ("instruction", PROMPT)}
    if extra:
        row["inputs"] = extra  # decisions: the candidate ids, the image
    reference = record.inputs.get(PROMPT)
    if isinstance(reference, dict):
        row["prompt_sha256"] = reference.get("sha256")
        row["prompt"] = (prompts or {}).get(str(reference.get("sha256")))
    if record.truncated:  # which stored texts were cut to heedful.records.TEXT_LIMIT (length and sha256 of each)
        row["truncated"] = record.truncated
    return row


def run_rows(suite: str, records: Sequence[Record], prompts: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The typed rows of a run's export (heedful.report.export_schema): one JSON type per column, null if missing."""
    rows = [record_row(r, prompts) for r in records]
    keys = {k for r in records for k in r.keys}
    kinds: dict[str, ColumnType] = {}
    for row in rows:
        for column in row:
            if column not in kinds:
                declared = column_type(suite, column)
                kinds[column] = declared or (OTHER_KEY if column in keys else OTHER_SCORE)
    return typed_rows(rows, kinds)


def _dataset_rows(path: Path) -> list[dict[str, Any]]:
    from heedful.suites.registry import get_suite

    summary = json.loads((path / "dataset.json").read_text(encoding="utf-8"))
    if not isinstance(summary, dict) or not isinstance(summary.get("suite"), str):
        raise DatasetError(
            f"{path / 'dataset.json'} names no suite: write it with `heedful generate SUITE` (which records it), or "
            'add "suite": "<name>" to it'
        )
    suite = get_suite(summary["suite"])
    return [json.loads(ep.model_dump_json()) for ep in suite.load_dataset(path)]


def rows_of(source: Path) -> list[dict[str, Any]]:
    """Rows of a run directory (manifest.json) or a dataset directory (dataset.json)."""
    source = Path(source)
    if (source / "manifest.json").exists():
        from heedful.runner import load_run
        from heedful.runner.store import RECORDS_NAME, RunStore

        manifest, records = load_run(source)
        prompts: dict[str, str] = {}
        if (source / RECORDS_NAME).is_file():
            with RunStore(source) as store:
                prompts = store.prompt_texts()
        return run_rows(manifest.spec.suite, records, prompts)
    if (source / "dataset.json").exists():
        return _dataset_rows(source)
    raise DatasetError(f"{source} is neither a run directory (manifest.json) nor a dataset (dataset.json)")


def write_jsonl(rows: Iterable[dict[str, Any]], out: Path) -> None:
    with out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_parquet(rows: list[dict[str, Any]], out: Path) -> None:
    """Rows as a Parquet table; a run's rows are typed already (JSON text where nested), a dataset's nested
    fields become JSON text here. The export schema version is also in the file's metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    flat = [
        {k: (json.dumps(v) if k in NESTED and not isinstance(v, str) else v) for k, v in row.items()} for row in rows
    ]
    table = pa.Table.from_pylist(flat)
    if rows and "export_schema" in rows[0]:
        table = table.replace_schema_metadata({"heedful_export_schema": EXPORT_SCHEMA_VERSION})
    pq.write_table(table, out)


STDOUT = Path("-")
"""`--out -`: JSON lines on standard output (`heedful export RUN --format jsonl --out - | head`)."""


def export(source: Path, out: Path, fmt: str) -> int:
    """Write `source` to `out` in `fmt` ("jsonl" or "parquet"; `out` "-": JSON lines on stdout); returns the
    number of rows."""
    if out == STDOUT and fmt != "jsonl":
        raise ConfigError("--out - writes JSON lines to standard output: use --format jsonl, or name a .parquet file")
    rows = rows_of(source)
    if out == STDOUT:
        for row in rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        return len(rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        write_jsonl(rows, out)
    elif fmt == "parquet":
        write_parquet(rows, out)
    else:
        raise ConfigError(f"unknown export format {fmt!r}; choose jsonl or parquet")
    return len(rows)
