"""Rendering cost per frame and per trial: a renderer in the process's pooled OpenGL context
(`heedful.sims.tabletop.render`) against a `mujoco.Renderer` with a context of its own per trial (the renderer
before the pool), alternating trial by trial in one process on the default scene.

    MUJOCO_GL=egl python benchmarks/render_contexts.py [--size 64] [--frames 100] [--trials 10]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def own_context(model: Any, render: Any) -> Any:
    """A renderer with a context of its own, with the scene flags heedful sets."""
    import mujoco

    renderer = mujoco.Renderer(model, height=render.height, width=render.width)
    flags = renderer.scene.flags
    flags[mujoco.mjtRndFlag.mjRND_SHADOW] = int(render.shadows)
    flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = int(render.reflections)
    flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = 0
    return renderer


def trial(make: Callable[[Any, Any], Any], size: int, frames: int) -> tuple[float, float, float]:
    """(renderer set-up ms, ms a frame over `frames` steps of both cameras, close ms) for one trial's sim."""
    from heedful.sims.tabletop.config import RenderConfig, SimConfig
    from heedful.sims.tabletop.sim import TabletopSim
    from heedful.sims.tabletop.spec import default_scene

    config = SimConfig(render=RenderConfig(width=size, height=size))
    sim = TabletopSim(default_scene(), config)
    start = time.perf_counter()
    sim._renderer = make(sim.model, config.render)  # what sim.render makes on its first call
    made = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(frames):
        sim.render("agentview")
        sim.render("wrist")
    per_frame = (time.perf_counter() - start) / (2 * frames)
    start = time.perf_counter()
    sim.close()
    return 1000 * made, 1000 * per_frame, 1000 * (time.perf_counter() - start)


def main() -> None:
    from heedful.sims.tabletop import render

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--trials", type=int, default=10)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float, float]]] = {"own context": [], "pooled": []}
    for _ in range(args.trials):
        for name, make in (("own context", own_context), ("pooled", render.make_renderer)):
            results[name].append(trial(make, args.size, args.frames))
    for name, rows in results.items():
        medians = np.median(np.array(rows[1:]), axis=0)  # the first trial of each warms up
        print(
            f"{name:11s} {args.size} px: set-up {medians[0]:.1f} ms, a frame {medians[1]:.3f} ms, "
            f"close {medians[2]:.1f} ms (median of {len(rows) - 1} trials)"
        )
    print(f"contexts the pool made: {render.context_pool().made}")


if __name__ == "__main__":
    main()
