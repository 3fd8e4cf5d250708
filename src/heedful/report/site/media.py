"""The media of `heedful view`, made on demand: a household episode's replay GIF (`write_replay`) and a tabletop
trial's agentview MP4, copied from a run recorded with `--video` or else made from the records (`TrialVideos`: the
trial rolled out again, kept only when it reproduces the stored record), next to the page so that the site travels
as one folder."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError, RunError

if TYPE_CHECKING:
    from heedful.report.trial_video import TrialVideos

CHOICES = "failed, all, none or a number N (the first N episodes of each run)"
MAX_MEDIA = 200
"""Most episodes of one run that get media by default: a tabletop video made from the records re-runs its trial
(about a second), so `--episodes failed` on a full protocol run (thousands of failed trials) would take an hour."""
REPLAY_FRAMES = 24
"""About how many frames a page's replay GIF has (encoding a GIF frame costs about 0.1 s; `heedful replay RUN EPISODE
--out FILE.gif` draws every second step)."""


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


def plan(
    suite: str, entries: Sequence[dict[str, Any]], episodes: str, most: int = MAX_MEDIA
) -> tuple[list[dict[str, Any]], str | None]:
    """The episodes to make media for (at most `most`, in dataset order), and a note for the run's page (why there
    are none, or how many were left without)."""
    if suite not in ("household", "tabletop"):
        return [], None
    chosen = wanted(entries, episodes)
    if not chosen:
        return [], f"no media made: --episodes {episodes} chose none of this run's episodes"
    if len(chosen) > most:
        return chosen[:most], (
            f"media for the first {most} of the {len(chosen)} episodes --episodes {episodes} chose (each takes a "
            "second or a few); the others show their details only: raise --max-media to make more"
        )
    return chosen, None


def replay(
    run_dir: Path,
    episode_id: str,
    out: Path,
    *,
    dataset: Path | None = None,
    every: int = 2,
    rerun_agents: Collection[str] = (),
) -> str:
    """`heedful replay`: one episode's media as a file (.gif, .mp4 or .png), by the run's suite; what was written.

    Household: the top-down replay of the recorded tool calls (every `every`-th step). Tabletop: the trial's agentview
    video, made from the records and written only when the trial reproduces (`TrialVideos`; `rerun_agents`: the
    `MODULE:CLASS` agents the user lets it import, see there).

    Raises:
        RunError: not a run, a run of another suite, or an episode whose media cannot be made (why, in the message).
    """
    from heedful.runner.manifest import read_manifest

    suite = read_manifest(Path(run_dir)).spec.suite
    if suite == "household":
        from heedful.report.household_replay import write_replay

        return write_replay(run_dir, episode_id, out, dataset=dataset, every=every)
    if suite != "tabletop":
        raise RunError(f"{run_dir} is a {suite} run; replays exist for household and tabletop runs")
    from heedful.report.trial_video import TrialVideos

    videos = TrialVideos(run_dir, dataset, rerun_agents)
    try:
        return videos.write(episode_id, out)
    finally:
        videos.close()


def make(
    suite: str,
    run_dir: Path,
    entry: dict[str, Any],
    out: Path,
    folder: str,
    videos: dict[Path, TrialVideos] | None = None,
    rerun_agents: Collection[str] = (),
) -> None:
    """Write one episode's media under `out/folder` and note it in `entry["media"]` (a path relative to `out`).

    Media that cannot be made (the dataset is not here, the simulator changed, a tabletop agent that cannot be re-run
    or did not reproduce the trial) are noted in their place. `videos` keeps each tabletop run's video maker between
    calls (its dataset and agent are loaded once); `close_videos` closes them. `rerun_agents`: the `MODULE:CLASS`
    agents the user lets a re-run import (`TrialVideos`)."""
    name = safe_name(entry["id"])
    if suite == "household":
        from heedful.report.household_replay import write_replay

        target = out / folder / f"{name}.gif"
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_replay(run_dir, entry["id"], target, every=_every(entry))
        except Exception as exc:  # the page says why this replay is missing; the rest of the site stands
            entry["media"] = {"kind": "note", "text": f"no replay: {exc}"}
            return
        entry["media"] = {"kind": "image", "path": f"{folder}/{name}.gif"}
        return
    target = out / folder / f"{name}.mp4"
    target.parent.mkdir(parents=True, exist_ok=True)
    source = _stored_video(run_dir, entry)
    if source is not None:
        shutil.copyfile(source, target)
    else:
        try:
            _video_maker(run_dir, {} if videos is None else videos, rerun_agents).write(entry["id"], target)
        except Exception as exc:  # the page says why this video is missing; the rest of the site stands
            entry["media"] = {"kind": "note", "text": f"no video: {exc}"}
            return
    entry["media"] = {"kind": "video", "path": f"{folder}/{name}.mp4"}


def close_videos(videos: dict[Path, TrialVideos]) -> None:
    """Close the video makers `make` kept (a re-run agent may hold a connection)."""
    for maker in videos.values():
        maker.close()
    videos.clear()


def _video_maker(run_dir: Path, videos: dict[Path, TrialVideos], rerun_agents: Collection[str]) -> TrialVideos:
    from heedful.report.trial_video import TrialVideos

    if run_dir not in videos:
        videos[run_dir] = TrialVideos(run_dir, rerun_agents=rerun_agents)
    return videos[run_dir]


def _stored_video(run_dir: Path, entry: dict[str, Any]) -> Path | None:
    """The MP4 a run made with --video recorded for this trial, if it is still there.

    A record's path is data someone may have sent: only an .mp4 file inside the run directory, after resolving links,
    is taken (the path as recorded, or `videos/NAME` of the run, where --video writes, for a run that was moved); a
    path anywhere else (a secrets file) is never read, and the trial's video is made from the records instead."""
    video = _video_of(entry)
    if not video:
        return None
    root = Path(run_dir).resolve()
    recorded = Path(video)
    for candidate in (recorded if recorded.is_absolute() else root / recorded, root / "videos" / recorded.name):
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):  # a link loop
            continue
        if resolved.is_relative_to(root) and resolved.suffix.lower() == ".mp4" and resolved.is_file():
            return resolved
    return None


def _every(entry: dict[str, Any]) -> int:
    """Draw every n-th step, so that a replay has about REPLAY_FRAMES frames (at least every second step)."""
    steps = int(entry["scores"].get("steps", 0) or 0)
    return max(2, -(-steps // REPLAY_FRAMES))


def _video_of(entry: dict[str, Any]) -> str | None:
    prediction = entry.get("prediction")
    video = prediction.get("video") if isinstance(prediction, dict) else None
    return str(video) if video else None


def safe_name(name: str) -> str:
    """A file name for `name`: itself when it is one, else its sanitized form and a hash of the original, so that two
    ids that sanitize alike ("a/b" and "a_b") never share a file."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "episode"
    if safe == name:
        return safe
    return f"{safe[:80]}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"
