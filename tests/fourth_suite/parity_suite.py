"""A fourth suite, written as a third party would: one module, registered through entry points only.

`parity`: each episode shows a few numbers and says "pick the largest" or "pick the smallest". The scene alone
suggests nothing, so an agent that ignores the instruction (`parity/ignore`, always the largest) scores 50%.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from heedful.metrics.scoring import McNemar, Scoring
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.protocols import Agent, DecisionAgent
from heedful.records import Record, Status
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext
from heedful.suites.declared import DeclaredSuite
from heedful.suites.options import RunOptions
from heedful.suites.parts import Episodes, Options, Progress, RecordBase, Rollout

Instruction = Literal["pick the largest", "pick the smallest"]
Split = Literal["train", "test"]


class ParityEpisode(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    split: Split
    numbers: list[int]
    instruction: Instruction
    gold: int


class ParityOptions(RunOptions):
    reverse: StrictBool = Field(False, description="show the numbers in reverse order")


def generate(seed: int, config: Mapping[str, object], progress: Progress | None) -> list[ParityEpisode]:
    rng = np.random.default_rng(seed)
    episodes = []
    for i in range(int(str(config.get("episodes", 40)))):
        numbers = [int(n) for n in rng.choice(100, size=4, replace=False)]
        largest = i % 2 == 0
        instruction: Instruction = "pick the largest" if largest else "pick the smallest"
        gold = max(numbers) if largest else min(numbers)
        split: Split = "train" if i % 5 == 0 else "test"
        episodes.append(
            ParityEpisode(episode_id=f"p{i:03d}", split=split, numbers=numbers, instruction=instruction, gold=gold)
        )
    return episodes


def record_base(episode: ParityEpisode, context: RolloutContext) -> RecordBase:
    return RecordBase(keys={"instruction": episode.instruction, "split": episode.split}, gold=episode.gold)


def rollout(episode: ParityEpisode, agent: Agent, context: RolloutContext) -> Record:
    assert isinstance(agent, DecisionAgent)  # the runner gives this suite decision agents only
    numbers = episode.numbers[::-1] if context.options.get("reverse") else episode.numbers
    text = agent.decide({"numbers": numbers, "instruction": episode.instruction}).text
    ok = text.strip().lstrip("-").isdigit()
    base = record_base(episode, context)
    return Record(
        episode_id=episode.episode_id,
        index=context.index,
        keys=base.keys,
        gold=base.gold,
        status=Status.OK if ok else Status.PARSE_ERROR,
        raw_output=text,
        prediction=int(text) if ok else None,
        correct=ok and int(text) == episode.gold,
    )


accuracy = RecordMetric(
    name="accuracy",
    description="share of episodes answered with the right parity",
    unit="episode",
    value=lambda record: float(record.correct is True),
    binary=True,
)
SUITE = DeclaredSuite(
    name="parity",
    version="parity-v1",
    episodes=Episodes(
        ParityEpisode, generate, "parity-dataset/1", splits=("all", "train", "test"), check_config={"episodes": 8}
    ),
    options=Options(ParityOptions),
    rollout=Rollout(ParityEpisode, rollout, record_base, kinds=frozenset({"decision"})),
    scoring=Scoring(MetricSpec((accuracy,)), mcnemar=McNemar("accuracy", lambda r: r.correct is True, "episode")),
)


class OracleAgent:
    """Follows the instruction."""

    name = "oracle"

    def decide(self, observation: dict[str, Any]) -> AgentReply:
        pick = max if observation["instruction"] == "pick the largest" else min
        return AgentReply(str(pick(observation["numbers"])))


class IgnoreAgent:
    """Ignores the instruction: always the largest number (the shortcut the suite must not reward)."""

    name = "ignore"

    def decide(self, observation: dict[str, Any]) -> AgentReply:
        return AgentReply(str(max(observation["numbers"])))
