"""The Ray backend on a real local Ray cluster: the records of serial, pool and Ray runs are equal, a worker that
dies costs only its chunk, and an episode that keeps killing its worker is recorded as crashed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import runner_ray_toy
from runner_ray_toy import KILLER_NAME, KILLER_TARGET, RAY_ENV, require_ray
from runner_toy import SUITE_NAME, make_episodes, reference, stored, toy_spec

from heedful.agents.registry import AGENTS, make_agent
from heedful.capabilities import capabilities
from heedful.cli import main
from heedful.errors import RunError
from heedful.runner import load_run, ray_backend, run
from heedful.runner.ray_backend import MAX_TRIES
from heedful.runner.ray_options import RayOptions
from heedful.runner.ray_run import RayBackend
from heedful.runner.rollouts import Work
from heedful.suites.registry import get_suite

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("toy"), pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """One local Ray instance (2 CPUs) for the whole module; the backend uses it as the caller's session."""
    ray = require_ray()
    saved = {name: os.environ.get(name) for name in RAY_ENV}
    os.environ.update(RAY_ENV)  # inherited by the Ray processes ray.init starts
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        yield ray
    finally:
        ray.shutdown()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def killer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(AGENTS._targets, KILLER_NAME, KILLER_TARGET)


def bodies(run_dir: Path) -> list[str]:
    """The stored record bodies, in index order, each without its timing (the one field that may differ)."""
    with sqlite3.connect(run_dir / "records.sqlite") as conn:
        rows = conn.execute("SELECT body FROM records ORDER BY idx").fetchall()
    kept = [{k: v for k, v in json.loads(body).items() if k != "timing"} for (body,) in rows]
    return [json.dumps(body, sort_keys=True) for body in kept]


def wait_for_free_cpus(ray: Any, within_s: float = 20.0) -> None:
    """Until both CPUs of the cluster are free again (ray.kill releases an actor's CPU shortly after)."""
    deadline = time.monotonic() + within_s
    while ray.available_resources().get("CPU") != 2.0:
        assert time.monotonic() < deadline, "the Ray workers still hold their CPUs"
        time.sleep(0.05)


def check_complete(run_dir: Path, n: int, expected: list[dict[str, Any]]) -> None:
    records = stored(run_dir)
    assert [r["index"] for r in records] == list(range(n))  # each index once: nothing lost or duplicated
    assert records == expected


def test_ray_gives_the_same_records_as_serial_and_the_pool(cluster: Any, tmp_path: Path) -> None:
    episodes = make_episodes(40)
    spec = toy_spec(episodes, agent_args={"crash_every": 7})
    expected = reference(spec, episodes, tmp_path / "serial")
    run(spec, episodes, tmp_path / "pool", workers=2, progress=False)
    assert stored(tmp_path / "pool") == expected
    for workers in (1, 2):
        result = run(spec, episodes, tmp_path / f"ray{workers}", workers=workers, progress=False, backend="ray")
        assert result.newly_run == 40 and result.counts == {"crashed": 6, "ok": 34}
        check_complete(tmp_path / f"ray{workers}", 40, expected)
        assert bodies(tmp_path / f"ray{workers}") == bodies(tmp_path / "serial") == bodies(tmp_path / "pool")
        assert all("wall_s" in r.timing for r in load_run(tmp_path / f"ray{workers}")[1])
    wait_for_free_cpus(cluster)  # the run's actors are gone


def test_decisions_records_are_the_same_on_ray_as_serial_and_in_the_pool(cluster: Any, tmp_path: Path) -> None:
    common = ["run", "decisions", "--agent", "random-valid", "--limit", "24", "--seed", "3", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "serial")]) == 0
    assert main([*common, "--out", str(tmp_path / "pool"), "--workers", "2"]) == 0
    assert main([*common, "--out", str(tmp_path / "ray"), "--workers", "2", "--backend", "ray"]) == 0
    serial = bodies(tmp_path / "serial")
    assert len(serial) >= 24 and bodies(tmp_path / "pool") == serial and bodies(tmp_path / "ray") == serial


def test_own_class_from_the_start_directory_runs_on_ray_actors(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the actors were started without this directory on any path: the run must tell them where the module is
    (tmp_path / "h45_ray_user.py").write_text(
        "from heedful.agents.decisions import RandomValidAgent\n\n\nclass Mine(RandomValidAgent):\n    pass\n"
    )
    monkeypatch.chdir(tmp_path)
    common = ["run", "decisions", "--limit", "6", "--seed", "3", "--no-progress"]
    assert main([*common, "--agent", "random-valid", "--out", "serial"]) == 0
    assert main([*common, "--agent", "h45_ray_user:Mine", "--out", "ray", "--workers", "2", "--backend", "ray"]) == 0
    assert bodies(tmp_path / "ray") == bodies(tmp_path / "serial")


@pytest.mark.usefixtures("killer")
def test_a_worker_killed_mid_chunk_costs_only_its_chunk(cluster: Any, tmp_path: Path) -> None:
    episodes = make_episodes(40)
    expected = reference(toy_spec(episodes), episodes, tmp_path / "serial")
    marker = tmp_path / "killed-once"
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args={"kill_at": 13, "marker": str(marker)})
    result = run(spec, episodes, tmp_path / "ray", workers=2, progress=False, backend="ray")
    assert marker.exists()  # the worker really died on episode 13
    assert result.newly_run == 40 and result.counts == {"ok": 40}
    check_complete(tmp_path / "ray", 40, expected)


@pytest.mark.usefixtures("killer")
def test_an_episode_that_always_kills_its_worker_is_recorded_as_crashed(cluster: Any, tmp_path: Path) -> None:
    episodes = make_episodes(24)
    expected = reference(toy_spec(episodes), episodes, tmp_path / "serial")
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args={"kill_at": 5})
    result = run(spec, episodes, tmp_path / "ray", workers=2, progress=False, backend="ray")
    assert result.newly_run == 24 and result.counts == {"crashed": 1, "ok": 23}
    records = stored(tmp_path / "ray")
    assert [r["index"] for r in records] == list(range(24))
    crashed = records[5]
    assert crashed["status"] == "crashed" and f"died {MAX_TRIES} times" in str(crashed["error"])
    assert records[:5] + records[6:] == expected[:5] + expected[6:]  # its chunk's other episodes ran normally


@pytest.mark.usefixtures("killer")
def test_closing_the_ray_backend_kills_its_workers(cluster: Any, tmp_path: Path) -> None:
    episodes = make_episodes(60)
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args={"delay": 0.05})
    suite = get_suite(SUITE_NAME)
    agent = make_agent(spec.agent, spec.agent_args, suite=spec.suite)
    train = suite.training_episodes(episodes)
    declared = capabilities(agent)
    if declared.fit is not None:
        declared.fit(train)
    batches = RayBackend(2, RayOptions()).execute(Work(spec, suite, agent, declared, train, list(enumerate(episodes))))
    first = next(batches)
    assert first and all(r.status.value == "ok" for r in first)
    batches.close()  # what run() does on Ctrl-C
    wait_for_free_cpus(cluster)


@pytest.mark.usefixtures("killer")
def test_every_actor_of_a_fittable_agent_killed_mid_run_comes_back_and_the_run_finishes(
    cluster: Any, tmp_path: Path
) -> None:
    episodes = make_episodes(24)
    expected = reference(toy_spec(episodes), episodes, tmp_path / "serial")
    pids = tmp_path / "pids"
    pids.mkdir()
    padding = "x" * 200_000  # the set-up data goes to the object store, as a fitted agent's training data does
    args = {"delay": 0.2, "pid_dir": str(pids), "padding": padding}
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args=args)
    killed: list[int] = []

    def kill_both() -> None:
        deadline = time.monotonic() + 60
        while len(found := sorted(int(p.name) for p in pids.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(1.0)  # both actors well into their chunks (and their set-up long delivered)
        for pid in found[:2]:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    killer_thread = threading.Thread(target=kill_both, daemon=True)
    killer_thread.start()
    result = run(spec, episodes, tmp_path / "ray", workers=2, progress=False, backend="ray")
    killer_thread.join(timeout=5)
    assert len(killed) == 2  # both actors died mid-run; Ray restarted them from the set-up the driver keeps
    assert result.newly_run == 24 and result.counts == {"ok": 24}
    check_complete(tmp_path / "ray", 24, expected)
    wait_for_free_cpus(cluster)


def test_killer_agent_never_kills_the_driver() -> None:
    assert not runner_ray_toy.in_ray_actor()


@pytest.mark.usefixtures("killer")
def test_a_worker_that_cannot_build_its_agent_stops_the_run_with_the_traceback(cluster: Any, tmp_path: Path) -> None:
    episodes = make_episodes(8)
    spec = toy_spec(episodes, agent=KILLER_NAME, agent_args={"broken": True})
    with pytest.raises(RunError, match="setting up the worker failed") as caught:
        run(spec, episodes, tmp_path / "ray", workers=2, progress=False, backend="ray")
    assert "refuses to start in a Ray actor" in str(caught.value)
    manifest, _ = load_run(tmp_path / "ray")
    assert manifest.state == "failed" and "RunError" in (manifest.stop_reason or "")
    wait_for_free_cpus(cluster)


def test_workers_the_cluster_cannot_place_stop_the_run_after_a_while(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ray_backend, "NO_WORKER_TIMEOUT_S", 2.0)
    episodes = make_episodes(8)
    with pytest.raises(RunError, match="no Ray worker has been alive for 2 s"):  # the cluster has no GPU
        run(toy_spec(episodes), episodes, tmp_path / "ray", progress=False, backend="ray", resources={"GPU": 1})
    wait_for_free_cpus(cluster)


# Tabletop and household against serial runs only (the pool's own tests compare it with serial), to keep this short.


def test_tabletop_records_are_the_same_on_ray_as_serially(cluster: Any, tmp_path: Path) -> None:
    pytest.importorskip("mujoco")
    common = ["run", "tabletop", "--agent", "oracle", "--limit", "4", "--trials", "1", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "serial")]) == 0
    assert main([*common, "--out", str(tmp_path / "ray"), "--workers", "2", "--backend", "ray"]) == 0
    serial = bodies(tmp_path / "serial")
    assert len(serial) == 4 and bodies(tmp_path / "ray") == serial


def test_tabletop_records_in_lockstep_on_ray_are_the_unbatched_runs(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mujoco")
    from heedful.api import evaluate

    monkeypatch.setitem(AGENTS._targets, "tabletop/stepwise", "lockstep_controllers:StepwisePolicy")
    common: dict[str, Any] = {
        "suite": "tabletop",
        "agent": "stepwise",
        "agent_args": {"crash": True},
        "limit": 3,
        "order": "file",
        "options": {"trials": 1, "level": ["L0"]},
        "progress": False,
    }
    evaluate(out=tmp_path / "serial", **common)
    evaluate(out=tmp_path / "ray", batch=3, backend="ray", egl_devices="0", **common)
    serial = bodies(tmp_path / "serial")
    assert len(serial) == 3 and bodies(tmp_path / "ray") == serial
    (renderer,) = load_run(tmp_path / "ray")[0].renderers or []  # the actors rendered on the device given
    assert renderer["egl_device"] == 0 and renderer["workers"] and renderer["renderer"]
    assert (
        '"crashed"' in serial[0]
        and max(r.timing.get("predict_batch_mean", 0) for r in load_run(tmp_path / "ray")[1]) > 1
    )
    crashed = [str(r.error) for r in load_run(tmp_path / "ray")[1] if r.status == "crashed"]
    assert crashed and all(  # the reason and its place came back from the actor
        e.startswith("RuntimeError: the policy broke on this trial (at lockstep_controllers.py:")
        and "; from rollout.py:" in e
        for e in crashed
    )


def test_household_records_are_the_same_on_ray_as_serially(cluster: Any, tmp_path: Path) -> None:
    from heedful.runner import RunSpec
    from heedful.suites.household.suite import SUITE

    suite = SUITE
    episodes = suite.generate(0, {"houses": 2, "seen_houses": 1, "per_split_type": 1})[:6]
    spec = RunSpec(
        suite="household",
        suite_version=suite.version,
        dataset_hash=suite.dataset_hash(episodes),
        dataset_source="test",
        agent="oracle",
        seed=5,
    )
    run(spec, episodes, tmp_path / "serial", progress=False)
    run(spec, episodes, tmp_path / "ray", workers=2, progress=False, backend="ray")
    serial = bodies(tmp_path / "serial")
    assert len(serial) == 6 and bodies(tmp_path / "ray") == serial


def test_a_sweep_on_ray_gives_the_cells_of_a_local_sweep(cluster: Any, tmp_path: Path) -> None:
    from heedful.sweep import load_sweep, run_sweep

    text = '[run]\nlimit = 4\n{extra}\n[matrix]\nsuites = ["decisions"]\nagents = ["oracle", "random-valid"]\n'
    cells = []
    for name, extra in (("local", ""), ("ray", 'backend = "ray"\nworkers = 2')):
        (tmp_path / f"{name}.toml").write_text(text.format(extra=extra))
        entries = run_sweep(load_sweep(tmp_path / f"{name}.toml", tmp_path / name), progress=False, say=lambda _: None)
        assert [e["state"] for e in entries] == ["finished", "finished"]
        cells.append([bodies(tmp_path / name / e["run_dir"]) for e in entries])
    assert cells[0] == cells[1] and all(cells[0])
