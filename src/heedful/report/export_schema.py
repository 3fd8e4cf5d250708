"""The typed, versioned columns of a run's export (`heedful export RUN`; `heedful schema SUITE --export` prints them).

Every column has one JSON type in every row, in JSONL as in Parquet: booleans are booleans, counts integers,
scores numbers, a missing value is null (every row has every column of the export). Values whose shape differs
between rows (gold, prediction: an id or a list of ids; usage, timing, inputs: objects with varying keys) are
exported as JSON text (`json` columns: parse them with json.loads). Each row carries `export_schema`, the version of
these columns: a column that changes type is a new version, noted in CHANGELOG.md.

/1 (until issue 44) had no version, nested values as JSON in JSONL but as text in Parquet, and household's
`ambiguous` as the strings "true" / "false" / "n/a"; /2 is this module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from heedful.suites.parts import ColumnType  # declared with the suites: each suite's view types its own columns

EXPORT_SCHEMA_VERSION = "heedful-export/2"


COMMON: dict[str, ColumnType] = {
    "export_schema": "string",
    "episode_id": "string",
    "index": "integer",
    "instruction": "string",
    "gold": "json",
    "prediction": "json",
    "status": "string",
    "correct": "boolean",
    "error": "string",
    "raw_output": "string",
    "usage": "json",
    "timing": "json",
    "inputs": "json",
    "prompt_sha256": "string",
    "prompt": "string",
    "truncated": "json",
}
"""The columns of every suite's run export (`instruction`, `inputs` and the prompt columns may be all null)."""

REQUIRED = ("export_schema", "episode_id", "index", "status")
"""Columns that are never null."""


def _declared(suite: str) -> tuple[Mapping[str, ColumnType], Mapping[str, ColumnType]]:
    """(columns, patterns) the suite's view declares (`View.export_columns`, `export_patterns`); none for a suite that
    is not registered or not declared."""
    from heedful.errors import UnknownNameError
    from heedful.suites.declared import DeclaredSuite
    from heedful.suites.registry import get_suite

    try:
        found = get_suite(suite)
    except UnknownNameError:
        return {}, {}
    if not isinstance(found, DeclaredSuite):
        return {}, {}
    return found.view.export_columns, found.view.export_patterns


OTHER_KEY: ColumnType = "string"
"""A grouping key a suite did not declare (a third-party suite): its string."""
OTHER_SCORE: ColumnType = "number"


def column_type(suite: str, column: str) -> ColumnType | None:
    """The declared type of `column` in `suite`'s export, or None when neither declared nor matched by a pattern."""
    if column in COMMON:
        return COMMON[column]
    declared, patterns = _declared(suite)
    if column in declared:
        return declared[column]
    for pattern, kind in patterns.items():
        if re.match(pattern, column):
            return kind
    return None


def typed(kind: ColumnType, value: Any) -> Any:
    """`value` as a `kind` column holds it (None stays None; "n/a" is a missing boolean)."""
    if value is None:
        return None
    if kind == "json":
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        return {"true": True, "false": False}.get(str(value).lower())
    if kind == "integer":
        return int(value)
    if kind == "number":
        return float(value)
    return str(value)


def typed_rows(rows: Sequence[Mapping[str, Any]], kinds: Mapping[str, ColumnType]) -> list[dict[str, Any]]:
    """Every row with every column (in first-seen order, missing ones null), each value typed by `kinds`."""
    columns: dict[str, None] = dict.fromkeys(["export_schema"])
    for row in rows:
        columns.update(dict.fromkeys(row))
    return [
        {"export_schema": EXPORT_SCHEMA_VERSION}
        | {c: typed(kinds[c], row.get(c)) for c in columns if c != "export_schema"}
        for row in rows
    ]


def json_schema(suite: str) -> dict[str, Any]:
    """The export's columns as a JSON Schema of one row (what `heedful schema SUITE --export` prints)."""
    names = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "json": "string"}

    def prop(column: str, kind: ColumnType) -> dict[str, Any]:
        types = names[kind] if column in REQUIRED else [names[kind], "null"]
        entry: dict[str, Any] = {"type": types}
        if kind == "json":
            entry["contentMediaType"] = "application/json"
        return entry

    declared, patterns = _declared(suite)
    columns = {**COMMON, **declared}
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"one row of `heedful export` of a {suite} run",
        "description": f"{EXPORT_SCHEMA_VERSION}: every column one JSON type, missing values null; json columns "
        "hold JSON text. Keys a suite does not declare are strings, scores it does not declare numbers.",
        "type": "object",
        "properties": {c: prop(c, k) for c, k in columns.items()},
        "required": list(REQUIRED),
    }
    schema["properties"]["export_schema"]["const"] = EXPORT_SCHEMA_VERSION
    if patterns:
        schema["patternProperties"] = {p: prop(p, k) for p, k in patterns.items()}
    schema["additionalProperties"] = {"type": ["string", "number", "null"]}
    return schema


def table_problems(suite: str, table: Any) -> list[str]:
    """What in a pyarrow Table read from a run's export (JSONL or Parquet) does not match `suite`'s export schema:
    a column of another Arrow type, a null in a required column, a wrong `export_schema`. Empty when it matches."""
    import pyarrow as pa

    arrow: dict[ColumnType, tuple[Any, ...]] = {
        "string": (pa.string(), pa.large_string()),
        "json": (pa.string(), pa.large_string()),
        "integer": (pa.int64(),),
        "number": (pa.float64(),),
        "boolean": (pa.bool_(),),
    }
    problems = []
    for name in table.column_names:
        column = table.column(name)
        kind = column_type(suite, name) or (OTHER_SCORE if pa.types.is_floating(column.type) else OTHER_KEY)
        if column.type != pa.null() and column.type not in arrow[kind]:
            problems.append(f"{name}: {column.type}, the schema says {kind}")
        if name in REQUIRED and column.null_count:
            problems.append(f"{name}: {column.null_count} nulls in a required column")
    for name in REQUIRED:
        if name not in table.column_names:
            problems.append(f"{name}: missing")
    if "export_schema" in table.column_names and set(table.column("export_schema").to_pylist()) != {
        EXPORT_SCHEMA_VERSION
    }:
        problems.append(f"export_schema: not {EXPORT_SCHEMA_VERSION}")
    return problems


def file_problems(suite: str, path: Any) -> list[str]:
    """`table_problems` of an export file read with pyarrow (.jsonl: pyarrow.json, .parquet: pyarrow.parquet)."""
    from pathlib import Path

    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        found = (table.schema.metadata or {}).get(b"heedful_export_schema")
        extra = [] if found == EXPORT_SCHEMA_VERSION.encode() else [f"parquet metadata: export schema {found!r}"]
        return extra + table_problems(suite, table)
    import pyarrow.json as pj

    return table_problems(suite, pj.read_json(path))
