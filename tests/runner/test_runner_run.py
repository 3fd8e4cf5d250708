"""run(): records, manifest, failures with their own status, resume rules (serial backend)."""

from __future__ import annotations

import json
import platform
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from runner_toy import AGENT_NAME, AGENT_TARGET, make_episodes, reference, stored, toy_spec

import heedful
from heedful.agents.registry import AGENTS
from heedful.errors import ConfigError, DatasetError, RunError
from heedful.records import Status
from heedful.runner import load_run, run

pytestmark = pytest.mark.usefixtures("toy")


def test_serial_run_writes_one_record_per_episode_and_a_full_manifest(tmp_path: Path) -> None:
    episodes = make_episodes(24)
    spec = toy_spec(episodes)
    result = run(spec, episodes, tmp_path / "run", progress=False)

    manifest, records = load_run(tmp_path / "run")
    assert [r.index for r in records] == list(range(24))
    assert [r.episode_id for r in records] == [e.episode_id for e in episodes]
    assert all(r.status is Status.OK and r.timing["wall_s"] >= 0 for r in records)
    assert len({r.scores["draw"] for r in records}) == 24  # each episode drew from its own seed
    assert {r.agent_info["bias"] for r in records} == {sum(e.answer for e in episodes[::4]) % 10}
    assert all(r.agent_info["mask"] is True for r in records)

    assert result.newly_run == 24 and result.counts == {"ok": 24} and result.manifest == manifest
    assert manifest.spec == spec
    assert manifest.state == "finished" and manifest.counts == {"ok": 24}
    assert manifest.heedful_version == heedful.__version__
    assert manifest.python_version == platform.python_version()
    assert manifest.platform == platform.platform()
    assert manifest.agent == {"name": "toy", "crash_every": 0}
    assert manifest.sessions == 1 and manifest.workers == 1 and manifest.wall_time_s > 0
    assert manifest.finished_at is not None
    started, finished = (
        datetime.fromisoformat(manifest.started_at),
        datetime.fromisoformat(manifest.finished_at),
    )
    assert started.utcoffset() == timedelta(0) and started <= finished
    on_disk = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert on_disk["state"] == "finished" and on_disk["spec"]["agent"] == AGENT_NAME


def test_same_seed_gives_same_records_and_another_seed_does_not(tmp_path: Path) -> None:
    episodes = make_episodes(16)
    first = reference(toy_spec(episodes), episodes, tmp_path / "a")
    assert reference(toy_spec(episodes), episodes, tmp_path / "b") == first
    assert reference(toy_spec(episodes, seed=8), episodes, tmp_path / "c") != first


@pytest.mark.parametrize("workers", [1, 2])
def test_agents_fit_on_the_train_dataset_when_one_is_given(tmp_path: Path, workers: int) -> None:
    full = make_episodes(24)
    test_split = [e for e in full if e.split == "test"]
    run(toy_spec(test_split), test_split, tmp_path / "run", workers=workers, progress=False, train=full)
    records = load_run(tmp_path / "run")[1]
    assert len(records) == 18
    assert {r.agent_info["bias"] for r in records} == {sum(e.answer for e in full if e.split == "train") % 10}


def test_other_exceptions_are_recorded_as_crashed_and_the_run_finishes(tmp_path: Path) -> None:
    episodes = make_episodes(20)
    result = run(toy_spec(episodes, agent_args={"crash_every": 5}), episodes, tmp_path / "run", progress=False)

    _, records = load_run(tmp_path / "run")
    crashed = [r for r in records if r.status is Status.CRASHED]
    assert [r.index for r in crashed] == [1, 6, 11, 16]
    assert crashed[0].error is not None
    assert crashed[0].error.startswith("ValueError: boom on toy-0001 (at runner_toy.py:")
    assert crashed[0].error.endswith(" in act)")
    assert crashed[0].correct is None and crashed[0].gold == episodes[1].answer
    assert result.manifest.state == "finished" and result.counts == {"crashed": 4, "ok": 16}


@pytest.mark.parametrize(("down", "status"), [("interface", Status.INTERFACE_ERROR), ("timeout", Status.TIMEOUT)])
def test_agent_failures_get_their_own_status_and_heal_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, down: str, status: Status
) -> None:
    episodes = make_episodes(24)
    spec = toy_spec(episodes)
    monkeypatch.setenv("HEEDFUL_TOY_DOWN", down)
    first = run(spec, episodes, tmp_path / "run", progress=False)
    failed = [r for r in load_run(tmp_path / "run")[1] if r.status is status]
    assert [r.index for r in failed] == list(range(0, 24, 3))
    assert all(r.error and "toy server" in r.error for r in failed)
    assert first.counts == {status.value: 8, "ok": 16}

    kept = run(spec, episodes, tmp_path / "run", resume=True, retry_failed=False, progress=False)
    assert kept.newly_run == 0 and kept.counts == first.counts

    monkeypatch.delenv("HEEDFUL_TOY_DOWN")
    healed = run(spec, episodes, tmp_path / "run", resume=True, progress=False)
    assert healed.newly_run == 8 and healed.counts == {"ok": 24}
    assert healed.manifest.sessions == 3 and healed.manifest.state == "finished"
    assert stored(tmp_path / "run") == reference(spec, episodes, tmp_path / "ref")


def test_keyboard_interrupt_keeps_finished_records_and_resume_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes = make_episodes(24)
    spec = toy_spec(episodes)
    monkeypatch.setenv("HEEDFUL_TOY_INTERRUPT_AT", "10")
    with pytest.raises(KeyboardInterrupt):
        run(spec, episodes, tmp_path / "run", progress=False)
    manifest, records = load_run(tmp_path / "run")
    assert manifest.state == "interrupted" and manifest.counts == {"ok": 10}
    assert [r.index for r in records] == list(range(10))

    monkeypatch.delenv("HEEDFUL_TOY_INTERRUPT_AT")
    resumed = run(spec, episodes, tmp_path / "run", resume=True, progress=False)
    assert resumed.newly_run == 14 and resumed.manifest.state == "finished"
    assert stored(tmp_path / "run") == reference(spec, episodes, tmp_path / "ref")


def test_limit_then_resume_with_larger_limit_extends_the_run(tmp_path: Path) -> None:
    episodes = make_episodes(24)
    first = run(toy_spec(episodes, limit=10), episodes, tmp_path / "run", progress=False)
    assert first.newly_run == 10 and first.counts == {"ok": 10}

    more = run(toy_spec(episodes, limit=20), episodes, tmp_path / "run", resume=True, progress=False)
    assert more.newly_run == 10 and more.manifest.spec.limit == 20
    assert [r["index"] for r in stored(tmp_path / "run")] == list(range(20))

    rest = run(toy_spec(episodes), episodes, tmp_path / "run", resume=True, progress=False)
    assert rest.newly_run == 4 and rest.counts == {"ok": 24}
    assert stored(tmp_path / "run") == reference(toy_spec(episodes), episodes, tmp_path / "ref")

    with pytest.raises(RunError, match="a resume may keep or raise the limit"):
        run(toy_spec(episodes, limit=5), episodes, tmp_path / "run", resume=True, progress=False)


def test_existing_run_without_resume_is_refused(tmp_path: Path) -> None:
    episodes = make_episodes(4)
    run(toy_spec(episodes), episodes, tmp_path / "run", progress=False)
    with pytest.raises(RunError, match=r"already holds a run; pass --resume to continue it or choose another --out"):
        run(toy_spec(episodes), episodes, tmp_path / "run", progress=False)

    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="is not empty but holds no run"):
        run(toy_spec(episodes), episodes, tmp_path / "other", progress=False)


def test_resume_on_a_directory_without_a_run_starts_fresh(tmp_path: Path) -> None:
    episodes = make_episodes(4)
    result = run(toy_spec(episodes), episodes, tmp_path / "new", resume=True, progress=False)
    assert result.newly_run == 4 and result.manifest.sessions == 1


def test_resume_with_another_spec_names_the_differing_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    episodes = make_episodes(4)
    run(toy_spec(episodes), episodes, tmp_path / "run", progress=False)
    monkeypatch.setitem(AGENTS._targets, "toy-runner-agent-2", AGENT_TARGET)
    with pytest.raises(RunError, match=r"differs from the stored run in agent \(agent: stored 'toy-runner-agent'"):
        run(toy_spec(episodes, agent="toy-runner-agent-2"), episodes, tmp_path / "run", resume=True)
    with pytest.raises(RunError, match=r"in seed, options \("):
        run(toy_spec(episodes, seed=1, options={}), episodes, tmp_path / "run", resume=True)
    assert load_run(tmp_path / "run")[0].state == "finished"  # a refused resume leaves the run alone


def test_spec_must_match_the_suite_and_the_episodes(tmp_path: Path) -> None:
    episodes = make_episodes(4)
    with pytest.raises(ConfigError, match="the episodes hash to"):
        run(toy_spec(make_episodes(5)), episodes, tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match="suite version 'toy-runner-v0'"):
        run(toy_spec(episodes, suite_version="toy-runner-v0"), episodes, tmp_path / "a", progress=False)
    with pytest.raises(DatasetError, match="appears twice"):
        run(toy_spec(episodes), [*episodes, episodes[0]], tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match="workers must be at least 1"):
        run(toy_spec(episodes), episodes, tmp_path / "a", workers=0)
    assert not (tmp_path / "a").exists()


def test_progress_bar_reports_episodes_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    episodes = make_episodes(6)
    run(toy_spec(episodes), episodes, tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    assert "6/6" in err and "ep/s" in err
