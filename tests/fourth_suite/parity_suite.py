"""A fourth suite, written as a third party would: one module, registered through entry points only.

`parity`: each episode shows a few numbers and says "pick the largest" or "pick the smallest". The scene alone
suggests nothing, so an agent that ignores the instruction (`parity/ignore`, always the largest) scores 50%.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from heedful.metrics.scoring import McNemar, Scoring
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.records import Record, Status
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext, SuiteBase
from heedful.suites.episode_files import read_episodes, write_dataset
from heedful.suites.options import RunOptions


class ParityEpisode(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    split: Literal["train", "test"]
    numbers: list[int]
    instruction: Literal["pick the largest", "pick the smallest"]
    gold: int


class ParityOptions(RunOptions):
    reverse: StrictBool = Field(False, description="show the numbers in reverse order")


class ParitySuite(SuiteBase):
    name = "parity"
    version = "parity-v1"
    accuracy = RecordMetric(
        name="accuracy",
        description="share of episodes answered with the right parity",
        unit="episode",
        value=lambda record: float(record.correct is True),
        binary=True,
    )
    scoring = Scoring(MetricSpec((accuracy,)), mcnemar=McNemar("accuracy", lambda r: r.correct is True, "episode"))
    run_options = ParityOptions
    splits = ("all", "train", "test")
    agent_kinds = ("decision",)
    check_config = {"episodes": 8}  # noqa: RUF012

    def generate(
        self, seed: int, config: dict[str, Any] | None = None, progress: Callable[[int, int], Any] | None = None
    ) -> list[ParityEpisode]:
        rng = np.random.default_rng(seed)
        episodes = []
        for i in range(int((config or {}).get("episodes", 40))):
            numbers = [int(n) for n in rng.choice(100, size=4, replace=False)]
            largest = i % 2 == 0
            instruction = "pick the largest" if largest else "pick the smallest"
            gold = max(numbers) if largest else min(numbers)
            split = "train" if i % 5 == 0 else "test"
            episodes.append(
                ParityEpisode(episode_id=f"p{i:03d}", split=split, numbers=numbers, instruction=instruction, gold=gold)
            )
        return episodes

    def load_dataset(self, path: Path, *, verify: bool = True) -> list[ParityEpisode]:
        return read_episodes(path, ParityEpisode, suite=self.name, verify=verify)

    def save_dataset(self, episodes: Sequence[Any], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
        return write_dataset(episodes, out, dataset_format=self.version, meta=meta, counts={"instances": len(episodes)})

    def episode_schema(self) -> str:
        import json

        return json.dumps(ParityEpisode.model_json_schema())

    def parse_episode(self, text: str) -> ParityEpisode:
        return ParityEpisode.model_validate_json(text)

    def training_episodes(self, episodes: Sequence[Any]) -> list[Any]:
        return [ep for ep in episodes if ep.split == "train"]

    def rollout(self, episode: ParityEpisode, agent: Any, context: RolloutContext) -> Record:
        numbers = episode.numbers[::-1] if context.options.get("reverse") else episode.numbers
        text = agent.decide({"numbers": numbers, "instruction": episode.instruction}).text
        ok = text.strip().lstrip("-").isdigit()
        return self._record(
            episode,
            context,
            status=Status.OK if ok else Status.PARSE_ERROR,
            raw_output=text,
            prediction=int(text) if ok else None,
            correct=ok and int(text) == episode.gold,
        )

    def failure_record(self, episode: ParityEpisode, context: RolloutContext, status: Status, error: str) -> Record:
        return self._record(episode, context, status=status, error=error)

    def _record(self, episode: ParityEpisode, context: RolloutContext, **fields: Any) -> Record:
        keys = {"instruction": episode.instruction, "split": episode.split}
        return Record(episode_id=episode.episode_id, index=context.index, keys=keys, gold=episode.gold, **fields)


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
