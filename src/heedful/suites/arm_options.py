"""The `--instruction` run option every built-in suite shares (see `heedful.language.arms`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from heedful.errors import ConfigError
from heedful.language.reinstruct import parse_reinstruct
from heedful.suites.options import RunOptions, cli_flag


class InstructionArmOptions(RunOptions):
    """Base of a suite's run options that can show other words than the episode's instruction."""

    instruction: Literal["given", "empty", "shuffled", "other"] | None = Field(
        None,
        description="the words the agent is given: given (the episode's instruction, the default), empty, "
        "shuffled (its words in a seeded random order) or other (the instruction of another task on the same "
        "scene, scored against both tasks; see docs/language-dependence.md)",
    )


class ReinstructArmOptions(InstructionArmOptions):
    """Base of a suite's run options that can also change the instruction during the episode (tabletop, household)."""

    reinstruct: str | None = Field(
        None,
        description="change the instruction during the episode to another task of the same scene: at=FRACTION "
        "(of the budget) or after-first-choice; the new task is scored from the switch on, and whether the agent "
        "kept the old one (see docs/language-dependence.md)",
        json_schema_extra=cli_flag(metavar="at=FRACTION|after-first-choice"),
    )

    @field_validator("reinstruct")
    @classmethod
    def _known_rule(cls, value: str | None) -> str | None:
        try:
            parse_reinstruct(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from exc
        return value
