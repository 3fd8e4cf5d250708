"""Motion primitives of the scripted skills: closed-loop generators that yield low-level actions.

A primitive reads the simulation (privileged state), yields one action per control step in the
configured action space, and returns True when it reached its goal. Whoever drives the generator steps
the simulation between yields (see `heedful.sims.tabletop.skills.execute`), so the actions are exactly
those a policy would send.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.control import pose_to_action, tool_yaw_mat
from heedful.sims.tabletop.mjcf import FINGER_MAX
from heedful.sims.tabletop.rotations import yaw_error
from heedful.sims.tabletop.sim import TabletopSim

Array = NDArray[np.float64]
Motion = Generator[Array, None, bool]
SkillGen = Generator[Array, None, tuple[bool, str]]
StepFn = Callable[[Array], object]

OPEN = -1.0
CLOSED = 1.0
POS_TOL = 0.004  # meters
YAW_TOL = 0.03  # radians
SETTLED_SPEED = 0.03  # m/s of the tool, below which a reached pose counts as held


@dataclass(frozen=True)
class SkillResult:
    """Outcome of one skill: whether it achieved its goal, why not, and how many control steps it used."""

    skill: str
    success: bool
    reason: str
    steps: int


def tool_yaw(sim: TabletopSim) -> float:
    """Yaw of the gripper's closing axis (radians, unwrapped like the yaw hinge)."""
    return sim.joint_angles()[0]


def hold_action(sim: TabletopSim, pos: Array, yaw: float, grip: float) -> Array:
    """One action that servoes the tool toward (`pos`, `yaw`) with gripper command `grip`."""
    return pose_to_action(sim.config, sim.tcp_pos(), sim.tool_mat(), pos, tool_yaw_mat(yaw), grip, max_speed=1.0)


def tool_speed(sim: TabletopSim) -> float:
    """Linear speed of the tool center point (m/s)."""
    return float(np.linalg.norm(sim.data.qvel[:3]))


def move_to(
    sim: TabletopSim,
    pos: Array | tuple[float, float, float],
    yaw: float,
    grip: float,
    *,
    speed: float = 0.6,
    tol: float = POS_TOL,
    max_steps: int = 120,
) -> Motion:
    """Move the tool center point to `pos` with closing-axis yaw `yaw`, keeping the gripper command.

    Args:
        speed: Fraction of the full action range per step (0.6 -> 3 cm per control step by default).
        tol: Position tolerance in meters.
        max_steps: Give up (return False) after this many control steps.
    """
    goal = np.asarray(pos, dtype=np.float64)
    target = tool_yaw_mat(yaw)
    for _ in range(max_steps):
        err = float(np.linalg.norm(goal - sim.tcp_pos()))
        yaw_err = abs(_tool_yaw_error(sim, yaw))
        if err < tol and yaw_err < YAW_TOL and tool_speed(sim) < SETTLED_SPEED:
            return True
        yield pose_to_action(sim.config, sim.tcp_pos(), sim.tool_mat(), goal, target, grip, max_speed=speed)
    return False


def _tool_yaw_error(sim: TabletopSim, yaw: float) -> float:
    return yaw_error(yaw, tool_yaw(sim))


def actuate_gripper(sim: TabletopSim, grip: float, *, steps: int = 8, hold_yaw: float | None = None) -> Motion:
    """Hold the current pose while the fingers open or close, for at least 3 and at most `steps` steps.

    Finishes early once the fingers stop moving. Returns True (the fingers always come to rest).
    """
    pos = sim.tcp_pos()
    yaw = tool_yaw(sim) if hold_yaw is None else hold_yaw
    last = sim.gripper_opening()
    for i in range(steps):
        yield hold_action(sim, pos, yaw, grip)
        now = sim.gripper_opening()
        if i >= 2 and abs(now - last) < 2e-4:
            break
        last = now
    return True


def wait(sim: TabletopSim, steps: int, grip: float) -> Motion:
    """Hold the current pose for `steps` control steps."""
    pos = sim.tcp_pos()
    yaw = tool_yaw(sim)
    for _ in range(steps):
        yield hold_action(sim, pos, yaw, grip)
    return True


def nearest_equivalent_yaw(desired: float, current: float, period: float = math.pi) -> float:
    """The angle equal to `desired` modulo `period` that is closest to `current`."""
    return current + yaw_error(desired, current, period)


def execute(
    sim: TabletopSim, skill: SkillGen, name: str, step: StepFn | None = None, max_steps: int = 600
) -> SkillResult:
    """Run a skill generator to completion, applying each action with `step` (default: `sim.step`)."""
    apply = step if step is not None else sim.step
    steps = 0
    try:
        action = next(skill)
        while True:
            if steps >= max_steps:
                skill.close()
                return SkillResult(name, False, f"gave up after {max_steps} control steps", steps)
            apply(action)
            steps += 1
            action = skill.send(None)
    except StopIteration as stop:
        ok, reason = stop.value
        return SkillResult(name, bool(ok), str(reason), steps)


def grip_for_width(width: float) -> float:
    """Gripper command whose finger opening is `width` (clipped to the full range)."""
    travel = min(FINGER_MAX, max(0.0, width / 2))
    return 1.0 - 2.0 * travel / FINGER_MAX


def go_above(sim: TabletopSim, xy: Array, z: float, yaw: float, grip: float) -> Generator[Array, None, bool]:
    """Rise vertically to `z` (if lower), then move over `xy` at that height while turning to `yaw`."""
    here = sim.tcp_pos()
    if here[2] < z - 0.01:
        ok = yield from move_to(sim, (here[0], here[1], z), tool_yaw(sim), grip, tol=0.01)
        if not ok:
            return False
    return (yield from move_to(sim, (xy[0], xy[1], z), yaw, grip, tol=0.006))
