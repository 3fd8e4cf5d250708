"""Tabletop simulator on MuJoCo: scene specs, a floating parallel gripper, cameras, scripted skills,
a trajectory recorder, video writing and the Gymnasium environment `heedful/Tabletop-v0`.

Importing this package is cheap: MuJoCo and Gymnasium load when a simulation or the environment is
first used. `import heedful.sims.tabletop.env` (or `register_env()`) registers the Gymnasium id.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from heedful.sims.tabletop.config import RenderConfig, SimConfig
from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec, default_scene, scene_from_tabletop_state

if TYPE_CHECKING:
    from heedful.sims.tabletop.env import TabletopEnv
    from heedful.sims.tabletop.motion import SkillResult
    from heedful.sims.tabletop.recorder import Trajectory, TrajectoryRecorder
    from heedful.sims.tabletop.sim import SimState, TabletopSim
    from heedful.sims.tabletop.skillset import Skills
    from heedful.sims.tabletop.video import write_video

ENV_ID = "heedful/Tabletop-v0"

_LAZY = {
    "TabletopSim": "heedful.sims.tabletop.sim",
    "SimState": "heedful.sims.tabletop.sim",
    "Skills": "heedful.sims.tabletop.skillset",
    "SkillResult": "heedful.sims.tabletop.motion",
    "Trajectory": "heedful.sims.tabletop.recorder",
    "TrajectoryRecorder": "heedful.sims.tabletop.recorder",
    "TabletopEnv": "heedful.sims.tabletop.env",
    "write_video": "heedful.sims.tabletop.video",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def register_env() -> None:
    """Register `heedful/Tabletop-v0` with Gymnasium (imports gymnasium)."""
    importlib.import_module("heedful.sims.tabletop.env").register_env()


__all__ = [
    "ENV_ID",
    "ObjectSpec",
    "RenderConfig",
    "SceneSpec",
    "SimConfig",
    "SimState",
    "SkillResult",
    "Skills",
    "TabletopEnv",
    "TabletopSim",
    "Trajectory",
    "TrajectoryRecorder",
    "default_scene",
    "register_env",
    "scene_from_tabletop_state",
    "write_video",
]
