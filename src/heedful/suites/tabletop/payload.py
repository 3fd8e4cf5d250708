"""The tabletop record payload: what one trial did (its skill calls), how each stage was judged, and where the
first stage was lost (`failed_on`: intent or execution, RoboFollow's split of understanding from motor failure).

The suite builds it through the model (so every record it writes has this shape) and stores `as_prediction()`;
`TrialPayload.read` rebuilds and validates one (an edited record fails with the field that is wrong). The metrics
read the record's `scores`, not this payload. Controllers make no skill calls.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt


class FailedOn(StrEnum):
    """Which part of the first stage not fully earned was lost."""

    INTENT = "intent"
    EXECUTION = "execution"


class SkillCallEntry(BaseModel):
    """One skill call of a planner: its text, whether the skill achieved its goal, why not, its first step."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    call: str
    ok: StrictBool
    reason: str
    start: StrictInt


class StageEntry(BaseModel):
    """One stage after gating (see `suites/tabletop/scoring.py`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    weight: StrictFloat
    intent: StrictBool
    execution: StrictBool
    detail: str


class TrialPayload(BaseModel):
    """`Record.prediction` of a scored tabletop trial."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    calls: list[SkillCallEntry]
    stages: list[StageEntry]
    failed_stage: str | None
    failed_on: FailedOn | None
    completion: str
    disturbed: list[str] = []
    """Objects the task does not name that the trial moved, dropped or toppled (issue 38)."""
    disturbance: str = ""
    acting_steps: StrictInt
    steps: StrictInt
    layout: list[tuple[str, float, float]]
    """Each object's name and start position (m) in the trial's perturbed layout."""
    video: str | None

    def as_prediction(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def read(cls, prediction: Any) -> TrialPayload | None:
        """The payload of a record's prediction; None for a trial that was not scored (no prediction)."""
        return None if prediction is None else cls.model_validate(prediction)
