"""A run directory someone sends is data, never code: reading it (view, replay, show, report, export, compare) never
imports what its manifest names nor reads a file outside it that a record names."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.report.site import build_site
from heedful.report.site.media import _stored_video
from heedful.report.trial_video import TrialVideoError, TrialVideos
from heedful.runner import load_run
from heedful.runner.manifest import read_manifest, run_identity, write_manifest
from heedful.runner.store import RunStore


def _site_entries(out: Path) -> list[dict[str, object]]:
    text = (out / "data.js").read_text(encoding="utf-8")
    data = json.loads(text[len("window.HEEDFUL_SITE = ") :].rstrip().rstrip(";"))
    return list(data["episodes"]["r0"])


def _with_agent(source: Path, target: Path, agent: str, agent_args: dict[str, str]) -> Path:
    """A copy of the run `source` whose manifest names `agent`, written as a hostile sender would: with its digests
    recomputed (a digest proves no edit by accident, not who wrote the run)."""
    shutil.copytree(source, target)
    manifest = read_manifest(target)
    spec = manifest.spec.model_copy(update={"agent": agent, "agent_args": agent_args})
    identity = run_identity(spec)
    with sqlite3.connect(target / "records.sqlite") as conn:  # the records re-stamped as the new run's
        conn.execute("UPDATE records SET producer = ?", (identity,))
    conn.close()
    write_manifest(target, manifest.model_copy(update={"spec": spec, "run_identity": identity}))
    return target


def test_a_manifest_naming_os_system_runs_nothing_when_the_run_is_read(
    site_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    evil = _with_agent(site_runs["tt_oracle"], tmp_path / "evil", "os:system", {"command": f"touch {marker}"})
    _, records = load_run(evil)
    trial = records[0].episode_id
    site = tmp_path / "site"
    assert main(["view", str(evil), "--out", str(site), "--episodes", "all", "--no-progress"]) == 0
    notes = [entry["media"] for entry in _site_entries(site)]
    assert all(note["kind"] == "note" for note in notes)  # type: ignore[index]
    assert "'os:system' is not a registered agent" in notes[0]["text"]  # type: ignore[index]
    assert "record with --video to keep a video" in notes[0]["text"]  # type: ignore[index]
    assert main(["replay", str(evil), trial, "--out", str(tmp_path / "t.png")]) == 2
    assert "record with --video to keep a video" in capsys.readouterr().err
    assert main(["show", str(evil), trial]) == 0
    assert main(["report", str(evil)]) == 0
    assert main(["export", str(evil), "--format", "jsonl", "--out", str(tmp_path / "e.jsonl")]) == 0
    assert main(["compare", str(site_runs["tt_oracle"]), str(evil)]) == 0
    assert not marker.exists()
    adapter = _with_agent(site_runs["tt_oracle"], tmp_path / "adapter", "remote", {"adapter": "os:system"})
    with pytest.raises(TrialVideoError, match="would import 'os:system'"):  # a registered agent told to import
        assert TrialVideos(adapter).agent_class is None


def test_a_module_class_agent_is_re_run_only_when_the_user_names_it(
    site_runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "trusted_policy.py").write_text("from heedful.agents.tabletop import OracleAgent\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # MODULE:CLASS imports from the current directory first
    run = _with_agent(site_runs["tt_oracle"], tmp_path / "mine", "trusted_policy:OracleAgent", {})
    with pytest.raises(TrialVideoError, match="record with --video to keep a video"):
        assert TrialVideos(run).agent_class is None  # not named by the user: never imported
    assert "trusted_policy" not in sys.modules
    args = ["view", str(run), "--out", str(tmp_path / "site"), "--episodes", "1", "--no-progress"]
    assert main([*args, "--rerun-agent", "trusted_policy:OracleAgent"]) == 0
    assert "module 'trusted_policy' is imported" in capsys.readouterr().err
    assert _site_entries(tmp_path / "site")[0]["media"]["kind"] == "video"  # type: ignore[index]


def test_a_record_naming_a_file_outside_the_run_never_gets_it_into_the_site(
    site_runs: dict[str, Path], tmp_path: Path
) -> None:
    secret = tmp_path / "secrets.mp4"  # even with a video's suffix
    secret.write_bytes(b"SECRET-KEY-0123456789")
    run = tmp_path / "run"
    shutil.copytree(site_runs["tt_video"], run)
    manifest, records = load_run(run)
    linked = run / "videos" / "linked.mp4"
    linked.symlink_to(secret)  # inside the run, but a link to a file outside it
    with RunStore(run) as store:
        for record, path in zip(records, (secret, linked), strict=True):
            prediction = {**record.prediction, "video": str(path)}
            store.put(record.model_copy(update={"prediction": prediction}), manifest.run_identity)
        write_manifest(run, manifest.model_copy(update={"records_digest": store.digest()}))  # as a sender would
    site = tmp_path / "site"
    build_site([run], site, episodes="all", max_media=1, progress=False)  # the first trial: the absolute path
    entry = _site_entries(site)[0]
    assert entry["media"]["kind"] == "video"  # type: ignore[index]  # made from the records instead
    assert not any(b"SECRET" in f.read_bytes() for f in site.rglob("*") if f.is_file())
    linked_entry = {"prediction": {"video": str(linked)}}
    assert _stored_video(run, linked_entry) is None
    assert _stored_video(run, {"prediction": {"video": "videos/../../secrets.mp4"}}) is None
    kept = {"prediction": {"video": "/elsewhere/" + records[0].episode_id.replace("/", "__") + ".mp4"}}
    assert _stored_video(run, kept) == (run / "videos" / Path(kept["prediction"]["video"]).name).resolve()
