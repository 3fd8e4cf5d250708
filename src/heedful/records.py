"""The outcome of one episode. Records are what runs store and what every metric reads."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from heedful.errors import SchemaVersionError
from heedful.redact import has_secret, redact_value

RECORD_SCHEMA_VERSION = "heedful-record/1"
READABLE_RECORD_SCHEMAS = (RECORD_SCHEMA_VERSION,)
"""The record schema versions this heedful reads."""
_CURRENT_START = json.dumps({"schema_version": RECORD_SCHEMA_VERSION}, separators=(",", ":"))[:-1]
"""How every record this heedful writes begins (`schema_version` is its first field): a stored body that begins so is
read without parsing it twice."""
TEXT_LIMIT = 65_536
"""The most characters of one text a record stores (a model's raw output, an answer in `agent_info`, an error).
A longer text keeps its first TEXT_LIMIT characters; `Record.truncated` gives the full length and sha256."""
_BOUNDED_FIELDS = ("raw_output", "error", "agent_info")

JSONValue = Any  # a value that round-trips through json.dumps / json.loads

AgentDescription = dict[str, JSONValue]
"""An agent's description (its `describe()`, else its name), as the run manifest stores it: a JSON object."""


class Status(StrEnum):
    """How an episode ended. Only `ok` and `parse_error` are scored; the others are failures of the
    harness or of the agent's transport and are reported separately, never as wrong answers."""

    OK = "ok"
    PARSE_ERROR = "parse_error"
    INTERFACE_ERROR = "interface_error"
    TIMEOUT = "timeout"
    CRASHED = "crashed"

    @property
    def scored(self) -> bool:
        return self in (Status.OK, Status.PARSE_ERROR)


def _is_empty(value: Any) -> bool:
    return isinstance(value, dict) and not value


def _is_none(value: Any) -> bool:
    return value is None


class Record(BaseModel):
    """One episode's outcome.

    `keys` carries the episode's grouping fields (family, role, category, split, ...) and `gold` its
    ground truth, so that reports are computed from the run alone. `timing` is the only field that
    differs between two runs with the same seed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: str = RECORD_SCHEMA_VERSION
    episode_id: str
    index: int = Field(description="Position of the episode in its dataset; records sort by it.")
    status: Status
    error: str | None = Field(default=None, description="What went wrong, for every status but ok.")
    keys: dict[str, str] = Field(default_factory=dict)
    gold: JSONValue = None
    raw_output: str | None = None
    prediction: JSONValue = None
    correct: bool | None = Field(default=None, description="None when the episode was not scored.")
    scores: dict[str, float] = Field(default_factory=dict)
    usage: dict[str, int] = Field(default_factory=dict)
    agent_info: dict[str, JSONValue] = Field(default_factory=dict)
    # `inputs` and `truncated` are left out of the JSON when empty: records without them serialize exactly as
    # before the fields existed (field-level, so serialization stays in pydantic-core: a Python wrap serializer
    # cost a third of a cheap episode's record)
    inputs: dict[str, JSONValue] = Field(
        default_factory=dict,
        exclude_if=_is_empty,
        description="What the agent was given: the instruction (as shown: masked under --mask), the candidate ids, "
        "and `prompt`, a reference {sha256} to the exact prompt a language agent sent (its text is stored once per "
        "distinct prompt in the run's record store, see RunStore.prompt_text). Empty in records made before it.",
    )
    timing: dict[str, float] = Field(default_factory=dict)
    truncated: dict[str, dict[str, JSONValue]] | None = Field(
        default=None,
        exclude_if=_is_none,
        description="Texts cut to TEXT_LIMIT characters, by field path (e.g. raw_output, "
        "agent_info.model_queries.3.answer): each with the full length in characters and the sha256 of its UTF-8.",
    )

    @model_validator(mode="before")
    @classmethod
    def _bound_texts(cls, data: Any) -> Any:
        # a 20 MB model reply is judged by the suite in full, but a record keeps only its head and fingerprint
        if not isinstance(data, dict):
            return data
        cuts: dict[str, dict[str, JSONValue]] = dict(data.get("truncated") or {})
        bounded = {name: _bounded(data[name], name, cuts) for name in _BOUNDED_FIELDS if name in data}
        # a key a server echoed into an error or a reply is never stored (heedful.redact)
        changed = {name: redact_value(value) for name, value in bounded.items() if has_secret(value)}
        if len(cuts) == len(data.get("truncated") or {}):
            return {**data, **changed} if changed else data
        return {**data, **bounded, **changed, "truncated": cuts}

    def deterministic_dict(self) -> dict[str, JSONValue]:
        """Everything but timing: equal for two runs with the same seed, whatever the backend."""
        return self.model_dump(mode="json", exclude={"timing"})


PROMPT = "prompt"
"""The key of `Record.inputs` (and of an agent reply's `info`) that references the exact prompt."""


def prompt_reference(messages: Sequence[tuple[str, str]], images: Sequence[bytes] = ()) -> dict[str, str]:
    """The exact chat messages as {"sha256", "text"}: `text` is one `[role]` section per message (images named
    by their sha256). The run store keeps each distinct text once and the record only its sha256."""
    parts = [f"[{role}]\n{content}" for role, content in messages]
    parts += [f"[image] sha256:{hashlib.sha256(image).hexdigest()}" for image in images]
    text = "\n\n".join(parts)
    return {"sha256": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), "text": text}


def _bounded(value: Any, path: str, cuts: dict[str, dict[str, JSONValue]]) -> Any:
    """`value` with every string longer than TEXT_LIMIT cut to it; each cut noted in `cuts` under its path."""
    if isinstance(value, str):
        if len(value) <= TEXT_LIMIT:
            return value
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        cuts[path] = {"chars": len(value), "sha256": digest}
        return value[:TEXT_LIMIT]
    if isinstance(value, dict):
        return {key: _bounded(item, f"{path}.{key}", cuts) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_bounded(item, f"{path}.{i}", cuts) for i, item in enumerate(value))
    return value


def unreadable_schema(body: str) -> str | None:
    """The schema version a stored record's JSON `body` declares when this heedful does not read it (`"none"` when it
    declares none); None for a readable version, or for a body that is not a JSON object (damaged, not newer)."""
    if body.startswith(_CURRENT_START):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    found = data.get("schema_version")
    if found in READABLE_RECORD_SCHEMAS:
        return None
    return "none" if found is None else repr(found)


def check_record_schemas(found: dict[str, str], where: str) -> None:
    """Refuse records whose schema this heedful does not read (`found`: episode id -> `unreadable_schema`).

    Raises:
        SchemaVersionError: naming `where`, the episodes, the versions found and those this heedful reads.
    """
    if not found:
        return
    versions = ", ".join(sorted(set(found.values())))
    shown = ", ".join(repr(e) for e in sorted(found)[:5]) + (" ..." if len(found) > 5 else "")
    raise SchemaVersionError(
        f"{len(found)} records of {where} ({shown}) have schema_version {versions}; this heedful reads "
        f"{', '.join(READABLE_RECORD_SCHEMAS)}: a newer heedful wrote them (upgrade heedful: pip install --upgrade "
        "heedful, or read them with the heedful that wrote them), or they were not written by heedful (run the "
        "episodes again with this heedful into a new --out)"
    )
