"""Every command handles SIGTERM and Ctrl-C with its own message (no --resume where there is none) and leaves
nothing half-written: staging directories of killed processes are removed by the next writer, `heedful view`
replaces a site whole, and two episode ids never share a media file."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from heedful.cli.main import main
from heedful.staging import remove_stale, staged_directory


def _reaped() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_stale_staging_directories_of_dead_processes_are_removed_by_the_next_writer(tmp_path: Path) -> None:
    out = tmp_path / "data"
    dead, alive = _reaped(), os.getpid()
    stale = [tmp_path / f".data.{dead}.abc123.partial", tmp_path / f".data.{dead}.xyz.old"]
    kept = [
        tmp_path / f".data.{alive}.live.partial",
        tmp_path / ".data.oldstyle.partial",
        tmp_path / ".other.1.a.partial",
    ]
    for path in stale + kept:
        path.mkdir()
        (path / "episodes.jsonl").write_text("x" * 1000)
    with staged_directory(out) as staging:
        (staging / "f").write_text("ok")
    assert all(not p.exists() for p in stale) and all(p.exists() for p in kept)
    assert (out / "f").read_text() == "ok" and remove_stale(out) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize(
    ("command", "target", "says"),
    [
        (
            ["merge", "a", "b", "--out", "m"],
            "heedful.runner.merge.merge_runs",
            "heedful merge: interrupted; nothing was written",
        ),
        (
            ["generate", "decisions", "--out", "g"],
            "heedful.staging.staged_directory",
            "heedful generate: interrupted; nothing",
        ),
        (
            ["view", "a", "--out", "v"],
            "heedful.report.site.build_site",
            "heedful view: interrupted; the site was not changed",
        ),
    ],
)
def test_each_command_says_what_an_interrupt_kept(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: list[str],
    target: str,
    says: str,
    signum: int,
) -> None:
    def stopped(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signum)  # delivered to the main thread while the command works
        raise AssertionError("the signal did not stop the command")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(target, stopped)
    assert main(command) == 130
    err = capsys.readouterr().err
    assert says in err and "--resume" not in err


def test_media_names_of_ids_that_sanitize_alike_differ() -> None:
    from heedful.report.site.media import safe_name as _safe

    assert _safe("s1_L1_000_pickup/t0") != _safe("s1_L1_000_pickup_t0") == "s1_L1_000_pickup_t0"
    assert _safe("a b") != _safe("a?b") and _safe("plain-id_1") == "plain-id_1"


def test_an_interrupted_view_leaves_the_previous_site_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import heedful.report.site as site_module

    run = tmp_path / "run"
    args = ["run", "decisions", "--agent", "random-valid", "--limit", "4", "--order", "file", "--no-progress"]
    assert main([*args, "--out", str(run)]) == 0
    site = tmp_path / "site"
    assert main(["view", str(run), "--out", str(site), "--episodes", "none", "--no-progress"]) == 0
    before = (site / "data.js").read_text()

    def interrupted(*a: Any, **k: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(site_module, "suite_figures", interrupted, raising=False)
    monkeypatch.setattr("heedful.report.site.figures.suite_figures", interrupted)
    assert main(["view", str(run), "--out", str(site), "--episodes", "none", "--no-progress"]) == 130
    assert (site / "data.js").read_text() == before and not list(tmp_path.glob(".site.*"))
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert main(["view", str(run), "--out", str(tmp_path / "project"), "--episodes", "none"]) == 2
    assert "not a site heedful view wrote" in capsys.readouterr().err
    assert (tmp_path / "project" / "notes.txt").read_text() == "mine"
