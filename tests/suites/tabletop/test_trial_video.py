"""Videos of stored tabletop trials made on demand (`heedful.suites.tabletop.trial_video`), in real MuJoCo: a planner's
skill calls replayed, a controller re-run, each checked against the stored record and equal in frames to the MP4 that
`--video` records; a record that does not reproduce, a trial without a trajectory and an agent that cannot be re-run
get a typed error that says why, never a video."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from heedful.cli.main import main
from heedful.records import Status
from heedful.runner.manifest import RunSpec, read_manifest, run_identity, write_manifest
from heedful.runner.store import RunStore, load_run
from heedful.suites.tabletop.trial_video import GIF_FRAMES

pytest.importorskip("mujoco")
pytestmark = pytest.mark.render

TRIAL = "s1_L1_000_pickup/t0"
"""The first trial of scene 1 at L1: both the memorizer (a controller) and blind (a planner) fail it, in 180 steps."""
OPTIONS = {"trials": 1, "scene": [1], "level": ["L1"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """memorizer and blind on TRIAL, each without and with --video."""
    from heedful.api import evaluate

    root = tmp_path_factory.mktemp("trial-video-runs")
    made = {}
    for agent in ("memorizer", "blind"):
        for name, options in (
            (agent, OPTIONS),
            (f"{agent}-video", {**OPTIONS, "video_dir": str(root / f"{agent}-videos")}),
        ):
            made[name] = root / name
            evaluate(
                suite="tabletop", agent=agent, out=made[name], limit=1, order="file", options=options, progress=False
            )
    return made


def frames(path: Path) -> np.ndarray:
    import imageio.v2 as imageio

    return np.stack([np.asarray(frame) for frame in imageio.mimread(path, memtest=False)])


def respec(run: Path, spec: RunSpec) -> None:
    """Give the run `spec`, written as a careful editor would: with its identity and digests recomputed (readers
    refuse a casual edit; what the video maker does with such a run is tested here)."""
    identity = run_identity(spec)
    with sqlite3.connect(run / "records.sqlite") as conn:  # the records re-stamped as the new run's
        conn.execute("UPDATE records SET producer = ?", (identity,))
    conn.close()
    write_manifest(run, read_manifest(run).model_copy(update={"spec": spec, "run_identity": identity}))


def edited_copy(run: Path, out: Path, **update: object) -> Path:
    """A copy of `run` whose record of TRIAL has the fields `update` gives."""
    shutil.copytree(run, out)
    manifest, records = load_run(out)
    record = next(r for r in records if r.episode_id == TRIAL)
    with RunStore(out) as store:
        store.put(record.model_copy(update=update), producer=manifest.run_identity)
        # resealed as a forger would (readers refuse a casual edit): what the replay does is tested here
        write_manifest(out, manifest.model_copy(update={"records_digest": store.digest()}))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("agent", "how"), [("memorizer", "the agent memorizer re-run"), ("blind", "skill calls")])
def test_a_failed_trial_of_a_run_without_video_gets_the_frames_video_records(
    runs: dict[str, Path], tmp_path: Path, agent: str, how: str
) -> None:
    from heedful.suites.tabletop.trial_video import TrialVideos

    _, (record,) = load_run(runs[agent])
    assert record.episode_id == TRIAL and record.correct is False and record.prediction["video"] is None
    videos = TrialVideos(runs[agent])
    try:
        summary = videos.write(TRIAL, tmp_path / "trial.mp4")
    finally:
        videos.close()
    assert how in summary and "reproduced the stored record" in summary
    made = frames(tmp_path / "trial.mp4")
    assert made.shape == (record.prediction["steps"] + 1, 224, 224, 3)  # the start, then one frame per step
    _, (recorded,) = load_run(runs[f"{agent}-video"])
    assert np.array_equal(made, frames(Path(recorded.prediction["video"])))


@pytest.mark.slow
def test_heedful_replay_writes_a_tabletop_trial_as_mp4_gif_or_png(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("trial.mp4", "trial.gif", "trial.png"):
        assert main(["replay", str(runs["blind"]), TRIAL, "--out", str(tmp_path / name)]) == 0
        assert f"of {TRIAL} (its skill calls replayed; it reproduced the stored record)" in capsys.readouterr().out
    assert frames(tmp_path / "trial.mp4").shape == (181, 224, 224, 3)
    assert (tmp_path / "trial.gif").read_bytes()[:6] == b"GIF89a"
    assert 1 < len(frames(tmp_path / "trial.gif")) <= GIF_FRAMES  # every 4th step (Pillow merges still frames)
    assert (tmp_path / "trial.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["replay", str(runs["blind"]), TRIAL, "--out", str(tmp_path / "trial.avi")]) == 2
    assert ".mp4, .gif or .png" in capsys.readouterr().err


@pytest.mark.parametrize(("agent", "how"), [("memorizer", "the agent memorizer re-run"), ("blind", "its skill calls")])
def test_a_record_that_does_not_reproduce_gets_no_video(
    runs: dict[str, Path], tmp_path: Path, agent: str, how: str
) -> None:
    from heedful.suites.tabletop.trial_video import NotReproducedError, TrialVideos

    _, (record,) = load_run(runs[agent])
    copy = edited_copy(runs[agent], tmp_path / "run", scores={**record.scores, "intent": 0.5})
    with pytest.raises(NotReproducedError, match=rf"did not reproduce this trial \({how}.*scores.intent: stored 0.5"):
        TrialVideos(copy).write(TRIAL, tmp_path / "trial.mp4")
    assert not (tmp_path / "trial.mp4").exists()


def test_a_controller_that_cannot_be_rerun_gets_a_note_that_says_how_to_get_a_video(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    from heedful.suites.tabletop.trial_video import TrialVideoError, TrialVideos

    copy = tmp_path / "remote"
    shutil.copytree(runs["memorizer"], copy)
    manifest = read_manifest(copy)
    down = {"url": "ws://127.0.0.1:9", "connect_timeout": 2.0, "connect_retries": 0}  # a policy server that is down
    respec(copy, manifest.spec.model_copy(update={"agent": "remote", "agent_args": down}))
    videos = TrialVideos(copy, rerun_agents=[down["url"]])  # the user trusts that URL
    for _ in range(2):  # the second trial gets the note at once, not after another connection attempt
        with pytest.raises(TrialVideoError, match=r"agent remote .* cannot be re-run here.*could not connect.*--video"):
            videos.write(TRIAL, tmp_path / "trial.mp4")
    assert not (tmp_path / "trial.mp4").exists()


def test_a_trial_without_a_trajectory_or_record_or_with_another_dataset_gets_a_note(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    from heedful.suites.tabletop.trial_video import TrialVideoError, TrialVideos

    crashed = edited_copy(runs["blind"], tmp_path / "crashed", status=Status.CRASHED, error="boom", prediction=None)
    with pytest.raises(TrialVideoError, match="no trajectory to show: it ended with status crashed"):
        TrialVideos(crashed).write(TRIAL, tmp_path / "trial.mp4")
    with pytest.raises(TrialVideoError, match="has no record of trial 'nope'"):
        TrialVideos(runs["blind"]).write("nope", tmp_path / "trial.mp4")
    other = tmp_path / "other"
    shutil.copytree(runs["blind"], other)
    manifest = read_manifest(other)
    respec(other, manifest.spec.model_copy(update={"dataset_hash": "sha256:" + "0" * 64}))
    with pytest.raises(TrialVideoError, match="it is not the run's; pass the run's dataset"):
        TrialVideos(other).write(TRIAL, tmp_path / "trial.mp4")


@pytest.mark.slow
@pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")  # openpi-client
def test_a_remote_policy_is_re_run_while_its_server_is_up_and_gets_a_note_once_it_is_down(tmp_path: Path) -> None:
    pytest.importorskip("openpi_client")
    from heedful.api import evaluate
    from heedful.remote.mirror import MirrorPolicy
    from heedful.remote.server import PolicyServer
    from heedful.suites.tabletop.trial_video import TrialVideoError, TrialVideos

    run = tmp_path / "remote"
    with PolicyServer(MirrorPolicy("blind"), port=0) as server:  # heedful's real server, blind as its test peer
        args = {"url": server.url, "connect_retries": 0}
        evaluate(
            suite="tabletop",
            agent="remote",
            agent_args=args,
            out=run,
            limit=1,
            order="file",
            options=OPTIONS,
            progress=False,
        )
        seen = server.connections
        with pytest.raises(TrialVideoError, match=r"would connect to .* never connects .*--rerun-agent ws://"):
            TrialVideos(run).write(TRIAL, tmp_path / "unasked.mp4")  # the URL came with the run directory
        assert server.connections == seen and not (tmp_path / "unasked.mp4").exists()  # not a single request
        videos = TrialVideos(run, rerun_agents=[server.url])
        try:
            assert "the agent remote re-run; it reproduced" in videos.write(TRIAL, tmp_path / "up.mp4")
        finally:
            videos.close()
    assert frames(tmp_path / "up.mp4").shape == (181, 224, 224, 3)
    with pytest.raises(TrialVideoError, match=r"agent remote .* cannot be re-run here.*could not connect.*--video"):
        TrialVideos(run, rerun_agents=[server.url]).write(TRIAL, tmp_path / "down.mp4")
    assert not (tmp_path / "down.mp4").exists()
