"""The closed planning loop of one episode: observe, ask the agent for a tool call, execute, repeat.

An agent is any object with `act(observation) -> reply` where `reply.text` holds the tool call
(see `tools.py`) and optional `reply.usage` / `reply.info` dicts. The loop ends when the agent says Done,
when the 600 steps are used up, or after `max_calls` calls. An answer that does not parse, or names a
tool that is not available now, ends the episode with status parse_error (never replaced by a guess).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from heedful.records import Status
from heedful.suites.household.executors import execute
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.observation import HouseholdObservation, build_observation
from heedful.suites.household.runtime import TaskEnv, ToolOutcome
from heedful.suites.household.scoring import EpisodeScore, score
from heedful.suites.household.tools import check_available, parse_tool

MAX_CALLS = 60


class PlannerAgent(Protocol):
    """A planner: chooses the next high-level tool call from the observation (closed loop).

    Agents keep no state between episodes; within an episode the observation carries the history.
    """

    name: str

    def act(self, observation: HouseholdObservation) -> Any: ...


@dataclass
class EpisodeRun:
    """What happened in one episode."""

    env: TaskEnv
    status: Status
    error: str | None
    replies: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    score: EpisodeScore | None = None

    @property
    def outcomes(self) -> list[ToolOutcome]:
        return self.env.history


def run_episode(
    episode: HouseholdEpisode,
    agent: PlannerAgent,
    seed: int,
    *,
    max_calls: int = MAX_CALLS,
    cell: float | None = None,
) -> EpisodeRun:
    """Roll one episode out with `agent` and score it."""
    env = TaskEnv.start(episode, cell=cell)
    run = EpisodeRun(env=env, status=Status.OK, error=None)
    for _ in range(max_calls):
        if env.done or env.sim.step >= env.sim.max_steps:
            break
        reply = agent.act(build_observation(env, seed))
        text = str(getattr(reply, "text", reply))
        run.replies.append(text)
        for key, value in dict(getattr(reply, "usage", {}) or {}).items():
            run.usage[key] = run.usage.get(key, 0) + int(value)
        run.info.update(dict(getattr(reply, "info", {}) or {}))
        parsed = parse_tool(text)
        if parsed.call is None:
            run.status, run.error = Status.PARSE_ERROR, parsed.reason
            break
        problem = check_available(env, parsed.call)
        if problem is not None:
            run.status, run.error = Status.PARSE_ERROR, f"invalid action {parsed.call.text!r}: {problem}"
            break
        env.history.append(execute(env, parsed.call))
    run.score = score(env)
    return run


def replay_actions(episode: HouseholdEpisode, actions: list[str], *, cell: float | None = None) -> TaskEnv:
    """Execute recorded tool calls again (the simulator is deterministic, so the trajectory repeats)."""
    env = TaskEnv.start(episode, cell=cell)
    for text in actions:
        parsed = parse_tool(text)
        if parsed.call is None or env.done:
            break
        env.history.append(execute(env, parsed.call))
    return env
