"""One trial in the simulator: build the scene (objects inside bowls included), step with a fixed horizon,
record the trajectory, and pad with hold actions up to the horizon (no early stop).

A trial steps the same core as `heedful/Tabletop-v0`: `TrialRuntime` holds a `TabletopEnv` around the trial's
sim, and every control step (a controller's action or a skill's) is `env.advance`, `env.step` less the observation
it would build (the trial builds its agent's own), which records the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.config import RenderConfig, SimConfig
from heedful.sims.tabletop.deps import require_mujoco
from heedful.sims.tabletop.recorder import Trajectory, TrajectoryRecorder
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.skillset import Skills
from heedful.suites.tabletop.model import Layout

BOWL_FLOOR = 0.006  # thickness of a bowl's base (see the simulator's bowl geometry)


class HorizonReachedError(Exception):
    """Raised by the step function once the trial has used all its control steps."""


class SwitchReachedError(Exception):
    """Raised by the step function after the step at which a pending instruction change comes (`--reinstruct`):
    a planner's skill in flight is cut there, as a controller's chunk is."""


def build_sim(layout: Layout, config: SimConfig) -> TabletopSim:
    """A simulation of `layout`; objects listed in `layout.inside` start resting inside their bowl.

    The simulator's scene spec has no notion of containment, so such objects are parked in the spec and
    their start pose in the model's home keyframe is moved into the bowl before the reset settles them.
    """
    sim = TabletopSim(layout.scene_spec(), config)
    if not layout.inside:
        return sim
    mj = require_mujoco()
    for name, bowl in layout.inside:
        joint = mj.mj_name2id(sim.model, mj.mjtObj.mjOBJ_JOINT, name)
        adr = int(sim.model.jnt_qposadr[joint])
        b, o = layout.obj(bowl), layout.obj(name)
        sim.model.key_qpos[0, adr : adr + 3] = [b.x, b.y, BOWL_FLOOR + o.height / 2 + 0.002]
    sim.reset()
    return sim


class TrialRuntime:
    """A simulation with a recorder and a hard horizon.

    Args:
        layout: The trial's (perturbed) initial scene.
        horizon: Control steps of the trial.
        cameras: Cameras whose frames the recorder keeps (for video); none by default.
        keep_states: Keep the full physics state after every step (demonstrations store them).
        render: Image size and quality of recorded camera frames.
    """

    def __init__(
        self,
        layout: Layout,
        horizon: int,
        cameras: Sequence[str] = (),
        keep_states: bool = False,
        render: RenderConfig | None = None,
    ) -> None:
        self.config = SimConfig(cameras=(), max_episode_steps=max(1, horizon), render=render or RenderConfig())
        from heedful.sims.tabletop.env import TabletopEnv  # gymnasium comes with mujoco in heedful[tabletop]

        self.env = TabletopEnv(config=self.config, record_cameras=tuple(cameras), sim=build_sim(layout, self.config))
        self.horizon = horizon
        self.states: list[NDArray[np.float64]] | None = [self._state()] if keep_states else None
        self.skills = Skills(self.sim, step=self.step, max_steps=10 * max(1, horizon))
        self.interrupt: Callable[[], bool] | None = None
        """Asked after every step while set: True cuts the skill in flight (SwitchReachedError)."""

    @property
    def sim(self) -> TabletopSim:
        return self.env.sim

    @property
    def recorder(self) -> TrajectoryRecorder:
        return self.env.recorder

    @property
    def steps(self) -> int:
        return self.sim.steps

    @property
    def left(self) -> int:
        return self.horizon - self.sim.steps

    def _state(self) -> NDArray[np.float64]:
        return np.frombuffer(self.sim.get_state().physics, dtype=np.float64).copy()

    def step(self, action: object) -> None:
        """Apply one action and record it; HorizonReachedError once the horizon is used up."""
        if self.sim.steps >= self.horizon:
            raise HorizonReachedError(f"the trial's {self.horizon} control steps are used up")
        self.env.advance(action)  # type: ignore[arg-type]  # the sim validates it (shape, finite values)
        if self.states is not None:
            self.states.append(self._state())
        if self.interrupt is not None and self.interrupt():
            raise SwitchReachedError(f"the instruction changes at control step {self.sim.steps}")

    def hold_action(self) -> NDArray[np.float64]:
        """Stay where the tool is, keeping the gripper command."""
        return np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, self.sim.gripper_command])

    def idle_to_horizon(self) -> int:
        """Hold still until the horizon; returns how many steps that took."""
        n = 0
        while self.sim.steps < self.horizon:
            self.step(self.hold_action())
            n += 1
        return n

    def trajectory(self) -> Trajectory:
        return self.recorder.trajectory()

    def close(self) -> None:
        self.env.close()
