"""The closed planning loop of one episode: observe, ask the agent for a tool call, execute, repeat.

An agent is a `heedful.protocols.PlannerAgent`: `act(observation)` answers with an `AgentReply` (or a str)
whose `text` holds the tool call (see `tools.py`). The loop ends when the agent says Done,
when the 600 steps are used up, or after `max_calls` calls. An answer that does not parse, or names a
tool that is not available now, ends the episode with status parse_error (never replaced by a guess).

An agent that talks to a model also gives the model queries in its reply (`AgentReply.queries`)
of that call (kind, raw answer, what it was read as, tokens), and may end the episode itself, either as a
parse error the agent found (`parse_error`, e.g. an unreadable plan) or for a reason of its own (`end`,
e.g. its model-call limit). Only agents that declare `privileged = True` see the live state.
`EpisodeRun.ended_by` says why the loop stopped: done, step_limit, tool_call_limit, parse_error or the
agent's own `end` reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from heedful.capabilities import Capabilities, capabilities
from heedful.language.arms import FOLLOWED_GIVEN, FOLLOWED_SCENE, Arm
from heedful.protocols import PlannerAgent
from heedful.records import Status
from heedful.replies import AgentReply, as_reply
from heedful.sims.household.perception import Detector
from heedful.suites.household.arms import shown
from heedful.suites.household.executors import execute
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.observation import HouseholdObservation, build_observation
from heedful.suites.household.runtime import TaskEnv, ToolOutcome
from heedful.suites.household.scoring import EpisodeScore, score
from heedful.suites.household.switching import Switcher
from heedful.suites.household.tools import check_available, parse_tool

MAX_CALLS = 60


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
    queries: list[dict[str, Any]] = field(default_factory=list)
    ended_by: str = ""
    followed: dict[str, bool] = field(default_factory=dict)
    """`--instruction other`: whether the episode met the shown words' goal and its own (status not considered)."""
    switch: dict[str, float] = field(default_factory=dict)
    """`--reinstruct`: switched, kept_old_task, old_done_at_switch (`heedful.suites.household.switching`)."""
    switch_step: int | None = None

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
    detector: Detector | None = None,
    arm: Arm = "given",
    declared: Capabilities | None = None,
) -> EpisodeRun:
    """Roll one episode out with `agent` and score it (`detector`: simulated noisy perception; None: oracle).

    `arm`: the words the agent is given (`heedful.suites.household.arms`): the episode runs with them, and is scored
    on its own goal (under `other` also on the shown words' goal, `run.followed`). `declared`: the agent's declarations
    as the run read them (None: read here)."""
    env = TaskEnv.start(shown(episode, arm, seed), cell=cell, detector=detector)
    run = EpisodeRun(env=env, status=Status.OK, error=None)
    privileged = (declared if declared is not None else capabilities(agent)).privileged
    memory: dict[str, Any] = {}  # the agent's per-episode scratch (see observation.py)
    switcher = Switcher.of(episode, seed)
    for _ in range(max_calls):
        if switcher is not None and switcher.due(env):
            switcher.make(env)
        if _finished(env):
            break
        observation = build_observation(env, seed, privileged=privileged, memory=memory, scene=episode)
        reply = as_reply(_act(agent, observation, run))
        if not _take(reply, run):
            break
        parsed = parse_tool(reply.text)
        if parsed.call is None:
            run.status, run.error, run.ended_by = Status.PARSE_ERROR, parsed.reason, "parse_error"
            break
        if parsed.call.name == "done" and switcher is not None and switcher.pending:
            switcher.make(env)  # done before the switch: asked again with the new words
            continue
        problem = check_available(env, parsed.call)
        if problem is not None:
            run.status, run.ended_by = Status.PARSE_ERROR, "parse_error"
            run.error = f"invalid action {parsed.call.text!r}: {problem}"
            break
        env.history.append(execute(env, parsed.call))
    run.ended_by = run.ended_by or _finished(env) or "tool_call_limit"
    run.score = score(env if env.episode is episode else replace(env, episode=episode))  # the episode's own goal
    if arm == "other":
        run.followed = {FOLLOWED_GIVEN: score(env).success, FOLLOWED_SCENE: run.score.success}
    if switcher is not None:
        run.score, run.switch = switcher.scores(env, run.score)
        run.switch_step = switcher.step
    return run


def _finished(env: TaskEnv) -> str | None:
    """Why the episode cannot go on ("done" or "step_limit"), or None."""
    if env.done and env.history and env.history[-1].action == "Done":
        return "done"
    if env.done or env.sim.step >= env.sim.max_steps:
        return "step_limit"
    return None


def _act(agent: PlannerAgent, observation: HouseholdObservation, run: EpisodeRun) -> object:
    try:
        return agent.act(observation)
    except Exception as exc:
        # a transport error carries what its request spent: add what the episode spent before it
        spent = getattr(exc, "usage", None)
        if isinstance(spent, dict):
            for key, value in run.usage.items():
                spent[key] = spent.get(key, 0) + value
        raise


def _take(reply: AgentReply, run: EpisodeRun) -> bool:
    """Book the reply (text or model queries, usage, info); False when it ends the episode."""
    if reply.queries is None:
        run.replies.append(reply.text)
    else:
        run.replies.extend(str(q.get("answer", "")) for q in reply.queries)
        run.queries.extend(reply.queries)
    for key, value in reply.usage.items():
        run.usage[key] = run.usage.get(key, 0) + int(value)
    run.info.update(reply.info)
    if reply.parse_error:
        run.status, run.error, run.ended_by = Status.PARSE_ERROR, reply.parse_error, "parse_error"
        return False
    if reply.end:
        run.ended_by = reply.end
        return False
    return True
