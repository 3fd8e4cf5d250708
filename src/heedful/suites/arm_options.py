"""The `--instruction` run option every built-in suite shares (see `heedful.language.arms`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from heedful.suites.options import RunOptions


class InstructionArmOptions(RunOptions):
    """Base of a suite's run options that can show other words than the episode's instruction."""

    instruction: Literal["given", "empty", "shuffled", "other"] | None = Field(
        None,
        description="the words the agent is given: given (the episode's instruction, the default), empty, "
        "shuffled (its words in a seeded random order) or other (the instruction of another task on the same "
        "scene, scored against both tasks; see docs/language-dependence.md)",
    )
