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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.capabilities import Capabilities, capabilities
from heedful.errors import ConfigError, InvalidActionError
from heedful.language.arms import FOLLOWED_GIVEN, FOLLOWED_SCENE, Arm
from heedful.records import Status
from heedful.replies import as_reply
from heedful.sims.tabletop.config import IMAGE_KEYS, RenderConfig
from heedful.sims.tabletop.motion import SkillResult
from heedful.suites.tabletop.arms import ground_other, shown_task
from heedful.suites.tabletop.model import Layout, TabletopTrial
from heedful.suites.tabletop.observation import observe
from heedful.suites.tabletop.perturb import perturb
from heedful.suites.tabletop.runtime import HorizonReachedError, TrialRuntime
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory
from heedful.suites.tabletop.skillcalls import SkillCallError, execute, parse_call

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


def trial_layout(trial: TabletopTrial) -> Layout:
    """The trial's initial scene: the task's layout perturbed by the trial seed."""
    task = trial.task
    return perturb(task.layout, task.spec, task.grounded, np.random.default_rng(trial.trial_seed))


def run_trial(
    trial: TabletopTrial,
    agent: Any,
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
    """
    task = trial.task
    run = TrialRun(layout=trial_layout(trial))
    seen = trial  # what the agent is given: the trial with the arm's words (the scene stays the trial's)
    if arm != "given":
        shown = shown_task(task, arm, seed, trial.other, run.layout)
        seen = trial.model_copy(update={"task": shown, "other": None, "episode_id": f"{shown.task}/t{trial.trial}"})
    cameras = (VIDEO_CAMERA,) if video_dir else ()
    declared = declared if declared is not None else capabilities(agent)
    # A controller trained on smaller images sees them rendered at that size (so does the video, then).
    size = declared.image_size if declared.kind == "controller" else None
    render = RenderConfig(width=size, height=size) if size is not None else None
    rt = TrialRuntime(run.layout, task.horizon, cameras=cameras, render=render)
    try:
        if declared.kind == "controller":
            _control(seen, agent, declared, rt, run, seed)
        elif declared.kind == "planner":
            _plan(seen, agent, rt, run, seed, max_calls, declared.privileged)
        else:
            raise ConfigError(f"agent {type(agent).__name__} has neither act() (planner) nor predict() (controller)")
        run.acting_steps = rt.steps
        rt.idle_to_horizon()
        run.steps = rt.steps
        traj = rt.trajectory()
        run.actions = traj.actions
        run.score = score_trajectory(traj, task.grounded, run.layout, task.scene)
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
    trial: TabletopTrial, agent: Any, rt: TrialRuntime, run: TrialRun, seed: int, max_calls: int, privileged: bool
) -> None:
    results: list[SkillResult] = []
    texts: list[str] = []
    for _ in range(max_calls):
        if rt.left <= 0:
            return
        obs = observe(rt.sim, trial.task, run.layout, results, texts, rt.horizon, seed, privileged=privileged)
        text = _merge_reply(run, agent.act(obs))
        try:
            call = parse_call(text, rt.sim.object_names)
        except SkillCallError as exc:
            run.status, run.error = Status.PARSE_ERROR, f"call {len(results) + 1}: {exc}"
            return
        if call.skill == "done":
            return
        start = rt.steps
        try:
            result = execute(call, rt.skills)
        except HorizonReachedError:
            result = SkillResult(call.skill, False, "the horizon was reached during the skill", rt.steps - start)
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


def _control(
    trial: TabletopTrial, agent: Any, declared: Capabilities, rt: TrialRuntime, run: TrialRun, seed: int
) -> None:
    if declared.begin_trial is not None:
        declared.begin_trial(trial if declared.privileged else None, seed)
    objects = _object_attributes(rt, run.layout) if declared.object_state else None
    _control_loop(trial, agent, declared.cameras, rt, run, objects)
    report = declared.trial_report
    if report is not None:
        info, timing = report()
        run.info.update(info)
        run.timing.update(timing)


def _control_loop(
    trial: TabletopTrial,
    agent: Any,
    wanted: tuple[str, ...] | None,
    rt: TrialRuntime,
    run: TrialRun,
    objects: tuple[dict[str, str], ...] | None = None,
) -> None:
    cameras = wanted if wanted is not None else tuple(IMAGE_KEYS)
    unknown = set(cameras) - set(IMAGE_KEYS)
    if unknown:
        raise ConfigError(f"controller cameras must be among {sorted(IMAGE_KEYS)}, got {sorted(unknown)}")
    agent.reset()
    agent.set_instruction(trial.task.instruction)
    while rt.left > 0:
        chunk = np.asarray(
            agent.predict(_controller_obs(rt, cameras, trial.task.instruction, objects)), dtype=np.float64
        )
        if chunk.ndim == 1:
            chunk = chunk[None, :]
        if chunk.ndim != 2 or chunk.shape[0] == 0:
            run.status, run.error = Status.PARSE_ERROR, f"predict returned shape {chunk.shape}, not (T, 7)"
            return
        try:
            for action in chunk[: rt.left]:
                rt.step(action)
        except InvalidActionError as exc:
            run.status, run.error = Status.PARSE_ERROR, f"invalid action at step {rt.steps}: {exc}"
            return


def _write_video(frames: np.ndarray, out: Path, episode_id: str) -> Path:
    from heedful.sims.tabletop.video import write_video

    out.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "__", episode_id)
    return write_video(frames, out / f"{safe}.mp4", fps=20.0)
