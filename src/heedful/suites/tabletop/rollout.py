"""One trial with an agent: a fresh perturbed scene, the agent acting for a fixed horizon, the recorded
trajectory scored stage by stage.

Two kinds of agents act here:

- planners (`act(observation) -> reply`, reply.text a JSON skill call) choose skills in a closed loop until
  they answer `done`, the horizon is used up, or `max_calls` calls were made (12 by default);
- controllers (RoboFollow's policy interface: `reset()`, `set_instruction(text)`, `predict(obs)` returning
  an action chunk of shape (T, 7) in the simulator's `delta_eef` space) act step by step. `obs["step"]` is
  the control step; a controller that declares `image_size` gets its images rendered at that size.
  Optional hooks: `begin_trial(trial, seed)` before `reset` (the trial, i.e. the task and its layout, only for a
  controller that declares `privileged = True`, else None: every controller gets the seed; the remote agent forwards
  the trial only to servers that ask, i.e. `heedful serve`'s test peers, and records that it did) and
  `trial_report() -> (info, timing)` after the last chunk, merged into the record's `agent_info` and `timing`.

A planner's observation carries the ground truth (`privileged`) only when it declares `privileged = True`.

Whatever the agent does, the trial runs its full horizon: when the agent stops early the robot holds
still, and a policy that undoes its work after success is scored on what it did. An answer that is not a
valid skill call, or an action that is not a valid action, ends the agent's turn with status parse_error
(never replaced by a guess); the trajectory up to then is scored as it stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from heedful.capabilities import Capabilities, capabilities
from heedful.errors import ConfigError, InvalidActionError
from heedful.language.arms import FOLLOWED_GIVEN, FOLLOWED_SCENE, Arm
from heedful.protocols import Agent
from heedful.records import Status
from heedful.replies import as_reply
from heedful.sims.tabletop.config import IMAGE_KEYS, RenderConfig
from heedful.sims.tabletop.motion import SkillResult
from heedful.suites.tabletop.arms import ground_other, shown_task
from heedful.suites.tabletop.model import Layout, TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation, observe
from heedful.suites.tabletop.perturb import perturb
from heedful.suites.tabletop.runtime import HorizonReachedError, SwitchReachedError, TrialRuntime
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory
from heedful.suites.tabletop.skillcalls import SkillCallError, execute, parse_call
from heedful.suites.tabletop.switching import Switcher

MAX_CALLS = 12  # the expert needs at most 4 calls; a planner gets three times as many
VIDEO_CAMERA = "agentview"


@dataclass
class TrialRun:
    """What happened in one trial."""

    layout: Layout
    status: Status = Status.OK
    error: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    timing: dict[str, float] = field(default_factory=dict)
    acting_steps: int = 0
    steps: int = 0
    score: TrialScore | None = None
    video: str | None = None
    actions: NDArray[np.float64] | None = None  # (steps, 7): every action applied, the idle holds included
    followed: dict[str, float] = field(default_factory=dict)
    """`--instruction other`: whether the trajectory completed the shown words' task and the trial's own."""
    switch: dict[str, float] = field(default_factory=dict)
    """`--reinstruct`: switched, kept_old_task, old_done_at_switch (`heedful.suites.tabletop.switching`)."""
    switch_step: int | None = None


def trial_layout(trial: TabletopTrial) -> Layout:
    """The trial's initial scene: the task's layout perturbed by the trial seed."""
    task = trial.task
    return perturb(task.layout, task.spec, task.grounded, np.random.default_rng(trial.trial_seed))


@runtime_checkable
class _Planner(Protocol):
    """What a tabletop trial calls on a planner (`heedful.protocols.PlannerAgent` less its optional `name`)."""

    def act(self, observation: PlannerObservation) -> object: ...


@runtime_checkable
class _Controller(Protocol):
    """What a tabletop trial calls on a controller (`heedful.protocols.ControllerAgent` less its optional `name`)."""

    def reset(self) -> None: ...

    def set_instruction(self, instruction: str) -> None: ...

    def predict(self, observation: dict[str, Any]) -> object: ...


def run_trial(
    trial: TabletopTrial,
    agent: Agent,
    seed: int,
    video_dir: str | None = None,
    max_calls: int = MAX_CALLS,
    arm: Arm = "given",
    declared: Capabilities | None = None,
) -> TrialRun:
    """Roll one trial out with `agent` and score it.

    Args:
        trial: The trial (task and trial seed).
        agent: A planner (`act`) or a controller (`predict`).
        seed: Per-episode randomness for the agent (from the run seed and the episode id).
        video_dir: Write the agentview video of the trial there (MP4).
        max_calls: The most skill calls a planner may make.
        arm: The words the agent is given (`heedful.suites.tabletop.arms`); the trial is scored on its own task,
            and under `other` also on the substitute's (`run.followed`).
        declared: The agent's declarations as the run read them (None: read here).

    A trial with a switch (`trial.switch`, `--reinstruct`) changes its instruction during the trial and is scored on
    the new task from the switch on (`heedful.suites.tabletop.switching`; `run.switch`).
    """
    task = trial.task
    run = TrialRun(layout=trial_layout(trial))
    seen = trial  # what the agent is given: the trial with the arm's words (the scene stays the trial's)
    if arm != "given":
        shown = shown_task(task, arm, seed, trial.other, run.layout)
        seen = trial.model_copy(update={"task": shown, "other": None, "episode_id": f"{shown.task}/t{trial.trial}"})
    switcher = Switcher.of(trial, seed, run.layout)
    if trial.switch is not None:
        seen = seen.model_copy(update={"switch": None})  # the agent learns of the switch when it comes
    cameras = (VIDEO_CAMERA,) if video_dir else ()
    declared = declared if declared is not None else capabilities(agent)
    # A controller trained on smaller images sees them rendered at that size (so does the video, then).
    size = declared.image_size if declared.kind == "controller" else None
    render = RenderConfig(width=size, height=size) if size is not None else None
    rt = TrialRuntime(run.layout, task.horizon, cameras=cameras, render=render)
    try:
        if declared.kind == "controller" and isinstance(agent, _Controller):
            _control(seen, agent, declared, rt, run, seed, switcher)
        elif declared.kind == "planner" and isinstance(agent, _Planner):
            _plan(seen, agent, rt, run, seed, max_calls, declared.privileged, switcher)
        else:
            raise ConfigError(f"agent {type(agent).__name__} has neither act() (planner) nor predict() (controller)")
        run.acting_steps = rt.steps
        rt.idle_to_horizon()
        run.steps = rt.steps
        traj = rt.trajectory()
        run.actions = traj.actions
        run.score = score_trajectory(traj, task.grounded, run.layout, task.scene)
        if switcher is not None:
            run.score, run.switch = switcher.scores(traj, run.layout, run.score)
            run.switch_step = switcher.step
        if arm == "other" and trial.other is not None:
            grounded = ground_other(trial.other, run.layout)  # what the shown words ask in this layout
            other = None if grounded is None else score_trajectory(traj, grounded, run.layout, task.scene)
            run.followed = {
                FOLLOWED_GIVEN: float(other is not None and other.complete),
                FOLLOWED_SCENE: float(run.score.complete),
            }
        if video_dir:
            run.video = str(_write_video(traj.frames[VIDEO_CAMERA], Path(video_dir), trial.episode_id))
    finally:
        rt.close()
    return run


def _merge_reply(run: TrialRun, answer: object) -> str:
    reply = as_reply(answer)
    run.replies.append(reply.text)
    for key, value in reply.usage.items():
        run.usage[key] = run.usage.get(key, 0) + int(value)
    run.info.update(reply.info)
    return reply.text


def _plan(
    trial: TabletopTrial,
    agent: _Planner,
    rt: TrialRuntime,
    run: TrialRun,
    seed: int,
    max_calls: int,
    privileged: bool,
    switcher: Switcher | None = None,
) -> None:
    results: list[SkillResult] = []
    texts: list[str] = []
    task = trial.task
    for _ in range(max_calls):
        if switcher is not None and switcher.due(rt):
            switcher.make(rt, len(results))
            task = switcher.new_task
        if rt.left <= 0:
            return
        since = switcher.calls_before if switcher is not None and not switcher.pending else 0
        obs = observe(rt.sim, task, run.layout, results, texts, rt.horizon, seed, privileged=privileged, since=since)
        text = _merge_reply(run, agent.act(obs))
        try:
            call = parse_call(text, rt.sim.object_names)
        except SkillCallError as exc:
            run.status, run.error = Status.PARSE_ERROR, f"call {len(results) + 1}: {exc}"
            return
        if call.skill == "done":
            if switcher is None or not switcher.pending:
                return
            _hold_until(rt, switcher.target)  # done before the switch: asked again when it comes
            switcher.make(rt, len(results))
            task = switcher.new_task
            continue
        start = rt.steps
        if switcher is not None and switcher.pending:
            rt.interrupt = lambda: switcher.comes_now(rt)
        try:
            result = execute(call, rt.skills)
        except HorizonReachedError:
            result = SkillResult(call.skill, False, "the horizon was reached during the skill", rt.steps - start)
        except SwitchReachedError:
            result = SkillResult(call.skill, False, "cut short: the instruction changed", rt.steps - start)
        finally:
            rt.interrupt = None
        results.append(result)
        texts.append(call.text())
        run.calls.append({"call": call.text(), "ok": result.success, "reason": result.reason, "start": start})


def _controller_obs(
    rt: TrialRuntime, cameras: tuple[str, ...], instruction: str, objects: tuple[dict[str, str], ...] | None
) -> dict[str, Any]:
    obs: dict[str, Any] = {IMAGE_KEYS[c]: rt.sim.render(c) for c in cameras}
    obs["state"] = rt.sim.state_vector()
    obs["prompt"] = instruction
    obs["step"] = rt.steps
    if objects is not None:  # declared `object_state`: poses in scene order, and what each object is
        obs["object_poses"] = rt.sim.object_poses()
        obs["objects"] = objects
    return obs


def _object_attributes(rt: TrialRuntime, layout: Layout) -> tuple[dict[str, str], ...]:
    specs = {o.name: o for o in layout.objects}
    return tuple(
        {"name": n, "shape": specs[n].shape, "color": specs[n].color, "size": specs[n].size}
        for n in rt.sim.object_names
    )


def _hold_until(rt: TrialRuntime, step: int | None) -> None:
    """Hold still until control step `step` (or the horizon); at once when `step` is None."""
    end = rt.horizon if step is None else min(step, rt.horizon)
    while rt.steps < end:
        rt.step(rt.hold_action())


def _control(
    trial: TabletopTrial,
    agent: _Controller,
    declared: Capabilities,
    rt: TrialRuntime,
    run: TrialRun,
    seed: int,
    switcher: Switcher | None = None,
) -> None:
    if declared.begin_trial is not None:
        declared.begin_trial(trial if declared.privileged else None, seed)
    objects = _object_attributes(rt, run.layout) if declared.object_state else None
    announce = None
    if switcher is not None and declared.begin_trial is not None and declared.privileged:
        begin = declared.begin_trial
        announce = lambda: begin(switcher.announced(trial), seed)  # noqa: E731
    _control_loop(trial, agent, declared.cameras, rt, run, objects, switcher, announce)
    report = declared.trial_report
    if report is not None:
        info, timing = report()
        run.info.update(info)
        run.timing.update(timing)


def _control_loop(
    trial: TabletopTrial,
    agent: _Controller,
    wanted: tuple[str, ...] | None,
    rt: TrialRuntime,
    run: TrialRun,
    objects: tuple[dict[str, str], ...] | None = None,
    switcher: Switcher | None = None,
    announce: Callable[[], None] | None = None,
) -> None:
    cameras = wanted if wanted is not None else tuple(IMAGE_KEYS)
    unknown = set(cameras) - set(IMAGE_KEYS)
    if unknown:
        raise ConfigError(f"controller cameras must be among {sorted(IMAGE_KEYS)}, got {sorted(unknown)}")
    agent.reset()
    words = trial.task.instruction
    agent.set_instruction(words)
    while rt.left > 0:
        if switcher is not None and switcher.due(rt):
            switcher.make(rt)
            words = switcher.new_task.instruction
            agent.set_instruction(words)
            if announce is not None:
                announce()
        chunk = np.asarray(agent.predict(_controller_obs(rt, cameras, words, objects)), dtype=np.float64)
        if chunk.ndim == 1:
            chunk = chunk[None, :]
        if chunk.ndim != 2 or chunk.shape[0] == 0:
            run.status, run.error = Status.PARSE_ERROR, f"predict returned shape {chunk.shape}, not (T, 7)"
            return
        try:
            _apply(chunk, rt, switcher)
        except InvalidActionError as exc:
            run.status, run.error = Status.PARSE_ERROR, f"invalid action at step {rt.steps}: {exc}"
            return


def _apply(chunk: NDArray[np.float64], rt: TrialRuntime, switcher: Switcher | None) -> None:
    """Step a chunk; a pending switch cuts it at its step (at=) or right after the first grasp (first choice)."""
    limit = rt.left
    watch_grasp = False
    if switcher is not None and switcher.pending:
        target = switcher.target
        watch_grasp = target is None
        if target is not None:
            limit = min(limit, max(target - rt.steps, 0))
    for action in chunk[:limit]:
        rt.step(action)
        if watch_grasp and rt.sim.held_object() is not None:
            return


def _write_video(frames: np.ndarray, out: Path, episode_id: str) -> Path:
    from heedful.sims.tabletop.video import write_video

    out.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "__", episode_id)
    return write_video(frames, out / f"{safe}.mp4", fps=20.0)
