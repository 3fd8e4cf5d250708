"""Mid-episode re-instruction: `heedful run SUITE --reinstruct at=FRACTION|after-first-choice` (issue 42).

The episode starts with its own instruction; at the switch the agent is given the instruction of another task of
the same scene (tabletop: the same scene and layout; household: the same house), chosen by the same seeded rule as
`--instruction other` and recorded. When the switch comes (each suite applies it at the agent's next decision
point, see docs/language-dependence.md):

- `at=FRACTION` (0 < FRACTION < 1): once FRACTION of the episode's budget is used (tabletop: of the horizon's
  control steps; household: of the task's oracle steps), or earlier, when the agent says it is done;
- `after-first-choice`: once the agent has made its first choice (tabletop: an object is first held between the
  fingers; household: the first tool call has been executed), or earlier, when the agent says it is done.

The record's main score is the new task's, judged from the switch on; beside it `SWITCHED` (the switch came),
`KEPT_OLD` (the old task was met at the end although it was not at the switch) and `OLD_DONE` (the old task was
already met at the switch).
"""

from __future__ import annotations

from dataclasses import dataclass

from heedful.errors import ConfigError

OPTION = "reinstruct"
"""The run option (`--reinstruct`)."""

SWITCHED = "switched"
"""Record score: 1 when the new instruction reached the agent (the switch came before the episode ended)."""
KEPT_OLD = "kept_old_task"
"""Record score: 1 when the old task was met at the end of the episode and was not yet met at the switch."""
OLD_DONE = "old_done_at_switch"
"""Record score: 1 when the old task was already met at the switch."""
SCORED_FROM = "new_task_scored_from"
"""Record score: the step from which the new task is scored (the switch, or after the hand-over; tabletop)."""
SWITCH_EPISODE = "reinstruct_episode"
"""Record input: the dataset id of the task whose instruction the switch gives."""
SWITCH_INSTRUCTION = "reinstruct_instruction"
"""Record input: the words the switch gives."""
SWITCH_STEP = "switch_step"
"""Record input: the step (tabletop: control step; household: simulator step) at which the switch reached the
agent; absent when it never came."""


@dataclass(frozen=True)
class Reinstruct:
    """A parsed `--reinstruct` rule: `at` a fraction of the budget, or the agent's first choice (`at` None)."""

    at: float | None

    @property
    def text(self) -> str:
        return "after-first-choice" if self.at is None else f"at={self.at:g}"


def parse_reinstruct(value: object) -> Reinstruct | None:
    """The rule a run's `reinstruct` option names (None when absent).

    Raises:
        ConfigError: not `at=FRACTION` with 0 < FRACTION < 1, nor `after-first-choice`.
    """
    if value is None:
        return None
    text = str(value).strip()
    if text == "after-first-choice":
        return Reinstruct(at=None)
    if text.startswith("at="):
        try:
            at = float(text[3:])
        except ValueError:
            at = -1.0
        if 0.0 < at < 1.0:
            return Reinstruct(at=at)
    raise ConfigError(
        f"--reinstruct takes at=FRACTION (0 < FRACTION < 1, e.g. at=0.5) or after-first-choice, got {text!r}"
    )


def reinstruct_of(options: dict[str, object]) -> Reinstruct | None:
    """The rule of a run's options, refusing its combination with an instruction arm other than `given`."""
    rule = parse_reinstruct(options.get(OPTION))
    if rule is not None and options.get("instruction", "given") not in (None, "given"):
        raise ConfigError("--reinstruct changes the episode's own instruction; run it without --instruction/--arms")
    return rule
