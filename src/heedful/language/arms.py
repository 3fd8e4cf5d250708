"""Instruction arms: which words an agent is given in place of an episode's instruction.

`heedful run SUITE --instruction ARM` (issue 42) asks whether an agent uses the words at all:

- `given`: the episode's own instruction (the default; records identical to a run without the option);
- `empty`: the empty string;
- `shuffled`: the same words in a random order, drawn from the episode's seed (run seed and episode id), so
  every backend shows the same order;
- `other`: the instruction of another task on the same scene (each suite says which: tabletop the same scene and
  layout, household the same house, decisions another family on the same anchor), chosen by `choose_other` from
  the episode id alone, so every run and every agent gets the same substitute, and recorded in the record.

Only the words change: the scene, the gold and the episode's main score stay the original task's. Under `other`
the suite also scores the episode against the substituted task (`FOLLOWED_GIVEN`) and the original one
(`FOLLOWED_SCENE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar

from heedful.errors import ConfigError
from heedful.seeding import derive_rng, stable_hash

Arm = Literal["given", "empty", "shuffled", "other"]
ARMS: tuple[Arm, ...] = ("given", "empty", "shuffled", "other")
OPTION = "instruction"
"""The run option that names the arm (`--instruction`)."""

FOLLOWED_GIVEN = "followed_given"
"""Record score under `other`: 1 when the episode met the substituted task (the words the agent was given)."""
FOLLOWED_SCENE = "followed_scene"
"""Record score under `other`: 1 when the episode met the original task (what the scene was set up for)."""
OTHER_EPISODE = "other_episode"
"""Record input under `other`: the dataset id of the task whose instruction was shown."""

T = TypeVar("T")


def arm_of(options: dict[str, object]) -> Arm:
    """The arm a run's options ask for ("given" when the option is absent)."""
    value = options.get(OPTION, "given")
    if value not in ARMS:
        raise ConfigError(f"unknown instruction arm {value!r}; choose one of {', '.join(ARMS)}")
    return value


def parse_arms(text: str) -> list[Arm]:
    """`--arms given,empty,other` as a list of distinct arms, in the order given."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ConfigError(f"--arms takes a comma-separated list of {', '.join(ARMS)}, got {text!r}")
    arms: list[Arm] = []
    for name in names:
        arm = arm_of({OPTION: name})
        if arm in arms:
            raise ConfigError(f"--arms names {arm!r} twice")
        arms.append(arm)
    return arms


def shuffle_words(text: str, seed: int) -> str:
    """The words of `text` (split at white space, punctuation kept with its word) in a seeded random order.

    A permutation that leaves the words in place is replaced by a rotation when the words are not all equal, so
    that `shuffled` never shows the instruction unchanged."""
    words = text.split()
    if len(set(words)) < 2:
        return " ".join(words)
    order = [int(i) for i in derive_rng(seed, "instruction-shuffle").permutation(len(words))]
    shuffled = [words[i] for i in order]
    if shuffled == words:
        shuffled = words[1:] + words[:1]
    return " ".join(shuffled)


def shown_instruction(arm: Arm, original: str, seed: int, other: str | None = None) -> str:
    """The words an agent is given under `arm` (`other`: the substitute chosen for the episode)."""
    if arm == "given":
        return original
    if arm == "empty":
        return ""
    if arm == "shuffled":
        return shuffle_words(original, seed)
    if other is None:
        raise ConfigError("the `other` arm needs a substitute instruction; build the run with episodes_for_run")
    return other


def choose_other(episode_id: str, candidates: Sequence[T], *, prefer: Sequence[T] = ()) -> T | None:
    """The substitute for one episode: one of `prefer` (those that ask for something else) if any, else of
    `candidates`, picked by a hash of the episode id (the same in every run; None when there is none)."""
    pool = list(prefer) or list(candidates)
    if not pool:
        return None
    return pool[stable_hash(f"instruction-other/{episode_id}", len(pool))]
