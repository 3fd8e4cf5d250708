"""Export a run (one row per record) or a dataset (one row per episode) as JSONL or Parquet.

JSONL keeps nested values (gold, prediction, state) as JSON; Parquet stores them as JSON text columns,
because a Parquet column has one type and a gold may be an id or a list of ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError, DatasetError
from heedful.records import Record

NESTED = {"gold", "prediction", "state", "candidates", "task", "usage", "agent_info", "timing", "scores", "truncated"}


def record_row(record: Record) -> dict[str, Any]:
    """A flat row: the record's fields with its grouping keys lifted to columns."""
    row: dict[str, Any] = {"episode_id": record.episode_id, "index": record.index}
    row.update(record.keys)
    row.update(record.scores)  # per-episode scores (household: success, spl, steps, ...) as columns too
    if "visual" in row:
        row["visual"] = row["visual"] == "true"
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
    if record.truncated:  # which stored texts were cut to heedful.records.TEXT_LIMIT (length and sha256 of each)
        row["truncated"] = record.truncated
    return row


def _dataset_rows(path: Path) -> list[dict[str, Any]]:
    from heedful.suites.registry import get_suite

    summary = json.loads((path / "dataset.json").read_text(encoding="utf-8"))
    suite = get_suite(str(summary.get("suite", "decisions")))
    return [ep.model_dump(mode="json") for ep in suite.load_dataset(path)]


def rows_of(source: Path) -> list[dict[str, Any]]:
    """Rows of a run directory (manifest.json) or a dataset directory (dataset.json)."""
    source = Path(source)
    if (source / "manifest.json").exists():
        from heedful.runner import load_run

        _, records = load_run(source)
        return [record_row(r) for r in records]
    if (source / "dataset.json").exists():
        return _dataset_rows(source)
    raise DatasetError(f"{source} is neither a run directory (manifest.json) nor a dataset (dataset.json)")


def write_jsonl(rows: Iterable[dict[str, Any]], out: Path) -> None:
    with out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_parquet(rows: list[dict[str, Any]], out: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    flat = [{k: (json.dumps(v) if k in NESTED else v) for k, v in row.items()} for row in rows]
    pq.write_table(pa.Table.from_pylist(flat), out)


def export(source: Path, out: Path, fmt: str) -> int:
    """Write `source` to `out` in `fmt` ("jsonl" or "parquet"); returns the number of rows."""
    rows = rows_of(source)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        write_jsonl(rows, out)
    elif fmt == "parquet":
        write_parquet(rows, out)
    else:
        raise ConfigError(f"unknown export format {fmt!r}; choose jsonl or parquet")
    return len(rows)
