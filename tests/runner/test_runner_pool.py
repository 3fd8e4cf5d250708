"""The process-pool backend, and runs killed or interrupted halfway."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_toy import ToyAgent, make_episodes, reference, stored, toy_spec

from heedful.errors import RunError
from heedful.runner import RunSpec, load_run, run
from heedful.runner.worker import import_target

pytestmark = [pytest.mark.usefixtures("toy"), pytest.mark.timeout(120)]
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="sends POSIX signals")

LAUNCH = "import runner_toy; runner_toy.main()"


def _start(spec: RunSpec, run_dir: Path, workers: int, n: int, **env: str) -> subprocess.Popen[bytes]:
    """Run the toy suite in a subprocess (it inherits the fixture's PYTHONPATH)."""
    args = [sys.executable, "-c", LAUNCH, spec.model_dump_json(), str(run_dir), str(workers), str(n)]
    return subprocess.Popen(args, env={**os.environ, **env}, stderr=subprocess.PIPE)


def _stored_count(run_dir: Path) -> int:
    path = run_dir / "records.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.OperationalError:  # the writer has not created the table yet
        return 0


def _wait_for_records(proc: subprocess.Popen[bytes], run_dir: Path, at_least: int) -> int:
    deadline = time.monotonic() + 60
    while (count := _stored_count(run_dir)) < at_least:
        assert proc.poll() is None, f"the run ended early: {proc.stderr.read() if proc.stderr else b''!r}"
        assert time.monotonic() < deadline, "the run did not write records in time"
        time.sleep(0.02)
    return count


def _alive(pid: int) -> bool:
    if not Path("/proc").is_dir():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def _wait_dead(pids: list[int], within_s: float) -> list[int]:
    deadline = time.monotonic() + within_s
    while (alive := [p for p in pids if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _check_complete(run_dir: Path, n: int, expected: list[dict[str, object]]) -> None:
    records = stored(run_dir)
    assert [r["index"] for r in records] == list(range(n))  # each index once: nothing lost or duplicated
    assert len({r["episode_id"] for r in records}) == n
    assert records == expected


def test_each_pool_worker_builds_its_agent_knowing_its_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # so that a policy on plain "cuda" takes cuda:(index mod GPUs), as a worker renders on EGL device index mod N
    episodes = make_episodes(8)
    devices = tmp_path / "devices"
    devices.mkdir()
    monkeypatch.setenv("HEEDFUL_TOY_DEVICEDIR", str(devices))
    run(toy_spec(episodes), episodes, tmp_path / "pool", workers=3, progress=False)
    # the run's own process builds its copy as worker 0; pool workers 0, 1, 2 theirs, worker 2 on cuda:0 of two
    assert sorted(p.name for p in devices.iterdir()) == ["0-cuda:0", "1-cuda:1", "2-cuda:0"]


def test_process_pool_gives_the_same_records_as_serial(tmp_path: Path) -> None:
    episodes = make_episodes(40)
    spec = toy_spec(episodes, agent_args={"crash_every": 7})
    expected = reference(spec, episodes, tmp_path / "serial")
    result = run(spec, episodes, tmp_path / "pool", workers=2, progress=False)
    assert result.newly_run == 40 and result.manifest.workers == 2
    assert result.counts == {"crashed": 6, "ok": 34}
    _check_complete(tmp_path / "pool", 40, expected)
    assert all("wall_s" in r.timing for r in load_run(tmp_path / "pool")[1])


@posix_only
def test_sigkill_halfway_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    episodes = make_episodes(200)
    spec = toy_spec(episodes)
    run_dir = tmp_path / "killed"
    proc = _start(spec, run_dir, workers=1, n=200, HEEDFUL_TOY_DELAY="0.02")
    try:
        _wait_for_records(proc, run_dir, at_least=100)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    manifest, kept = load_run(run_dir)
    assert manifest.state == "running" and 100 <= len(kept) < 200

    resumed = run(spec, episodes, run_dir, resume=True, progress=False)
    assert resumed.newly_run == 200 - len(kept) and resumed.manifest.state == "finished"
    _check_complete(run_dir, 200, reference(spec, episodes, tmp_path / "ref"))


@posix_only
@pytest.mark.parametrize(("hang_from", "committed"), [(40, 32), (48, 48)])
def test_sigkill_at_a_commit_batch_boundary_loses_only_the_pending_batch(
    tmp_path: Path, hang_from: int, committed: int
) -> None:
    # commits every 16 records; the agent hangs on episode `hang_from`: 40 leaves 8 finished records pending
    # (lost by the kill, run again by the resume), 48 ends exactly on a commit (nothing pending)
    episodes = make_episodes(200)
    spec = toy_spec(episodes)
    run_dir = tmp_path / "killed"
    proc = _start(spec, run_dir, workers=1, n=200, HEEDFUL_TOY_COMMIT_EVERY="16", HEEDFUL_TOY_HANG_FROM=str(hang_from))
    try:
        _wait_for_records(proc, run_dir, at_least=committed)
        time.sleep(0.5)  # the hanging episode produces nothing, so no later commit can come
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    _, kept = load_run(run_dir)
    assert [r.index for r in kept] == list(range(committed))  # whole batches only, in order

    resumed = run(spec, episodes, run_dir, resume=True, progress=False)
    assert resumed.newly_run == 200 - committed
    _check_complete(run_dir, 200, reference(spec, episodes, tmp_path / "ref"))  # lost 0, duplicated 0


@posix_only
def test_sigkill_of_a_pool_run_stops_its_workers_and_resume_completes(tmp_path: Path) -> None:
    episodes = make_episodes(200)
    spec = toy_spec(episodes)
    run_dir, piddir = tmp_path / "killed", tmp_path / "pids"
    piddir.mkdir()
    proc = _start(spec, run_dir, workers=2, n=200, HEEDFUL_TOY_DELAY="0.02", HEEDFUL_TOY_PIDDIR=str(piddir))
    try:
        _wait_for_records(proc, run_dir, at_least=60)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    workers = [int(p.name) for p in piddir.iterdir()]
    assert len(workers) == 2 and proc.pid not in workers
    assert _wait_dead(workers, within_s=10) == []  # orphaned workers notice their parent died

    resumed = run(spec, episodes, run_dir, workers=2, resume=True, progress=False)
    assert 0 < resumed.newly_run < 200
    _check_complete(run_dir, 200, reference(spec, episodes, tmp_path / "ref"))


@posix_only
def test_ctrl_c_on_a_pool_run_marks_it_interrupted_and_stops_busy_workers_at_once(tmp_path: Path) -> None:
    episodes = make_episodes(200)
    spec = toy_spec(episodes)
    run_dir, piddir, hangdir = tmp_path / "run", tmp_path / "pids", tmp_path / "hanging"
    piddir.mkdir()
    hangdir.mkdir()
    env = {"HEEDFUL_TOY_DELAY": "0.01", "HEEDFUL_TOY_HANG_FROM": "40", "HEEDFUL_TOY_PIDDIR": str(piddir)}
    proc = _start(spec, run_dir, workers=2, n=200, HEEDFUL_TOY_HANGDIR=str(hangdir), **env)
    try:
        # both workers inside a chunk that hangs for a minute: every earlier chunk is done, its 40 records
        # possibly still pending in the main process (group commits), which must commit them on Ctrl-C
        deadline = time.monotonic() + 60
        while len(list(hangdir.iterdir())) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, "the workers did not reach episode 40"
            time.sleep(0.02)
        time.sleep(0.3)  # the last finished chunk's records reach the main process
        sent = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        stopped_s = time.monotonic() - sent
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode != 0 and b"KeyboardInterrupt" in err
    assert stopped_s < 10  # the hanging chunks were not waited for
    manifest, kept = load_run(run_dir)
    assert manifest.state == "interrupted" and manifest.counts == {"ok": 40} and len(kept) == 40
    assert _wait_dead([int(p.name) for p in piddir.iterdir()], within_s=5) == []


def test_a_worker_that_dies_fails_the_run_and_keeps_its_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes = make_episodes(40)
    monkeypatch.setenv("HEEDFUL_TOY_EXIT_AT", "30")
    with pytest.raises(RunError, match="a worker process died"):
        run(toy_spec(episodes), episodes, tmp_path / "run", workers=2, progress=False)
    manifest, kept = load_run(tmp_path / "run")
    assert manifest.state == "failed" and manifest.counts == {"ok": len(kept)}


def test_a_worker_that_cannot_set_up_fails_the_run_with_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes = make_episodes(8)
    monkeypatch.setenv("HEEDFUL_TOY_BREAK_WORKERS", "1")
    with pytest.raises(RunError, match=r"(?s)setting up the worker failed.*refuses to start in a worker"):
        run(toy_spec(episodes), episodes, tmp_path / "run", workers=2, progress=False)
    assert load_run(tmp_path / "run")[0].state == "failed"


def test_objects_defined_in_a_function_cannot_reach_workers() -> None:
    class Local:
        pass

    assert import_target(ToyAgent, "agent") == "runner_toy:ToyAgent"
    with pytest.raises(RunError, match="cannot be imported by worker processes; define it at module level"):
        import_target(Local, "agent 'local'")
