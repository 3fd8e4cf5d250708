"""What a planner sees before each skill call: the instruction, the objects as they are now, the gripper,
the calls so far with their outcomes, and the skills it may call (with a JSON Schema for structured output).

`privileged` holds the task and the trial's initial layout for scripted baselines (oracle, blind); the rollout
fills it only for agents that declare `privileged = True` (see `heedful.capabilities`), every other agent gets None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from heedful.errors import ConfigError
from heedful.seeding import episode_token
from heedful.sims.tabletop.motion import SkillResult
from heedful.sims.tabletop.sim import TabletopSim
from heedful.suites.tabletop.language import NOUNS
from heedful.suites.tabletop.model import Layout, TabletopTask
from heedful.suites.tabletop.skillcalls import DESCRIPTIONS, SKILLS, skill_call_schema


@dataclass(frozen=True)
class ObjectView:
    """One object as it is now."""

    name: str
    description: str
    x: float
    y: float
    z: float
    yaw_deg: float


@dataclass(frozen=True)
class CallOutcome:
    """A call made earlier in the episode and what came of it."""

    call: str
    success: bool
    reason: str
    steps: int


@dataclass(frozen=True)
class Privileged:
    """Ground truth for scripted baselines only."""

    task: TabletopTask
    layout: Layout


@dataclass(frozen=True)
class PlannerObservation:
    """One planning step of one trial."""

    episode_id: str
    instruction: str
    objects: tuple[ObjectView, ...]
    gripper: tuple[float, float, float]
    holding: str | None
    history: tuple[CallOutcome, ...]
    steps_used: int
    steps_left: int
    seed: int
    privileged: Privileged | None
    schema: dict[str, Any] = field(default_factory=dict)
    instruction_since: int = 0
    """`--reinstruct`: how many of the calls so far were made before the instruction changed (0: it never did)."""

    def ground_truth(self) -> Privileged:
        """The task and the trial's layout, handed only to an agent that declares `privileged = True`.

        Raises:
            ConfigError: the agent reading it did not declare it (the rollout handed it None).
        """
        if self.privileged is None:
            raise ConfigError(
                "this agent reads the ground truth (task and layout) but does not declare `privileged = True`; "
                "declare it (the run is then marked 'privileged: not a language agent') or read only the observation"
            )
        return self.privileged

    @property
    def object_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.objects)

    @property
    def text(self) -> str:
        """The observation as a prompt."""
        lines = [f"Instruction: {self.instruction}", "", "Objects on the table:"]
        lines += [
            f"- {o.name}: {o.description} at x={o.x:.3f}, y={o.y:.3f}, z={o.z:.3f}, yaw {o.yaw_deg:.0f} deg"
            for o in self.objects
        ]
        held = f", holding {self.holding}" if self.holding else ", holding nothing"
        gx, gy, gz = self.gripper
        lines += ["", f"Gripper at x={gx:.3f}, y={gy:.3f}, z={gz:.3f}{held}."]
        lines.append(f"Control steps used: {self.steps_used}; left: {self.steps_left}.")
        if self.history:
            lines += ["", "Calls so far:"]
            lines += [
                f"{i}. {h.call} -> {'ok' if h.success else 'failed'}: {h.reason}" for i, h in enumerate(self.history, 1)
            ]
        if self.instruction_since:
            lines.append(
                f"The instruction changed after call {self.instruction_since}: the calls up to it were made "
                "for an earlier instruction."
            )
        lines += ["", 'Answer with one skill call as JSON, {"skill": NAME, "args": {...}}. Skills:']
        lines += [f"- {name}({', '.join(SKILLS[name])}): {DESCRIPTIONS[name]}" for name in SKILLS]
        return "\n".join(lines)


def describe(layout: Layout, name: str) -> str:
    o = layout.obj(name)
    noun = "slot" if (o.shape == "label" and layout.scene == 4) else NOUNS.get(o.shape, o.shape)
    return f"{o.size} {o.color} {noun}" if o.shape not in ("label", "bowl") else f"{o.color} {noun}"


def observe(
    sim: TabletopSim,
    task: TabletopTask,
    layout: Layout,
    history: list[SkillResult],
    calls: list[str],
    horizon: int,
    seed: int,
    *,
    privileged: bool = False,
    since: int = 0,
) -> PlannerObservation:
    """The observation of the live simulation; the ground truth only with `privileged`."""
    poses = sim.object_poses()
    objects = tuple(
        ObjectView(
            name=name,
            description=describe(layout, name),
            x=round(float(poses[i, 0]), 4),
            y=round(float(poses[i, 1]), 4),
            z=round(float(poses[i, 2]), 4),
            yaw_deg=round(math.degrees(sim.object_yaw(name)), 1),
        )
        for i, name in enumerate(sim.object_names)
    )
    tcp = sim.tcp_pos()
    outcomes = tuple(CallOutcome(call, r.success, r.reason, r.steps) for call, r in zip(calls, history, strict=False))
    return PlannerObservation(
        episode_id=episode_token(seed),  # opaque: the dataset's id names the family and role
        instruction=task.instruction,
        objects=objects,
        gripper=(round(float(tcp[0]), 4), round(float(tcp[1]), 4), round(float(tcp[2]), 4)),
        holding=sim.held_object(),
        history=outcomes,
        steps_used=sim.steps,
        steps_left=horizon - sim.steps,
        seed=seed,
        privileged=Privileged(task=task, layout=layout) if privileged else None,
        schema=skill_call_schema(sim.object_names),
        instruction_since=since,
    )
