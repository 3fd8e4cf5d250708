"""Configuration of the tabletop simulator: timing, rendering, actions, limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ActionSpaceName = Literal["delta_eef", "abs_eef"]
BadActionPolicy = Literal["raise", "clip"]
CameraName = Literal["agentview", "wrist"]

CAMERAS: tuple[CameraName, ...] = ("agentview", "wrist")

# Home pose of the tool center point (meters, table frame) and its yaw (radians): above the near edge.
HOME_POS: tuple[float, float, float] = (0.0, 0.08, 0.32)
HOME_YAW = 0.0

IMAGE_KEYS = {"agentview": "image", "wrist": "wrist_image"}
"""Observation key of each camera's image (LIBERO's names), for the environment and the suite's controllers."""

# Reachable box of the tool center point (meters). z stays above the table so the fingertips never dig in.
WORKSPACE_LOW: tuple[float, float, float] = (-0.45, 0.05, 0.008)
WORKSPACE_HIGH: tuple[float, float, float] = (0.45, 0.90, 0.50)
# Roll and pitch of the gripper stay within this bound (radians); yaw is unbounded.
MAX_TILT = 1.2


class RenderConfig(BaseModel):
    """Camera images. Defaults are tuned for CPU rendering: no shadows, no multisampling."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    width: int = Field(default=224, ge=16, le=2048)
    height: int = Field(default=224, ge=16, le=2048)
    shadows: bool = False
    offsamples: int = Field(default=0, ge=0, le=16, description="Multisampling of the offscreen buffer.")
    reflections: bool = False


class SimConfig(BaseModel):
    """Everything that shapes a simulation apart from the scene.

    Attributes:
        control_hz: Control frequency; each control step runs `physics_substeps` physics steps.
        timestep: Physics timestep in seconds.
        action_space: `delta_eef` (LIBERO-like 7-D deltas in [-1, 1]) or `abs_eef` (absolute TCP pose).
        bad_action: `raise` a typed error on NaN / inf / wrong shape, or `clip` (non-finite entries become 0).
        cameras: Cameras rendered into observations (`agentview` -> `image`, `wrist` -> `wrist_image`).
        privileged: Add every object's pose to observations (`object_poses`, padded to `max_objects`).
        settle_seconds: Physics time simulated at reset so objects come to rest.
        reset_jitter_m: Uniform xy jitter of free objects at reset, drawn from the reset seed.
        reset_jitter_deg: Uniform yaw jitter of free objects at reset.
        max_episode_steps: Truncation horizon of the Gymnasium environment.
        sleep: Objects at rest stop being simulated until something moving touches them (MuJoCo sleeping).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    control_hz: float = Field(default=20.0, gt=0, le=1000)
    timestep: float = Field(default=0.002, gt=0, le=0.02)
    action_space: ActionSpaceName = "delta_eef"
    bad_action: BadActionPolicy = "raise"
    pos_scale: float = Field(default=0.05, gt=0, description="delta_eef: meters per unit action.")
    rot_scale: float = Field(default=0.5, gt=0, description="delta_eef: radians per unit action.")
    cameras: tuple[CameraName, ...] = CAMERAS
    render: RenderConfig = RenderConfig()
    privileged: bool = False
    max_objects: int = Field(default=12, ge=1, le=64)
    settle_seconds: float = Field(default=0.2, ge=0, le=5)
    reset_jitter_m: float = Field(default=0.0, ge=0, le=0.05)
    reset_jitter_deg: float = Field(default=0.0, ge=0, le=180)
    max_episode_steps: int = Field(default=400, ge=1)
    solver_iterations: int = Field(default=50, ge=1, le=1000)
    sleep: bool = Field(default=True, description="Let objects at rest sleep (MuJoCo islands); much faster.")

    @model_validator(mode="after")
    def _check_timing(self) -> SimConfig:
        ratio = 1.0 / (self.control_hz * self.timestep)
        if abs(ratio - round(ratio)) > 1e-6 or round(ratio) < 1:
            raise ValueError(
                f"1 / (control_hz * timestep) must be a whole number of physics steps, got {ratio:.4f}; "
                "e.g. control_hz=20 with timestep=0.002 gives 25"
            )
        if len(set(self.cameras)) != len(self.cameras):
            raise ValueError(f"cameras must not repeat, got {self.cameras}")
        return self

    @property
    def physics_substeps(self) -> int:
        """Physics steps per control step."""
        return round(1.0 / (self.control_hz * self.timestep))
