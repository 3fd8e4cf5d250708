"""Offscreen rendering tuned for CPUs: no shadows, no reflections, no multisampling unless configured."""

from __future__ import annotations

from typing import Any

from heedful.sims.tabletop.config import RenderConfig
from heedful.sims.tabletop.deps import require_mujoco


def make_renderer(model: Any, render: RenderConfig) -> Any:
    """A `mujoco.Renderer` for `model` with the scene flags of `render`.

    Multisampling is fixed when the model is compiled (`vis.quality.offsamples`, set by the MJCF builder);
    shadows and reflections are switched here, per renderer.
    """
    mj = require_mujoco()
    renderer = mj.Renderer(model, height=render.height, width=render.width)
    flags = renderer.scene.flags
    flags[mj.mjtRndFlag.mjRND_SHADOW] = int(render.shadows)
    flags[mj.mjtRndFlag.mjRND_REFLECTION] = int(render.reflections)
    flags[mj.mjtRndFlag.mjRND_SKYBOX] = 0
    return renderer
