"""One writer per run directory (the lock), records that name their run, orphan records refused, SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_toy import make_episodes, reference, stored, toy_spec
from test_runner_pool import _start, _wait_for_records

from heedful.errors import RunError
from heedful.runner import load_run, run
from heedful.runner.lock import LOCK_NAME, RunLock, RunLockedError
from heedful.runner.store import RunStore

pytestmark = [
    pytest.mark.usefixtures("toy"),
    pytest.mark.timeout(180),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX file locks and signals"),
]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()


def test_a_second_writer_is_refused_by_pid_and_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    episodes = make_episodes(200)
    spec = toy_spec(episodes)
    run_dir = tmp_path / "run"
    proc = _start(spec, run_dir, workers=1, n=200, HEEDFUL_TOY_DELAY="0.02")
    try:
        _wait_for_records(proc, run_dir, at_least=10)
        for resume in (True, False):  # a resume and a fresh run alike, before either touches the run
            with pytest.raises(RunLockedError, match=rf"written by another heedful process \(pid {proc.pid} since"):
                run(spec, episodes, run_dir, resume=resume, progress=False)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        _stop(proc)
    assert (run_dir / LOCK_NAME).exists()  # the file stays; the kernel dropped the lock with the process
    resumed = run(spec, episodes, run_dir, resume=True, progress=False)
    assert resumed.manifest.state == "finished" and resumed.counts == {"ok": 200}
    assert stored(run_dir) == reference(spec, episodes, tmp_path / "ref")


def test_the_lock_is_released_when_the_holder_closes_it(tmp_path: Path) -> None:
    with RunLock(tmp_path), pytest.raises(RunLockedError, match=f"pid {os.getpid()}"):
        RunLock(tmp_path).acquire()  # a second open file description: refused even in one process
    with RunLock(tmp_path):
        pass


def test_sigterm_stops_a_run_like_ctrl_c(tmp_path: Path) -> None:
    episodes = make_episodes(200)
    spec = toy_spec(episodes)
    run_dir = tmp_path / "run"
    proc = _start(spec, run_dir, workers=1, n=200, HEEDFUL_TOY_DELAY="0.02")
    try:
        _wait_for_records(proc, run_dir, at_least=10)
        proc.terminate()
        proc.wait(timeout=30)
    finally:
        _stop(proc)
    manifest, kept = load_run(run_dir)
    assert manifest.state == "interrupted" and manifest.counts == {"ok": len(kept)}
    resumed = run(spec, episodes, run_dir, resume=True, progress=False)
    assert resumed.newly_run == 200 - len(kept)
    assert stored(run_dir) == reference(spec, episodes, tmp_path / "ref")


def test_records_without_their_manifest_are_never_adopted(tmp_path: Path) -> None:
    episodes = make_episodes(8)
    run(toy_spec(episodes), episodes, tmp_path / "run", progress=False)
    (tmp_path / "run" / "manifest.json").unlink()
    other = toy_spec(episodes, agent_args={"crash_every": 3})
    with pytest.raises(RunError, match=r"holds records \(records.sqlite\) but no manifest.json.*will not adopt"):
        run(other, episodes, tmp_path / "run", resume=True, progress=False)


def test_a_run_whose_records_come_from_two_runs_is_refused_by_report_and_resume(tmp_path: Path) -> None:
    episodes = make_episodes(8)
    spec = toy_spec(episodes)
    run(spec, episodes, tmp_path / "a", progress=False)
    run(toy_spec(episodes, agent_args={"crash_every": 3}), episodes, tmp_path / "b", progress=False)
    manifest_a, _ = load_run(tmp_path / "a")
    manifest_b, records_b = load_run(tmp_path / "b")
    assert manifest_a.run_identity and manifest_a.run_identity != manifest_b.run_identity
    with RunStore(tmp_path / "a") as store:
        store.put(records_b[1], manifest_b.run_identity)  # what a second writer would have left
    with pytest.raises(RunError, match=rf"mixes records of different runs \(1 by run {manifest_b.run_identity}"):
        load_run(tmp_path / "a")
    with pytest.raises(RunError, match="mixes records of different runs"):
        run(spec, episodes, tmp_path / "a", resume=True, progress=False)


def test_a_resume_keeps_the_run_identity_when_only_the_limit_grows(tmp_path: Path) -> None:
    episodes = make_episodes(8)
    first = run(toy_spec(episodes, limit=4), episodes, tmp_path / "run", progress=False)
    more = run(toy_spec(episodes), episodes, tmp_path / "run", resume=True, progress=False)
    assert first.manifest.run_identity == more.manifest.run_identity
    with RunStore(tmp_path / "run") as store:
        assert store.producers() == {first.manifest.run_identity: 8}


@pytest.mark.slow
def test_two_writers_started_together_never_merge(tmp_path: Path) -> None:
    """Two processes start on one fresh --out at the same instant, many times: one runs, the other is refused
    (locked, or the run already exists), and the directory always holds exactly one agent's records."""
    episodes = make_episodes(40)
    specs = [toy_spec(episodes), toy_spec(episodes, agent_args={"crash_every": 5})]
    expected = {
        s.agent_args.get("crash_every", 0): reference(s, episodes, tmp_path / f"ref{i}") for i, s in enumerate(specs)
    }
    tries, merges, refusals = 6, 0, {"locked": 0, "exists": 0}
    for attempt in range(tries):
        run_dir = tmp_path / f"race{attempt}"
        start_at = str(time.time() + 2.0)
        procs = [
            _start(s, run_dir, workers=1, n=40, HEEDFUL_TOY_DELAY="0.01", HEEDFUL_TOY_START_AT=start_at) for s in specs
        ]
        codes = [p.wait(timeout=60) for p in procs]
        errors = [p.stderr.read().decode() if p.stderr else "" for p in procs]
        manifest, _ = load_run(run_dir)
        kept = stored(run_dir)
        merges += kept != expected[manifest.spec.agent_args.get("crash_every", 0)]
        assert codes.count(0) == 1 and len(kept) == 40, errors
        (error,) = [e for code, e in zip(codes, errors, strict=True) if code != 0]
        refusals["locked" if "another heedful process" in error else "exists"] += 1
        assert "another heedful process" in error or "already holds a run" in error, error
    assert merges == 0, f"{merges} of {tries} races merged two agents' records"
    print(f"{tries} races: 0 merges; the second writer was refused by the lock {refusals['locked']} times")
