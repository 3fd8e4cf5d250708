"""The run options of the household suite (see `heedful.suites.options`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from heedful.sims.household.perception import NoiseRates
from heedful.suites.arm_options import ReinstructArmOptions
from heedful.suites.household.rollout import MAX_CALLS
from heedful.suites.options import cli_flag

_DEFAULT = NoiseRates()
Rate = Annotated[float, Field(ge=0.0, le=1.0)]
_NOISE = cli_flag(group="noise")


class HouseholdRunOptions(ReinstructArmOptions):
    """What enters the agent's semantic map, and how many tool calls it gets."""

    max_calls: StrictInt = Field(MAX_CALLS, ge=1, description="most tool calls an agent may make in one episode")
    perception: Literal["oracle", "noisy"] = Field(
        "oracle",
        description="what enters the agent's semantic map: oracle (exact) or noisy, a SIMULATED stand-in for "
        "learned segmentation (per-instance misses, look-alike confusions, phantom objects)",
    )
    detector: Literal["simulated"] | None = Field(
        None,
        description="noisy: the detector model; only 'simulated' (set automatically, recorded in the manifest)",
        json_schema_extra=cli_flag(hidden=True),
    )
    miss_rate: Rate | None = Field(
        None,
        description="noisy: probability the simulated detector misses an object instance "
        f"(default {_DEFAULT.miss_rate})",
        json_schema_extra=_NOISE,
    )
    false_positive_rate: Rate | None = Field(
        None,
        description="noisy: probability a receptacle carries a phantom object of a random category "
        f"(default {_DEFAULT.false_positive_rate})",
        json_schema_extra=_NOISE,
    )
    confusion_rate: Rate | None = Field(
        None,
        description="noisy: probability an object is reported as a look-alike category "
        f"(default {_DEFAULT.confusion_rate})",
        json_schema_extra=_NOISE,
    )
