"""Instruction arms of the decisions suite (see `heedful.language.arms`).

`other` shows the instruction of another family on the same anchor: the same state and the same candidates
(every family of an anchor shares them), with the same decision type (so the answer format stays), preferring a
family whose gold differs from the episode's (so that following the words and following the scene can be told
apart). The substitute travels with the episode (`DecisionRunEpisode.other`), so every backend shows the same;
the dataset hash leaves it out, so the runs of every arm pair in `heedful compare`.

A privileged agent (the oracle) reads the constraint set, not the words: under `other` it gets the substitute's,
under `empty` and `shuffled` the episode's own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from heedful.errors import ConfigError
from heedful.language.arms import FOLLOWED_GIVEN, FOLLOWED_SCENE, OTHER_EPISODE, Arm, choose_other, shown_instruction
from heedful.suites.decisions.model import Decision, DecisionEpisode, Task

OTHER_KEY = '"other":{"episode_id":'
"""How a run episode's JSON line holds its substitute (`parse_episode` reads a line without it as a dataset line)."""


class OtherTask(BaseModel):
    """The family whose instruction an episode shows under `other`: its words, constraint set and gold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    instruction: str
    task: Task | None
    gold: Decision


class DecisionRunEpisode(DecisionEpisode):
    """A dataset line as a run rolls it out: under `other`, with its substitute (left out of the JSON when None,
    so a line without it reads and writes exactly as a `DecisionEpisode`)."""

    other: SkipJsonSchema[OtherTask | None] = Field(default=None, exclude_if=lambda value: value is None)


def check_arm_options(options: dict[str, Any], arm: Arm) -> None:
    if arm != "given" and options.get("mask"):
        raise ConfigError("--mask is its own instruction arm (masked words); drop --instruction or --mask")
    if arm == "other" and options.get("condition") == "paraphrase":
        raise ConfigError("the paraphrase condition shows paraphrases; --instruction other shows template wording")


def with_others(episodes: Sequence[DecisionEpisode]) -> list[DecisionRunEpisode]:
    """Each episode with the substitute `choose_other` picks among the same-anchor families of its decision type."""
    by_anchor: dict[tuple[str, str], list[DecisionEpisode]] = defaultdict(list)
    for ep in episodes:
        by_anchor[(ep.anchor_id, ep.decision_type)].append(ep)
    out = []
    for ep in episodes:
        pool = [d for d in by_anchor[(ep.anchor_id, ep.decision_type)] if d.family_id != ep.family_id]
        pool = [d for d in pool if d.candidates == ep.candidates]  # the same candidates: one answer space
        donor = choose_other(ep.episode_id, pool, prefer=[d for d in pool if d.gold != ep.gold])
        if donor is None:
            raise ConfigError(
                f"episode {ep.episode_id} has no other family of its decision type on anchor {ep.anchor_id} to take "
                "words from; --instruction other needs a dataset with several families per anchor"
            )
        other = OtherTask(episode_id=donor.episode_id, instruction=donor.instruction, task=donor.task, gold=donor.gold)
        out.append(DecisionRunEpisode(**{**ep.__dict__, "other": other}))
    return out


def shown(episode: DecisionEpisode, arm: Arm, seed: int) -> DecisionEpisode:
    """The episode as the agent sees it under `arm`: the words (and for `other` the constraint set a privileged
    agent reads) replaced; state, candidates and gold are the scene's."""
    if arm == "given":
        return episode
    other = episode.other if isinstance(episode, DecisionRunEpisode) else None
    if arm == "other" and other is None:
        raise ConfigError(f"episode {episode.episode_id} carries no substitute; build the run with episodes_for_run")
    text = shown_instruction(arm, episode.instruction, seed, other.instruction if other else None)
    update: dict[str, Any] = {"instruction": text}
    if arm == "other" and other is not None:
        update["task"] = other.task
    return episode.model_copy(update=update)


def arm_inputs(episode: DecisionEpisode, arm: Arm) -> dict[str, Any]:
    """What a record adds under `other`: which episode's words were shown."""
    other = episode.other if isinstance(episode, DecisionRunEpisode) else None
    return {OTHER_EPISODE: other.episode_id} if arm == "other" and other is not None else {}


def arm_scores(episode: DecisionEpisode, arm: Arm, decision: Any, ok: bool) -> dict[str, float]:
    """Under `other`: whether the decision is the substitute's gold and whether it is the episode's own."""
    other = episode.other if isinstance(episode, DecisionRunEpisode) else None
    if arm != "other" or other is None:
        return {}
    return {
        FOLLOWED_GIVEN: float(ok and decision == other.gold),
        FOLLOWED_SCENE: float(ok and decision == episode.gold),
    }
