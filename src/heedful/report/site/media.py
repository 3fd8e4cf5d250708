"""The media of `heedful view`, made on demand: a household episode's replay GIF (`write_replay`) and the MP4 a
tabletop run recorded with `--video`, copied next to the page so that the site travels as one folder."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError

CHOICES = "failed, all, none or a number N (the first N episodes of each run)"
REPLAY_FRAMES = 24
"""About how many frames a page's replay GIF has (encoding a GIF frame costs about 0.1 s; `heedful replay RUN EPISODE
--out FILE.gif` draws every second step)."""
NO_VIDEO = (
    "this run was made without --video, so it has no video; rerun it with `heedful run tabletop ... --video` "
    "(or options={'video_dir': ...} in heedful.api.evaluate) to record an agentview MP4 of every trial"
)


def check_episodes(episodes: str) -> str:
    """`failed`, `all`, `none` or a positive count N.

    Raises:
        ConfigError: anything else, naming the choices.
    """
    if episodes in ("failed", "all", "none") or (episodes.isdigit() and int(episodes) > 0):
        return episodes
    raise ConfigError(f"--episodes takes {CHOICES}, got {episodes!r}")


def wanted(entries: Sequence[dict[str, Any]], episodes: str) -> list[dict[str, Any]]:
    """The episodes of one run that get media: every one, the failed ones (not correct), the first N, or none."""
    if episodes == "none":
        return []
    if episodes == "all":
        return list(entries)
    if episodes == "failed":
        return [e for e in entries if e["correct"] is not True]
    return list(entries[: int(episodes)])


def plan(suite: str, entries: Sequence[dict[str, Any]], episodes: str) -> tuple[list[dict[str, Any]], str | None]:
    """The episodes to make media for, and a note for the run's page (why there are none)."""
    if suite not in ("household", "tabletop"):
        return [], None
    chosen = wanted(entries, episodes)
    if suite == "tabletop" and not any(_video_of(e) for e in entries):
        return [], NO_VIDEO
    if not chosen:
        return [], f"no media made: --episodes {episodes} chose none of this run's episodes"
    return chosen, None


def make(suite: str, run_dir: Path, entry: dict[str, Any], out: Path, folder: str) -> None:
    """Write one episode's media under `out/folder` and note it in `entry["media"]` (a path relative to `out`).

    A replay that fails (the dataset is not here, the simulator changed) is noted in place of the media."""
    name = _safe(entry["id"])
    if suite == "household":
        from heedful.suites.household.replay import write_replay

        target = out / folder / f"{name}.gif"
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_replay(run_dir, entry["id"], target, every=_every(entry))
        except Exception as exc:  # the page says why this replay is missing; the rest of the site stands
            entry["media"] = {"kind": "note", "text": f"no replay: {exc}"}
            return
        entry["media"] = {"kind": "image", "path": f"{folder}/{name}.gif"}
        return
    video = _video_of(entry)
    source = Path(video) if video else None
    if source is not None and not source.is_absolute() and not source.exists():
        source = run_dir / source
    if source is None or not source.is_file():
        entry["media"] = {"kind": "note", "text": f"the run names a video that is not here: {video}"}
        return
    target = out / folder / f"{name}.mp4"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    entry["media"] = {"kind": "video", "path": f"{folder}/{name}.mp4"}


def _every(entry: dict[str, Any]) -> int:
    """Draw every n-th step, so that a replay has about REPLAY_FRAMES frames (at least every second step)."""
    steps = int(entry["scores"].get("steps", 0) or 0)
    return max(2, -(-steps // REPLAY_FRAMES))


def _video_of(entry: dict[str, Any]) -> str | None:
    prediction = entry.get("prediction")
    video = prediction.get("video") if isinstance(prediction, dict) else None
    return str(video) if video else None


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "episode"
