"""A toy suite and agent for the runner tests.

It lives in a real module so that spawned worker processes can import it. Faults are switched on through
environment variables (inherited by workers) so that a run and its resume share one spec:

- HEEDFUL_TOY_DELAY: seconds the agent sleeps per episode;
- HEEDFUL_TOY_DOWN: "interface" or "timeout": the agent fails on every third episode;
- HEEDFUL_TOY_HANG_FROM: the agent hangs (60 s) on every episode from this number on;
- HEEDFUL_TOY_HANGDIR: a hanging episode first touches a file named by its number here;
- HEEDFUL_TOY_INTERRUPT_AT: raise KeyboardInterrupt on the episode with this number;
- HEEDFUL_TOY_EXIT_AT: a worker process exits abruptly on the episode with this number;
- HEEDFUL_TOY_BREAK_WORKERS: building the agent fails inside worker processes;
- HEEDFUL_TOY_PIDDIR: each process that runs an episode touches a file named by its pid here;
- HEEDFUL_TOY_COMMIT_EVERY: the subprocess run commits every this many records (and never by time);
- HEEDFUL_TOY_DEVICEDIR: each agent built touches a file named by its process's worker index and the GPU that plain
  "cuda" gives it among two (`heedful.devices.spread_device`), e.g. `1-cuda:1`.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from heedful.capabilities import AGENT_KINDS
from heedful.devices import spread_device, worker_index
from heedful.errors import AgentInterfaceError, AgentTimeoutError
from heedful.metrics.scoring import Scoring
from heedful.metrics.spec import MetricSpec
from heedful.protocols import Agent
from heedful.records import Record, Status
from heedful.runner import RunSpec, load_run, run
from heedful.runner.commits import CommitPolicy
from heedful.suites.base import RolloutContext
from heedful.suites.declared import DeclaredSuite
from heedful.suites.parts import Episodes, RecordBase, Rollout

SUITE_NAME = "toy-runner"
AGENT_NAME = "toy-runner-agent"
SUITE_TARGET = "runner_toy:SUITE"
AGENT_TARGET = "runner_toy:ToyAgent"
FAULT_VARS = (
    "HEEDFUL_TOY_DELAY",
    "HEEDFUL_TOY_DOWN",
    "HEEDFUL_TOY_HANG_FROM",
    "HEEDFUL_TOY_INTERRUPT_AT",
    "HEEDFUL_TOY_EXIT_AT",
    "HEEDFUL_TOY_BREAK_WORKERS",
    "HEEDFUL_TOY_PIDDIR",
    "HEEDFUL_TOY_HANGDIR",
    "HEEDFUL_TOY_COMMIT_EVERY",
    "HEEDFUL_TOY_DEVICEDIR",
)


class ToyEpisode(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: str = "toy-episode/1"
    episode_id: str
    number: int
    split: Literal["train", "test"]
    answer: int


def make_episodes(n: int = 24) -> list[ToyEpisode]:
    return [
        ToyEpisode(
            episode_id=f"toy-{i:04d}",
            number=i,
            split="train" if i % 4 == 0 else "test",
            answer=(i * 7 + 3) % 10,
        )
        for i in range(n)
    ]


def toy_hash(episodes: Sequence[BaseModel]) -> str:
    digest = hashlib.sha256()
    for episode in episodes:
        digest.update(episode.model_dump_json().encode() + b"\n")
    return digest.hexdigest()[:16]


def toy_record_base(episode: ToyEpisode, context: RolloutContext) -> RecordBase:
    return RecordBase(keys={"split": episode.split}, gold=episode.answer)


def toy_rollout(episode: ToyEpisode, agent: Agent, context: RolloutContext) -> Record:
    assert isinstance(agent, ToyAgent)
    guess, draw = agent.act(episode, context.seed)
    return Record(
        episode_id=episode.episode_id,
        index=context.index,
        status=Status.OK,
        keys={"split": episode.split},
        gold=episode.answer,
        prediction=guess,
        correct=guess == episode.answer,
        scores={"draw": draw},
        agent_info={"bias": agent.bias, "mask": bool(context.options.get("mask", False))},
    )


SUITE = DeclaredSuite(
    name=SUITE_NAME,
    version="toy-runner-v1",
    episodes=Episodes(
        ToyEpisode,
        lambda seed, config, progress: make_episodes(int(str(config.get("n", 24)))),
        "toy-runner-dataset/1",
        content_hash=toy_hash,
    ),
    # the runner's tests interrupt, hang and exit at numbered episodes: they run in dataset order
    rollout=Rollout(ToyEpisode, toy_rollout, toy_record_base, kinds=frozenset(AGENT_KINDS), order="dataset"),
    scoring=Scoring(MetricSpec(())),
)
"""The toy suite (its report: the status rows only)."""


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value else None


def _inject_faults(episode: ToyEpisode) -> None:
    piddir = os.environ.get("HEEDFUL_TOY_PIDDIR")
    if piddir:
        (Path(piddir) / str(os.getpid())).touch()
    time.sleep(float(os.environ.get("HEEDFUL_TOY_DELAY") or 0))
    hang_from = _env_int("HEEDFUL_TOY_HANG_FROM")
    if hang_from is not None and episode.number >= hang_from:
        hangdir = os.environ.get("HEEDFUL_TOY_HANGDIR")
        if hangdir:
            (Path(hangdir) / str(episode.number)).touch()
        time.sleep(60)
    if episode.number == _env_int("HEEDFUL_TOY_INTERRUPT_AT"):
        raise KeyboardInterrupt
    if episode.number == _env_int("HEEDFUL_TOY_EXIT_AT") and multiprocessing.parent_process() is not None:
        os._exit(3)
    down = os.environ.get("HEEDFUL_TOY_DOWN")
    if down and episode.number % 3 == 0:
        if down == "timeout":
            raise AgentTimeoutError("toy server did not answer in 0.1 s")
        raise AgentInterfaceError("toy server is down")


class ToyAgent:
    """Guesses from a generator seeded by the rollout context, so determinism is really exercised."""

    name = "toy"

    def __init__(self, crash_every: int = 0) -> None:
        if os.environ.get("HEEDFUL_TOY_BREAK_WORKERS") and multiprocessing.parent_process() is not None:
            raise RuntimeError("toy agent refuses to start in a worker")
        self.crash_every = crash_every
        self.bias: int | None = None
        if devices := os.environ.get("HEEDFUL_TOY_DEVICEDIR"):
            (Path(devices) / f"{worker_index()}-{spread_device('cuda', count=2)}").touch()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "crash_every": self.crash_every}

    def fit(self, train: Sequence[ToyEpisode]) -> None:
        self.bias = sum(e.answer for e in train) % 10

    def act(self, episode: ToyEpisode, seed: int) -> tuple[int, float]:
        _inject_faults(episode)
        if self.bias is None:
            raise RuntimeError("the toy agent was not fitted")
        if self.crash_every and episode.number % self.crash_every == 1:
            raise ValueError(f"boom on {episode.episode_id}")
        rng = np.random.default_rng(seed)
        draw = float(rng.random())
        guess = int(rng.integers(0, 10)) if draw < 0.5 else (episode.answer + self.bias) % 10
        return guess, draw


def toy_spec(episodes: Sequence[Any], **changes: Any) -> RunSpec:
    """A spec for the toy suite and agent on `episodes`, with `changes` applied."""
    fields: dict[str, Any] = {
        "suite": SUITE_NAME,
        "suite_version": SUITE.version,
        "dataset_hash": SUITE.dataset_hash(episodes),
        "dataset_source": "generated:seed=0",
        "agent": AGENT_NAME,
        "agent_args": {},
        "seed": 7,
        "options": {"mask": True},
        "limit": None,
    }
    fields.update(changes)
    return RunSpec(**fields)


def stored(run_dir: Path) -> list[dict[str, Any]]:
    """deterministic_dict of every record stored in `run_dir`, by index."""
    return [r.deterministic_dict() for r in load_run(run_dir)[1]]


def reference(spec: RunSpec, episodes: Sequence[Any], run_dir: Path) -> list[dict[str, Any]]:
    """deterministic_dict of every record of an uninterrupted serial run."""
    run(spec, episodes, run_dir, progress=False)
    return stored(run_dir)


def main() -> None:
    """Subprocess entry point: `python -c "import runner_toy; runner_toy.main()" SPEC DIR WORKERS N`."""
    from heedful.agents.registry import AGENTS
    from heedful.suites.registry import SUITES

    spec_json, run_dir, workers, n = sys.argv[1:5]
    SUITES.register(SUITE_NAME, SUITE_TARGET)
    AGENTS.register(AGENT_NAME, AGENT_TARGET)
    spec = RunSpec.model_validate_json(spec_json)
    start_at = float(os.environ.get("HEEDFUL_TOY_START_AT") or 0)
    time.sleep(max(0.0, start_at - time.time()))  # a start barrier, so that two processes really race
    every = _env_int("HEEDFUL_TOY_COMMIT_EVERY")
    commit = None if every is None else CommitPolicy(records=every, seconds=3600.0)
    run(spec, make_episodes(int(n)), Path(run_dir), workers=int(workers), progress=False, commit=commit)
