"""The run options of the tabletop suite (see `heedful.suites.options`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, StrictInt

from heedful.suites.arm_options import ReinstructArmOptions
from heedful.suites.options import cli_flag
from heedful.suites.tabletop.model import Level
from heedful.suites.tabletop.perturb import TRIALS
from heedful.suites.tabletop.rollout import MAX_CALLS


def _not_a_switch(value: Any) -> Any:
    # True == 1 in Python: a Literal[1, ...] field would take a boolean for scene 1
    if isinstance(value, bool):
        raise ValueError("a scene is 1, 2, 3 or 4, not a boolean")
    return value


Scene = Annotated[Literal[1, 2, 3, 4], BeforeValidator(_not_a_switch)]


class TabletopRunOptions(ReinstructArmOptions):
    """Which tasks a tabletop run covers, how often, and what it writes besides records."""

    level: list[Level] | Level | None = Field(None, description="run this level only (repeatable; default all)")
    scene: list[Scene] | Scene | None = Field(None, description="run this scene only (repeatable; default all)")
    trials: StrictInt = Field(TRIALS, ge=1, description="trials per task (RoboFollow's protocol)")
    video_dir: str | None = Field(
        None,
        description="write an agentview MP4 of every trial to OUT/videos",
        json_schema_extra=cli_flag(flag="--video", out_subdir="videos"),
    )
    max_calls: StrictInt = Field(MAX_CALLS, ge=1, description="most skill calls a planner may make in one trial")
