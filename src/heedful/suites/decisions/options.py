"""The run options of the decisions suite (see `heedful.suites.options`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from heedful.suites.arm_options import InstructionArmOptions
from heedful.suites.options import cli_flag


class DecisionsRunOptions(InstructionArmOptions):
    """How a decisions run shows its episodes."""

    mask: StrictBool = Field(
        False, description="feed the agent masked instructions (task-critical words removed; validity control)"
    )
    condition: Literal["structured", "visual", "paraphrase"] = Field(
        "structured",
        description="how the state is shown: structured (object list with positions), visual (an image instead "
        "of the object list; visual subset only; needs --dataset generated with --images) or paraphrase (the "
        "hand-written paraphrases of test instructions instead of the template wording; paraphrased subset only)",
    )
    subset: Literal["all", "visual", "paraphrase"] | None = Field(
        None,
        description="run only the visual or the paraphrased families in their template wording (e.g. a run to "
        "compare with a visual or paraphrase one); implied by --condition visual / paraphrase",
    )
    image_root: str | None = Field(
        None,
        description="directory the episodes' image paths are relative to (set from the dataset for condition=visual)",
        json_schema_extra=cli_flag(hidden=True),
    )
