"""The agentview video of a stored tabletop trial, made on demand from a run recorded without `--video`.

The trial is rolled out again through the suite's own rollout, with `video_dir` set to a temporary folder, the run's
options and the run's per-episode seed; the video is kept only when the new record reproduces the stored one:

- a planner's record holds its skill calls, so they are played back (`RecordedCalls`) and the agent is not needed
  (a language model server may be down, and a replay costs no tokens). The check compares the judged trajectory:
  every call's outcome and first step, each stage's verdict with its detail (grasp step, distances to the mm), the
  completion, the step counts, the trial's layout, the scores and `correct`. The agent's own texts, usage and status
  are not compared: the player sends the stored calls, then `done`.
- a controller's actions are not stored, so the run's agent is built again from the manifest (agent, agent_args,
  fitted on the suite's training episodes as the runner does) and rolled out. Only a registered agent is built: a
  run directory is data someone may have sent, and a `MODULE:CLASS` its manifest names is imported only when the
  user names it for that purpose (`rerun_agents`, the `--rerun-agent` flag); otherwise the trial gets a note. The
  check compares the whole record (`Record.deterministic_dict`) but for the video's path.

A trial that does not reproduce raises `NotReproducedError` naming the first differences: a video of another
trajectory is never shown. Physics and rendering are deterministic, so a reproduced trial's MP4 has the frames
`--video` would have written.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Collection
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.capabilities import capabilities
from heedful.errors import AgentInterfaceError, AgentTimeoutError, ConfigError, MissingDependencyError, RunError
from heedful.language.arms import OPTION, OTHER_EPISODE
from heedful.records import Record
from heedful.replies import AgentReply
from heedful.suites.tabletop.model import TabletopTask, TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation
from heedful.suites.tabletop.skillcalls import SkillCall

if TYPE_CHECKING:
    from heedful.protocols import Agent, AgentFactory

FORMATS = (".mp4", ".gif", ".png")
GIF_FRAMES = 60
"""About how many frames a GIF keeps (a 240-step trial: every 5th of its 241): a GIF of every frame is large."""
HOW_TO_RECORD = "to record videos, rerun it with `heedful run tabletop ... --video`"
_IMPORT_NAME = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
"""A `MODULE:CLASS` value among an agent's arguments (an adapter, a policy class): it would be imported."""
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")
"""A URL among an agent's arguments (a policy server, a model server): a re-run would connect to it."""
AGENT_FIELDS = ("status", "error", "raw_output", "usage", "agent_info")
"""Record fields the call player cannot reproduce: they are the agent's, and the agent does not run."""


class TrialVideoError(RunError):
    """A stored trial's video cannot be made (no trajectory, the dataset or the agent is not here)."""


class NotReproducedError(TrialVideoError):
    """The trial rolled out again did not reproduce the stored record, so its video would show another trial."""


class RecordedCalls:
    """A planner that sends a stored trial's skill calls, in order, then `done`."""

    name = "recorded-calls"

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def act(self, observation: PlannerObservation) -> AgentReply:
        made = len(observation.history)
        return AgentReply(self.calls[made] if made < len(self.calls) else SkillCall(skill="done").text())


class TrialVideos:
    """Makes the videos of one tabletop run's trials; the dataset and the agent are loaded once, when first needed.

    Args:
        run_dir: The run directory.
        dataset: The dataset directory, when the run's own source has moved.
        rerun_agents: `MODULE:CLASS` agent names the user trusts to import and run (a run whose manifest names one
            of them may be re-run); a registered agent needs no such name.

    Raises:
        RunError: not a run, or not a tabletop run.
    """

    def __init__(self, run_dir: Path, dataset: Path | None = None, rerun_agents: Collection[str] = ()) -> None:
        from heedful.runner import load_run
        from heedful.suites.tabletop.suite import SUITE

        self.run_dir, self.dataset = Path(run_dir), dataset
        manifest, records = load_run(self.run_dir)
        if manifest.spec.suite != "tabletop":
            raise RunError(f"{run_dir} is a {manifest.spec.suite} run, not a tabletop run")
        self.spec = manifest.spec
        self.rerun_agents = frozenset(rerun_agents)
        self.records = {r.episode_id: r for r in records}
        self.suite = SUITE
        self._tasks: dict[str, TabletopTask] | None = None
        self._agent: Agent | None = None
        self._agent_error: str | None = None

    def write(self, episode_id: str, out: Path) -> str:
        """Write the video of one trial to `out` (.mp4; .gif, every few frames; .png, the last frame).

        Returns:
            What was written, in one line.

        Raises:
            ConfigError: `out` has another suffix.
            TrialVideoError: the video cannot be made (the message says why and how to get one).
            NotReproducedError: the trial rolled out again is not the stored one.
        """
        out = Path(out)
        if out.suffix.lower() not in FORMATS:
            raise ConfigError(f"a trial's video is written as .mp4, .gif or .png (last frame), not {out.name!r}")
        stored = self._record(episode_id)
        with tempfile.TemporaryDirectory(prefix="heedful-trial-video-") as folder:
            replayed = self._roll_out(stored, self._trial(stored), folder)
            self._check(stored, replayed)
            prediction = replayed.prediction or {}
            frames = _save(Path(str(prediction.get("video"))), out, int(prediction.get("steps", 0)))
        how = "its skill calls replayed" if self.plays_calls else f"the agent {self.spec.agent} re-run"
        what = "the last frame" if out.suffix.lower() == ".png" else f"{frames} frames"
        return f"wrote {what} of {episode_id} ({how}; it reproduced the stored record) to {out}"

    def close(self) -> None:
        """Close the re-run agent, if one was built."""
        from heedful.capabilities import capabilities

        close = capabilities(self._agent).close if self._agent is not None else None
        self._agent = None
        if close is not None:
            close()

    def _record(self, episode_id: str) -> Record:
        record = self.records.get(episode_id)
        if record is None:
            raise TrialVideoError(f"run {self.run_dir} has no record of trial {episode_id!r}")
        if not record.status.scored or not isinstance(record.prediction, dict):
            raise TrialVideoError(
                f"trial {episode_id} has no trajectory to show: it ended with status {record.status.value} "
                f"({record.error}); run it again with `heedful run ... --resume`"
            )
        return record

    def _trial(self, record: Record) -> TabletopTrial:
        table = self._task_table()
        task = table.get(record.keys.get("task", ""))
        # the trials of this task alone; an `--instruction other` substitute is the one its record names
        plain = {k: v for k, v in self.spec.options.items() if k != OPTION}
        trials = self.suite.episodes_for_run([task], plain) if task is not None else []
        trial = next((t for t in trials if t.episode_id == record.episode_id), None)
        if trial is None:
            raise TrialVideoError(
                f"the dataset of run {self.run_dir} has no trial {record.episode_id!r}; pass the run's dataset "
                "(`heedful replay ... --dataset DIR`)"
            )
        other = record.inputs.get(OTHER_EPISODE)
        return trial.model_copy(update={"other": table[str(other)]}) if other in table else trial

    def _task_table(self) -> dict[str, TabletopTask]:
        if self._tasks is None:
            from heedful.dataset_cache import episodes_of, source_episodes

            source = self.spec.dataset_source
            tasks = episodes_of(TabletopTask, source_episodes(self.suite, source, self.dataset), source)
            if " split=" not in self.spec.dataset_source:  # a split's hash is of its part only
                actual = self.suite.dataset_hash(self.suite.episodes_for_run(tasks, self.spec.options))
                if actual != self.spec.dataset_hash:
                    raise TrialVideoError(
                        f"the dataset found for run {self.run_dir} hashes to {actual}, the run's to "
                        f"{self.spec.dataset_hash}: it is not the run's; pass the run's dataset (--dataset DIR)"
                    )
            self._tasks = {t.task: t for t in tasks}
        return self._tasks

    @cached_property
    def plays_calls(self) -> bool:
        """Whether the run's agent is a planner, whose stored skill calls are replayed (else it is re-run)."""
        from heedful.capabilities import capabilities

        return capabilities(self.agent_class).kind == "planner"

    @cached_property
    def agent_class(self) -> AgentFactory:
        """The run's agent class: a registered one, or a `MODULE:CLASS` the user named in `rerun_agents`.

        Raises:
            TrialVideoError: the manifest names any other class (it is never imported).
        """
        from heedful.agents.registry import import_agent, registered_agent_class

        name = self.spec.agent
        cls = registered_agent_class(name, "tabletop")
        texts = _argument_texts(self.spec.agent_args)
        imports = [v for v in texts if _IMPORT_NAME.fullmatch(v) and v not in self.rerun_agents]
        if cls is not None and imports:  # a registered agent told to import code (a remote policy's adapter)
            raise TrialVideoError(
                f"this run's agent {name} would import {', '.join(map(repr, imports))} (named in its arguments), "
                "and heedful never imports code that a run directory names: record with --video to keep a video "
                f"(or pass --rerun-agent {imports[0]} if you trust that code)"
            )
        if cls is not None:
            return cls
        if name not in self.rerun_agents:
            raise TrialVideoError(
                f"this run's agent {name!r} is not a registered agent, and heedful never imports code that a run "
                f"directory names: record with --video to keep a video (or pass --rerun-agent {name} if you trust "
                "that code and want its trials re-run)"
            )
        try:
            return import_agent(name)
        except ConfigError as exc:
            raise TrialVideoError(f"--rerun-agent {name}: {exc}; record with --video to keep a video") from exc

    def _roll_out(self, stored: Record, trial: TabletopTrial, folder: str) -> Record:
        from heedful.runner.episode import episode_context

        if self.plays_calls:
            agent: Agent = RecordedCalls([str(c["call"]) for c in stored.prediction.get("calls", [])])
        else:
            agent = self._rerun_agent()
        context = episode_context(self.spec, trial, stored.index, {**self.spec.options, "video_dir": folder})
        try:
            return self.suite.rollout_episode(trial, agent, context)
        except (AgentInterfaceError, AgentTimeoutError, OSError) as exc:  # a policy server that is down
            error = self._cannot_rerun(exc)
            self._agent_error = str(error)  # the next trials get the note at once, not after another timeout
            raise error from exc

    def _rerun_agent(self) -> Agent:
        """The run's agent, built and fitted once (a failure is remembered: every trial gets the same note)."""
        if self._agent_error is not None:
            raise TrialVideoError(self._agent_error)
        urls = [v for v in _argument_texts(self.spec.agent_args) if _URL.fullmatch(v) and v not in self.rerun_agents]
        if urls:  # a remote policy: the trial (and the viewer's network) would go to a server the run names
            raise TrialVideoError(
                f"this run's agent {self.spec.agent} would connect to {', '.join(map(repr, urls))} (named in its "
                "arguments), and heedful never connects to a server that a run directory names: record with --video "
                f"to keep a video (or pass --rerun-agent {urls[0]} if you trust that server)"
            )
        if self._agent is None:
            from heedful.agents.registry import build_agent
            from heedful.runner.episode import fit_agent

            try:
                agent = build_agent(self.agent_class, self.spec.agent, self.spec.agent_args)
                fit_agent(agent, self.suite.training_episodes(list(self._task_table().values())))
                # as a run does before its first trial: a remote agent connects here, and learns whether its
                # server asks for the trial (its `privileged` declaration follows from that)
                capabilities(agent).description()
            except (AgentInterfaceError, AgentTimeoutError, MissingDependencyError, ConfigError, OSError) as exc:
                error = self._cannot_rerun(exc)
                self._agent_error = str(error)
                raise error from exc
            self._agent = agent
        return self._agent

    def _cannot_rerun(self, exc: Exception) -> TrialVideoError:
        return TrialVideoError(
            f"this run was made without --video, and its agent {self.spec.agent} (a controller: its actions are "
            f"not stored) cannot be re-run here to make one: {type(exc).__name__}: {exc}; {HOW_TO_RECORD}"
        )

    def _check(self, stored: Record, replayed: Record) -> None:
        exclude = AGENT_FIELDS if self.plays_calls else ()
        differences = _differences(_fingerprint(stored, exclude), _fingerprint(replayed, exclude))
        if differences:
            how = "its skill calls replayed" if exclude else f"the agent {self.spec.agent} re-run"
            raise NotReproducedError(
                f"the agent did not reproduce this trial ({how}): {'; '.join(differences)}; no video is shown "
                f"rather than one of another trajectory; {HOW_TO_RECORD}"
            )


def _fingerprint(record: Record, exclude: tuple[str, ...]) -> dict[str, Any]:
    data = {k: v for k, v in record.deterministic_dict().items() if k not in exclude}
    prediction = data.get("prediction")
    if isinstance(prediction, dict):
        data["prediction"] = {k: v for k, v in prediction.items() if k != "video"}
    return data


def _differences(stored: Any, replayed: Any, path: str = "", limit: int = 3) -> list[str]:
    """Up to `limit` field paths where two JSON values differ, each with both values (shortened)."""
    if isinstance(stored, dict) and isinstance(replayed, dict):
        found: list[str] = []
        for key in [*stored, *(k for k in replayed if k not in stored)]:
            found += _differences(stored.get(key), replayed.get(key), f"{path}.{key}" if path else str(key), limit)
            if len(found) >= limit:
                break
        return found[:limit]
    if isinstance(stored, list) and isinstance(replayed, list) and len(stored) == len(replayed):
        found = []
        for i, (a, b) in enumerate(zip(stored, replayed, strict=True)):
            found += _differences(a, b, f"{path}[{i}]", limit)
            if len(found) >= limit:
                break
        return found[:limit]
    if stored == replayed:
        return []
    return [f"{path or 'record'}: stored {_short(stored)}, replayed {_short(replayed)}"]


def _short(value: Any, width: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _save(video: Path, out: Path, steps: int) -> int:
    """Move the MP4 to `out` (.mp4), or re-encode its frames (.gif, .png); return the frames `out` holds."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".mp4":
        shutil.move(video, out)
        return steps + 1  # the recorder's frames: the start, then one per control step
    frames = _decode(video)
    if out.suffix.lower() == ".png":
        from PIL import Image

        Image.fromarray(frames[-1]).save(out, format="PNG")
        return 1
    from heedful.sims.tabletop.video import write_video

    every = max(1, -(-len(frames) // GIF_FRAMES))
    write_video(frames[::every], out, fps=20.0 / every)  # the MP4's pace: --video writes 20 frames a second
    return len(frames[::every])


def _decode(video: Path) -> Any:
    try:
        import imageio.v2 as imageio
        import numpy as np
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError('reading trial videos needs imageio: pip install "heedful[tabletop]"') from exc
    return np.stack([np.asarray(frame) for frame in imageio.mimread(video, memtest=False)])


def _argument_texts(agent_args: dict[str, Any]) -> list[str]:
    """Every text among an agent's arguments, those inside lists too (a pool's URLs)."""
    found: list[str] = []
    for value in agent_args.values():
        items = value if isinstance(value, list | tuple) else [value]
        found.extend(item for item in items if isinstance(item, str))
    return found
