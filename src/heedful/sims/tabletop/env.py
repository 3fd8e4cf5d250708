"""Gymnasium environment `heedful/Tabletop-v0` over the tabletop simulator.

This is the simulator's core, free play: the scene and the instruction arrive through `reset(options=...)`:
`{"scene": SceneSpec | dict | TabletopState, "instruction": str}`, and the reward is always 0. The registered
id `heedful/Tabletop-v0` (see `heedful.envs`) makes `heedful.suites.tabletop.task_env.TabletopTaskEnv`, this
env plus the benchmark's tasks and their stage scores (sparse success reward). The older id
`heedful.sims.tabletop.env:heedful/Tabletop-v0` still works and makes the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import ValidationError

from heedful.errors import ConfigError, MissingDependencyError

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as _exc:  # pragma: no cover - depends on the environment
    raise MissingDependencyError(
        'the tabletop Gymnasium environment needs gymnasium: pip install "heedful[tabletop]"'
    ) from _exc
from heedful.sims.tabletop.config import IMAGE_KEYS, WORKSPACE_HIGH, WORKSPACE_LOW, SimConfig
from heedful.sims.tabletop.recorder import Trajectory, TrajectoryRecorder
from heedful.sims.tabletop.sim import SimState, TabletopSim
from heedful.sims.tabletop.skillset import Skills
from heedful.sims.tabletop.spec import SceneSpec, default_scene, scene_from_tabletop_state
from heedful.world.objects import TabletopState

ENV_ID = "heedful/Tabletop-v0"
Obs = dict[str, Any]


def scene_from_option(value: object) -> SceneSpec:
    """Accept a SceneSpec, its dict form, or a decisions-suite TabletopState.

    Raises:
        ConfigError: the value is none of these, or does not validate.
    """
    if isinstance(value, SceneSpec):
        return value
    if isinstance(value, TabletopState):
        return scene_from_tabletop_state(value)
    if isinstance(value, dict):
        try:
            return SceneSpec.model_validate(value)
        except ValidationError as exc:
            raise ConfigError(f"options['scene'] is not a valid scene spec: {exc}") from exc
    raise ConfigError(
        f"options['scene'] must be a SceneSpec, a dict or a TabletopState, got {type(value).__name__}; a scene "
        'number (options={"scene": 2, "instruction": ...}) works with gym.make("heedful/Tabletop-v0")'
    )


class TabletopEnv(gym.Env[Obs, NDArray[Any]]):
    """Tabletop manipulation with a floating parallel gripper, LIBERO-style observations and actions.

    Args:
        scene: Scene used until a reset passes another (the default scene when omitted).
        config: Simulator configuration (action space, cameras, timing, horizon).
        render_mode: None or "rgb_array" (returns the agentview image).
        record_cameras: Cameras whose frames the trajectory recorder keeps (for video).
        sim: A simulation already built for `config` (the tabletop suite's trials build theirs, with objects
            resting inside bowls); its current state is the start, until a reset.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}  # noqa: RUF012 - the Gymnasium convention

    def __init__(
        self,
        scene: SceneSpec | None = None,
        config: SimConfig | None = None,
        render_mode: str | None = None,
        record_cameras: tuple[str, ...] = (),
        sim: TabletopSim | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "rgb_array"):
            raise ConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.config = config or SimConfig()
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_fps": self.config.control_hz}
        self.record_cameras = record_cameras
        self.instruction = ""
        if sim is not None and scene is not None:
            raise ConfigError("pass a scene or a built sim, not both")
        self.sim = sim if sim is not None else TabletopSim(scene if scene is not None else default_scene(), self.config)
        self.recorder = TrajectoryRecorder(self.sim, record_cameras)
        self._skills: Skills | None = None
        self.observation_space = self._observation_space()
        self.action_space = self._action_space()

    def _observation_space(self) -> spaces.Dict:
        r = self.config.render
        entries: dict[str, spaces.Space[Any]] = {}
        for cam in self.config.cameras:
            entries[IMAGE_KEYS[cam]] = spaces.Box(0, 255, (r.height, r.width, 3), dtype=np.uint8)
        # Bounds are physical limits with a wide margin: positions (m), axis-angle (rad), finger travel (m).
        state_high = np.array([2.0, 2.0, 2.0, np.pi, np.pi, np.pi, 0.1, 0.1])
        entries["state"] = spaces.Box(-state_high, state_high, dtype=np.float64)
        if self.config.privileged:
            pose_high = np.tile(np.array([10.0, 10.0, 10.0, 1.0, 1.0, 1.0, 1.0]), (self.config.max_objects, 1))
            entries["object_poses"] = spaces.Box(-pose_high, pose_high, dtype=np.float64)
        return spaces.Dict(entries)

    def _action_space(self) -> spaces.Box:
        if self.config.action_space == "delta_eef":
            return spaces.Box(-1.0, 1.0, (7,), dtype=np.float32)
        low = np.array([*WORKSPACE_LOW, -np.pi, -np.pi, -np.pi, -1.0], dtype=np.float32)
        high = np.array([*WORKSPACE_HIGH, np.pi, np.pi, np.pi, 1.0], dtype=np.float32)
        return spaces.Box(low, high, dtype=np.float32)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Start an episode; `options` may carry "scene" and "instruction"."""
        super().reset(seed=seed)
        options = options or {}
        unknown = set(options) - {"scene", "instruction"}
        if unknown:
            raise ConfigError(f"unknown reset options {sorted(unknown)}; use 'scene' and 'instruction'")
        if "scene" in options:
            scene = scene_from_option(options["scene"])
            if scene.digest() != self.sim.scene_digest:
                self.sim.close()
                self.sim = TabletopSim(scene, self.config)
                self.recorder = TrajectoryRecorder(self.sim, self.record_cameras)
        instruction = options.get("instruction", "")
        if not isinstance(instruction, str):
            raise ConfigError(f"options['instruction'] must be a string, got {type(instruction).__name__}")
        self.instruction = instruction
        self.sim.reset(rng=self.np_random)
        obs = self._observe()
        self.recorder.reset()
        return obs, self._info()

    def step(self, action: NDArray[Any]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Advance one control step; reward 0, never terminated, truncated at `max_episode_steps`."""
        self.sim.step(action)
        obs = self._observe()
        images = {cam: obs[key] for cam, key in IMAGE_KEYS.items() if key in obs}
        self.recorder.record(images)
        truncated = self.sim.steps >= self.config.max_episode_steps
        return obs, 0.0, False, truncated, self._info()

    def advance(self, action: NDArray[Any]) -> None:
        """`step` without building the observation and info it returns, for a caller that reads what it needs
        itself (a trial: `heedful.suites.tabletop.runtime`); the simulation and the trajectory advance alike."""
        self.sim.step(action)
        self.recorder.record()

    def _observe(self) -> Obs:
        obs: Obs = {}
        for cam in self.config.cameras:
            obs[IMAGE_KEYS[cam]] = self.sim.render(cam)
        obs["state"] = self.sim.state_vector()
        if self.config.privileged:
            poses = np.zeros((self.config.max_objects, 7))
            current = self.sim.object_poses()
            poses[: current.shape[0]] = current
            obs["object_poses"] = poses
        return obs

    def _info(self) -> dict[str, Any]:
        return {
            "instruction": self.instruction,
            "step": self.sim.steps,
            "object_names": self.sim.object_names,
            "scene_digest": self.sim.scene_digest,
        }

    def render(self) -> NDArray[np.uint8] | None:
        """The agentview image when render_mode is "rgb_array", else None."""
        return self.sim.render("agentview") if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        self.sim.close()

    # ------------------------------------------------------------ beyond Gymnasium

    @property
    def skills(self) -> Skills:
        """Scripted skills that act through `step`, so every low-level action is recorded."""
        if self._skills is None or self._skills.sim is not self.sim:
            self._skills = Skills(self.sim, step=self.step)
        return self._skills

    def trajectory(self) -> Trajectory:
        """The episode recorded since the last reset."""
        return self.recorder.trajectory()

    def get_state(self) -> SimState:
        """Snapshot the simulation (restore with `set_state`)."""
        return self.sim.get_state()

    def set_state(self, state: SimState) -> None:
        """Restore a snapshot taken in this scene; the recorder keeps its rows."""
        self.sim.set_state(state)


def register_env() -> None:
    """Register heedful's Gymnasium ids (idempotent; `import heedful` already does, see `heedful.envs`)."""
    from heedful.envs import register_all

    register_all()


register_env()
