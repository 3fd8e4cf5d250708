"""A two-node Ray cluster on this machine (`ray start --head` plus a second `ray start --address` with its own
resources): killing the second node's worker processes mid-run loses and duplicates nothing, and Ctrl-C stops the
run's workers and leaves a run that resumes."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from runner_ray_toy import KILLER_NAME, RAY_ENV, cluster_workers, node_workers, require_ray, stop_cluster
from runner_toy import make_episodes, reference, stored, toy_spec

from heedful.runner import RunSpec, load_run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.usefixtures("toy"),
    pytest.mark.timeout(240),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the node's processes in /proc"),
]

LAUNCH = "import runner_ray_toy; runner_ray_toy.main()"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ray(*args: str) -> None:
    ray_bin = Path(sys.executable).with_name("ray")
    command = [str(ray_bin) if ray_bin.exists() else "ray", "start", *args, "--disable-usage-stats"]
    out = subprocess.run(command, env={**os.environ, **RAY_ENV}, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"{' '.join(command)} failed:\n{out.stdout}\n{out.stderr}"


@dataclass(frozen=True)
class Cluster:
    address: str
    temp_dir: str


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[Cluster]:
    """A head node (1 CPU) and a second node (1 CPU and the custom resource `node_b`), for the whole module."""
    require_ray()
    temp_dir = tempfile.mkdtemp(prefix="hr", dir="/tmp")  # short: Ray's unix sockets live under it
    port = _free_port()
    try:
        _ray("--head", "--num-cpus", "1", "--port", str(port), "--temp-dir", temp_dir, "--include-dashboard=false")
        _ray("--address", f"127.0.0.1:{port}", "--num-cpus", "1", "--resources", '{"node_b": 1}')
        yield Cluster(f"127.0.0.1:{port}", temp_dir)
    finally:
        stop_cluster(temp_dir)  # this cluster's processes only: `ray stop` would stop every cluster of the machine
        shutil.rmtree(temp_dir, ignore_errors=True)


def _busy(pids: list[int], pid_dir: Path) -> list[int]:
    return [pid for pid in pids if (pid_dir / str(pid)).exists()]


def _stored_count(run_dir: Path) -> int:
    try:
        with sqlite3.connect(f"file:{run_dir / 'records.sqlite'}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def _launch(spec: RunSpec, run_dir: Path, n: int, cluster: Cluster, *extra: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", LAUNCH, spec.model_dump_json(), str(run_dir), "2", str(n), cluster.address, *extra]
    return subprocess.Popen(args, env={**os.environ, **RAY_ENV}, stderr=subprocess.PIPE, text=True)


def test_killing_the_second_nodes_workers_mid_run_loses_and_duplicates_nothing(
    two_nodes: Cluster, tmp_path: Path
) -> None:
    n = 200  # 8 s of work for the head alone: time for the second node's worker to start on a busy machine
    episodes = make_episodes(n)
    expected = reference(toy_spec(episodes), episodes, tmp_path / "serial")
    pid_dir = tmp_path / "pids"  # each worker process touches its pid here when it runs an episode
    pid_dir.mkdir()
    # the toy agent, 40 ms an episode
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args={"delay": 0.04, "pid_dir": str(pid_dir)})
    run_dir = tmp_path / "ray"
    proc = _launch(spec, run_dir, n, two_nodes)
    started = time.monotonic()
    try:
        # kill once the second node's worker is busy with episodes, and some records are stored
        while not (victims := _busy(node_workers("node_b"), pid_dir)) or _stored_count(run_dir) < 16:
            assert proc.poll() is None, f"the run ended before the kill: {proc.stderr.read() if proc.stderr else ''}"
            assert time.monotonic() - started < 120, "the run did not start on both nodes"
            time.sleep(0.02)
        before = _stored_count(run_dir)
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic() - started
        _, stderr = proc.communicate(timeout=150)
    finally:
        proc.kill()
        proc.wait()
    retried = [line for line in stderr.splitlines() if "a Ray worker died" in line]
    records = stored(run_dir)
    print(f"killed node_b's worker processes {victims} (SIGKILL) {killed_at:.1f} s after the start")
    print(f"records stored before the kill: {before}; after the run: {len(records)} of {n}")
    print("\n".join(retried))
    assert proc.returncode == 0, stderr
    assert retried, "the driver saw no worker die"  # the kill hit a chunk in flight, which ran again
    assert before < n
    indexes = [r["index"] for r in records]
    assert len(indexes) - len(set(indexes)) == 0 and sorted(set(range(n)) - set(indexes)) == []  # duplicates, lost
    assert records == expected  # the same records as one process gives
    manifest, _ = load_run(run_dir)
    assert manifest.state == "finished" and manifest.counts == {"ok": n}


def test_ctrl_c_on_a_ray_run_stops_its_workers_and_a_resume_completes(two_nodes: Cluster, tmp_path: Path) -> None:
    n = 120
    episodes = make_episodes(n)
    expected = reference(toy_spec(episodes), episodes, tmp_path / "serial")
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args={"delay": 0.04})
    run_dir = tmp_path / "ray"
    proc = _launch(spec, run_dir, n, two_nodes)
    try:
        while _stored_count(run_dir) < 16:
            assert proc.poll() is None, f"the run ended early: {proc.stderr.read() if proc.stderr else ''}"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert "KeyboardInterrupt" in stderr
    manifest, kept = load_run(run_dir)
    assert manifest.state == "interrupted" and 16 <= len(kept) < n
    deadline = time.monotonic() + 30
    while cluster_workers(two_nodes.temp_dir):  # the driver killed its actors on the way out
        assert time.monotonic() < deadline, f"workers left running: {cluster_workers(two_nodes.temp_dir)}"
        time.sleep(0.1)

    resumed = _launch(spec, run_dir, n, two_nodes, "resume")
    _, stderr = resumed.communicate(timeout=150)
    assert resumed.returncode == 0, stderr
    records = stored(run_dir)
    assert [r["index"] for r in records] == list(range(n)) and records == expected
    assert load_run(run_dir)[0].state == "finished"
