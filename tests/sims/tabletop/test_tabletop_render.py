"""Rendering: upright images with the right colours in the right places, configurable quality, video files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from heedful.errors import ConfigError
from heedful.sims.tabletop.config import RenderConfig, SimConfig
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec
from heedful.sims.tabletop.video import write_video

pytestmark = pytest.mark.render


def scene() -> SceneSpec:
    def o(name: str, shape: str, color: str, x: float, y: float) -> ObjectSpec:
        return ObjectSpec(name=name, shape=shape, color=color, size="large", x=x, y=y)  # type: ignore[arg-type]

    return SceneSpec(
        objects=(
            o("left", "cube", "red", -0.2, 0.5),
            o("right", "cube", "blue", 0.2, 0.5),
            o("far", "cylinder", "green", 0.0, 0.68),
            o("near", "cube", "yellow", 0.0, 0.36),
        )
    )


def centroid(img: np.ndarray, color: str) -> tuple[float, float]:
    """(row, col) centroid of the pixels whose dominant channel matches `color`."""
    r, g, b = (img[..., i].astype(float) + 1.0 for i in range(3))
    masks = {
        "red": (r > 1.8 * g) & (r > 1.8 * b) & (r > 80),
        "blue": (b > 1.5 * r) & (b > 1.2 * g) & (b > 60),
        "green": (g > 1.4 * r) & (g > 1.4 * b) & (g > 60),
        "yellow": (r > 1.8 * b) & (g > 1.6 * b) & (r > 100) & (g > 100),
    }
    rows, cols = np.nonzero(masks[color])
    assert rows.size > 20, f"no {color} object visible"
    return float(rows.mean()), float(cols.mean())


def test_agentview_is_upright_with_right_colours() -> None:
    sim = TabletopSim(scene())
    img = sim.render("agentview")
    assert img.shape == (224, 224, 3) and img.dtype == np.uint8
    red, blue, green, yellow = (centroid(img, c) for c in ("red", "blue", "green", "yellow"))
    assert red[1] < 112 < blue[1]  # the robot's left is the image's left
    assert green[0] < yellow[0]  # farther from the robot is higher in the image
    sim.close()


def test_wrist_view_looks_ahead_with_the_same_orientation() -> None:
    sim = TabletopSim(scene(), SimConfig(action_space="abs_eef"))
    for _ in range(30):
        sim.step([0.0, 0.42, 0.32, np.pi, 0.0, 0.0, -1.0])
    img = sim.render("wrist")
    red, blue = centroid(img, "red"), centroid(img, "blue")
    green, yellow = centroid(img, "green"), centroid(img, "yellow")
    assert red[1] < blue[1] and green[0] < yellow[0]
    sim.close()


def test_quality_settings_are_configurable() -> None:
    plain = TabletopSim(scene()).render("agentview")
    fancy = TabletopSim(scene(), SimConfig(render=RenderConfig(shadows=True, offsamples=4, width=160, height=120)))
    img = fancy.render("agentview")
    assert img.shape == (120, 160, 3)
    assert plain.shape == (224, 224, 3)


def test_videos_are_written_as_gif_and_mp4(tmp_path: Path) -> None:
    from PIL import Image

    sim = TabletopSim(scene(), SimConfig(cameras=()))
    frames = []
    for _ in range(10):
        sim.step([0.3, 0.2, -0.3, 0, 0, 0, -1])
        frames.append(sim.render("agentview"))
    gif = write_video(frames, tmp_path / "episode.gif", fps=20)
    with Image.open(gif) as im:
        assert getattr(im, "n_frames", 1) == 10 and im.size == (224, 224)
    import imageio.v2 as imageio

    mp4 = write_video(np.stack(frames), tmp_path / "episode.mp4", fps=20)
    with imageio.get_reader(mp4) as reader:
        assert reader.count_frames() == 10  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"\.mp4 or \.gif"):
        write_video(frames, tmp_path / "episode.avi")
    with pytest.raises(ConfigError, match="uint8"):
        write_video(np.zeros((2, 8, 8, 3), dtype=np.float32), tmp_path / "x.gif")
    with pytest.raises(ConfigError, match="even frame sizes"):
        write_video(np.zeros((2, 9, 8, 3), dtype=np.uint8), tmp_path / "x.mp4")


def _own_context_render(sim: TabletopSim, camera: str) -> np.ndarray:
    """What a `mujoco.Renderer` with an OpenGL context of its own draws (the renderer before the pool)."""
    import mujoco

    render = sim.config.render
    renderer = mujoco.Renderer(sim.model, height=render.height, width=render.width)
    flags = renderer.scene.flags
    flags[mujoco.mjtRndFlag.mjRND_SHADOW] = int(render.shadows)
    flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = int(render.reflections)
    flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = 0
    renderer.update_scene(sim.data, camera=camera)
    image = renderer.render().copy()
    renderer.close()
    return image


def test_renderers_sharing_a_context_draw_what_a_renderer_of_its_own_draws() -> None:
    import gc
    import threading

    from heedful.sims.tabletop.render import context_pool

    configs = [RenderConfig(width=32, height=32), RenderConfig(width=32, height=32, shadows=True, offsamples=4)]
    sims = [TabletopSim(scene(), SimConfig(render=c, reset_jitter_m=0.02)) for c in [*configs, configs[0]]]
    for n, sim in enumerate(sims):
        sim.reset(np.random.default_rng(n))
    drawn: dict[tuple[int, int], np.ndarray] = {}

    def steps(n: int) -> None:  # the sims' renders interleave in threads, as a lockstep batch's do
        for k in range(2):
            drawn[n, k] = sims[n].render("wrist" if k % 2 else "agentview")
            sims[n].step([0.4, -0.3, 0.2, 0.0, 0.0, 0.0, 1.0])

    threads = [threading.Thread(target=steps, args=(n,)) for n in range(len(sims))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(drawn) == 2 * len(sims)
    for n, sim in enumerate(sims):
        camera = "wrist" if n == 2 else "agentview"
        image = sim.render(camera)
        assert np.array_equal(image, _own_context_render(sim, camera)) and image.flags.c_contiguous
        sim.close()
    pool = context_pool()
    made = pool.made
    for n in range(3):  # trials one after another, as in a worker: no new context
        sim = TabletopSim(scene(), SimConfig(render=configs[0]))
        sim.render("agentview")
        if n:
            sim.close()
        else:  # dropped without close: its assets are freed by the pool later
            del sim
            gc.collect()
    assert pool.made == made and pool.renderers == 0
