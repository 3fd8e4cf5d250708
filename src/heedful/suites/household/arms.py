"""Instruction arms of the household suite (see `heedful.language.arms`).

The arms act on the instruction (`HouseholdEpisode.instruction`, what the human asks); the rest of what the human
says (an S_hum human's "I will be ...", the S_obj relocation statements) belongs to the situation and stays.

`other` shows the instruction of another task of the same house in the run's selection (preferring one of the same
task type that asks for another object or another goal), chosen by `choose_other` and carried with the episode
(`HouseholdRunEpisode.other`); the dataset hash leaves it out, so the arms of one selection pair. Under `other`
the episode runs with the substitute's words, target category and goal (`shown`), which is what a privileged
agent (the oracle) reads; the house, the objects, the human and the scoring of the main record are the episode's
own, and the episode is also scored on the substitute's goal (`FOLLOWED_GIVEN`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from heedful.errors import ConfigError
from heedful.language.arms import Arm, choose_other, shown_instruction
from heedful.seeding import episode_token
from heedful.suites.household.model import Goal, HouseholdEpisode

OTHER_KEY = '"other":{"episode_id":'
"""How a run episode's JSON line holds its substitute (`parse_episode` reads a line without it as a dataset line)."""
SWITCH_KEY = '"switch":{"to":'
"""... and its `--reinstruct` switch."""


class OtherTask(BaseModel):
    """The task whose words an episode shows under `other`: its instruction, target category and goal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    instruction: str
    target_category: str
    goal: Goal


class HouseholdSwitch(BaseModel):
    """Under `--reinstruct`: the task whose words the episode switches to, and the rule (`language.reinstruct`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    to: OtherTask
    rule: str


class HouseholdRunEpisode(HouseholdEpisode):
    """A dataset line as a run rolls it out: under `other`, with its substitute; under `--reinstruct`, with its switch
    (each left out of the JSON when None)."""

    other: SkipJsonSchema[OtherTask | None] = Field(default=None, exclude_if=lambda value: value is None)
    switch: SkipJsonSchema[HouseholdSwitch | None] = Field(default=None, exclude_if=lambda value: value is None)


def with_switches(episodes: Sequence[HouseholdEpisode], rule: str) -> list[HouseholdRunEpisode]:
    """Each episode with a switch (`--reinstruct`) to the task `--instruction other` would show it."""
    return [
        HouseholdRunEpisode(**{**ep.__dict__, "other": None, "switch": HouseholdSwitch(to=ep.other, rule=rule)})
        for ep in with_others(episodes)
        if ep.other is not None
    ]


def switch_of(episode: HouseholdEpisode) -> HouseholdSwitch | None:
    return episode.switch if isinstance(episode, HouseholdRunEpisode) else None


def switched(episode: HouseholdEpisode, to: OtherTask, seed: int) -> HouseholdEpisode:
    """The episode as the agent is given it after a switch: the new words, target category and goal (the dataset id
    replaced by the episode's opaque token, as under `other`)."""
    update = {"instruction": to.instruction, "target_category": to.target_category, "goal": to.goal}
    return episode.model_copy(update={"episode_id": episode_token(seed), **update})


def with_others(episodes: Sequence[HouseholdEpisode]) -> list[HouseholdRunEpisode]:
    """Each episode with its substitute from another task of the same house (see the module docstring).

    Raises:
        ConfigError: an episode is the only one of its house.
    """
    houses: dict[str, list[HouseholdEpisode]] = defaultdict(list)
    for ep in episodes:
        houses[ep.house_id].append(ep)
    out = []
    for ep in episodes:
        pool = [d for d in houses[ep.house_id] if d.instruction != ep.instruction]
        asks_else = [d for d in pool if (d.target_category, d.goal) != (ep.target_category, ep.goal)]
        same_type = [d for d in asks_else if d.task_type == ep.task_type]
        donor = choose_other(ep.episode_id, pool, prefer=same_type or asks_else)
        if donor is None:
            raise ConfigError(
                f"episode {ep.episode_id} is the only task of its house in this selection; --instruction other "
                "needs another one to take words from (select a larger split)"
            )
        other = OtherTask(
            episode_id=donor.episode_id,
            instruction=donor.instruction,
            target_category=donor.target_category,
            goal=donor.goal,
        )
        out.append(HouseholdRunEpisode(**{**ep.__dict__, "other": other}))
    return out


def other_of(episode: HouseholdEpisode) -> OtherTask | None:
    return episode.other if isinstance(episode, HouseholdRunEpisode) else None


def shown(episode: HouseholdEpisode, arm: Arm, seed: int) -> HouseholdEpisode:
    """The episode as the agent is given it under `arm` (see the module docstring)."""
    if arm == "given":
        return episode
    other = other_of(episode)
    if arm == "other" and other is None:
        raise ConfigError(f"episode {episode.episode_id} carries no substitute; build the run with episodes_for_run")
    update: dict[str, Any] = {
        "episode_id": episode_token(seed),  # the dataset's id would let a privileged agent look the words up
        "instruction": shown_instruction(arm, episode.instruction, seed, other.instruction if other else None),
    }
    if arm == "other" and other is not None:
        update.update(target_category=other.target_category, goal=other.goal)
    return episode.model_copy(update=update)
