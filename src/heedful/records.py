"""The outcome of one episode. Records are what runs store and what every metric reads."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

RECORD_SCHEMA_VERSION = "heedful-record/1"

JSONValue = Any  # a value that round-trips through json.dumps / json.loads


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
    timing: dict[str, float] = Field(default_factory=dict)

    def deterministic_dict(self) -> dict[str, JSONValue]:
        """Everything but timing: equal for two runs with the same seed, whatever the backend."""
        return self.model_dump(mode="json", exclude={"timing"})
