"""Replays: re-execute the tool calls of one recorded episode and draw it top-down as an animated GIF.

The simulator is deterministic, so executing the recorded calls reproduces the trajectory exactly; the
replay checks that it ends with the recorded step count and fails loudly otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from heedful.errors import ConfigError, RunError
from heedful.sims.household.grid import Grid
from heedful.sims.household.perception import Detector
from heedful.sims.household.render import GIF_FRAME_MS, Canvas, Scene, draw_scene, house_image, save_gif
from heedful.sims.household.sim import HouseSim
from heedful.sims.household.vision import view_cells
from heedful.suites.household.carry import carry_walk
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.runtime import TaskEnv

if TYPE_CHECKING:
    from heedful.records import Record

MAX_FRAMES = 400


class FrameRecorder:
    """Keeps the state drawn in each frame: agent pose, human, objects, trails, the running tool."""

    def __init__(self, every: int = 1) -> None:
        self.every = max(1, every)
        self.states: list[dict[str, Any]] = []
        self.trail: list[tuple[float, float]] = []
        self.human_trail: list[tuple[float, float]] = []
        self.tool = ""

    def capture(self, sim: HouseSim, force: bool = False) -> None:
        p = sim.pose
        self.trail.append((p.x, p.y))
        self.human_trail.append(sim.human_xy)
        if not force and sim.step % self.every:
            return
        objects = [(o.category, *sim.object_xy(o.id)) for o in sim.objects.values()]
        held = sim.objects[sim.held].category if sim.held else None
        self.states.append(
            {
                "step": sim.step,
                "agent": (p.x, p.y, p.heading),
                "human": sim.human_xy,
                "objects": objects,
                "trail": list(self.trail),
                "human_trail": list(self.human_trail),
                "tool": self.tool,
                "held": held,
            }
        )

    def on_step(self, sim: HouseSim, action: str, result: object) -> None:
        self.capture(sim)


def record_frames(
    episode: HouseholdEpisode, actions: list[str], every: int = 1, detector: Detector | None = None
) -> tuple[TaskEnv, FrameRecorder]:
    """Replay `actions` while recording frames (`detector`: the run's simulated noisy perception, if any)."""
    recorder = FrameRecorder(every)
    probe = TaskEnv.start(episode)
    walk = carry_walk(probe.grid, episode.human)
    if walk is not None:  # S_obj: the human's trail begins with the carry walk the agent watched
        recorder.human_trail.extend(walk.points)
    recorder.capture(probe.sim, force=True)
    env = _replay_with(episode, actions, recorder, detector)
    recorder.capture(env.sim, force=True)
    return env, recorder


def _replay_with(
    episode: HouseholdEpisode, actions: list[str], recorder: FrameRecorder, detector: Detector | None
) -> TaskEnv:
    from heedful.suites.household import executors
    from heedful.suites.household.tools import parse_tool

    env = TaskEnv.start(episode, detector=detector)
    env.sim.listeners.append(recorder.on_step)
    for text in actions:
        parsed = parse_tool(text)
        if parsed.call is None or env.done:
            break
        recorder.tool = f"{text} (from step {env.sim.step})"
        env.history.append(executors.execute(env, parsed.call))
    return env


def _view_overlay(grid: Grid, agent: tuple[float, float, int], size: tuple[int, int], depth_px: int) -> Any:
    """A translucent red layer over the cells the agent sees (walls occlude)."""
    from PIL import Image

    seen = np.zeros(grid.shape, dtype=bool)
    seen.ravel()[view_cells(grid, agent[0], agent[1], agent[2])] = True
    rgba = np.zeros((*grid.shape, 4), dtype=np.uint8)
    rgba[seen] = (255, 60, 60, 70)
    layer = Image.fromarray(rgba[::-1], mode="RGBA").resize((size[0], depth_px), Image.Resampling.NEAREST)
    full = Image.new("RGBA", size, (0, 0, 0, 0))
    full.paste(layer, (0, 0))
    return full


def frames(episode: HouseholdEpisode, recorder: FrameRecorder, title: str, grid: Grid) -> list[Any]:
    """Pillow images, one per recorded state, with the agent's actual view shaded."""
    from PIL import ImageDraw

    canvas = Canvas(episode.house, caption_px=44)
    base = house_image(episode.house, Scene(), caption_px=44).convert("RGBA")
    images = []
    goal = episode.human.destination
    for state in recorder.states[:MAX_FRAMES]:
        image = base.copy()
        image.alpha_composite(_view_overlay(grid, state["agent"], canvas.size, canvas.depth_px))
        image = image.convert("RGB")
        draw = ImageDraw.Draw(image)
        caption = f"{title}\nstep {state['step']}  {state['tool']}" + (
            f"  holding {state['held']}" if state["held"] else ""
        )
        scene = Scene(
            objects=list(state["objects"]),
            agent=state["agent"],
            human=state["human"],
            human_goal=goal,
            trail=state["trail"],
            human_trail=state["human_trail"],
            caption=caption,
        )
        draw_scene(canvas, draw, scene)
        images.append(image)
    return images


def find_episode(run_dir: Path, episode_id: str, dataset: Path | None) -> tuple[HouseholdEpisode, Record]:
    """The episode (from `dataset` or the run's own source) and its record."""
    from heedful.runner import load_run
    from heedful.suites.household.suite import SUITE

    manifest, records = load_run(Path(run_dir))
    if manifest.spec.suite != "household":
        raise RunError(
            f"{run_dir} is a {manifest.spec.suite} run; this replay is for household runs "
            "(`heedful replay` makes a tabletop run's trial videos)"
        )
    record = next((r for r in records if r.episode_id == episode_id), None)
    if record is None:
        raise RunError(f"run {run_dir} has no record of episode {episode_id!r}")
    from heedful.dataset_cache import episodes_of, source_episodes

    source = manifest.spec.dataset_source
    episodes = episodes_of(HouseholdEpisode, source_episodes(SUITE, source, dataset), source)
    episode = next((ep for ep in episodes if ep.episode_id == episode_id), None)
    if episode is None:
        raise RunError(f"the dataset of run {run_dir} has no episode {episode_id!r}; pass --dataset")
    return episode, record


def run_detector(run_dir: Path, episode: HouseholdEpisode) -> Detector | None:
    """The simulated detector the run gave this episode (None under oracle perception)."""
    from heedful.runner.manifest import read_manifest
    from heedful.seeding import derive_seed
    from heedful.suites.household.perception import detector_for

    spec = read_manifest(run_dir).spec
    return detector_for(episode, spec.options, derive_seed(spec.seed, episode.episode_id))


def save_mp4(images: list[Any], out: Path) -> None:
    """Write the frames as H.264 MP4 at the GIF's pace (needs imageio-ffmpeg, in the tabletop extra)."""
    from heedful.sims.tabletop.video import write_video  # the generic frame writer; MuJoCo is not imported

    arrays = [np.asarray(image.convert("RGB")) for image in images]
    height, width = arrays[0].shape[:2]
    pad = ((0, height % 2), (0, width % 2), (0, 0))  # H.264 needs even sizes: repeat the last row / column
    out.parent.mkdir(parents=True, exist_ok=True)
    write_video(np.stack([np.pad(a, pad, mode="edge") for a in arrays]), out, fps=1000 / GIF_FRAME_MS)


def write_replay(run_dir: Path, episode_id: str, out: Path, *, dataset: Path | None = None, every: int = 2) -> str:
    """Write the replay of one episode of a household run to `out` (.gif, .mp4, or .png for the last frame)."""
    out = Path(out)
    if out.suffix.lower() not in (".gif", ".mp4", ".png"):
        raise ConfigError(
            f"replays are written as .gif or .mp4 (or .png for the last frame), not {out.suffix or 'no suffix'}"
        )
    episode, record = find_episode(Path(run_dir), episode_id, dataset)
    actions = list((record.prediction or {}).get("actions", []))
    env, recorder = record_frames(episode, actions, every, run_detector(Path(run_dir), episode))
    recorded = int(record.scores.get("steps", -1))
    if recorded >= 0 and env.sim.step != recorded:
        raise RunError(
            f"replaying {episode_id} took {env.sim.step} steps but the run recorded {recorded}; "
            "the simulator or the dataset changed since the run"
        )
    title = f"{episode.episode_id}: {episode.command}"
    images = frames(episode, recorder, title, env.grid)
    if out.suffix.lower() == ".png":
        out.parent.mkdir(parents=True, exist_ok=True)
        images[-1].save(out, format="PNG")
    elif out.suffix.lower() == ".mp4":
        save_mp4(images, out)
    else:
        save_gif(images, out)
    success = "success" if record.scores.get("success") else "failure"
    return f"wrote {len(images)} frames of {episode_id} ({env.sim.step} steps, {success}) to {out}"
