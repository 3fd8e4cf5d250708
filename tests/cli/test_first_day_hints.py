"""Hints a first-day user meets point at commands that work: did-you-mean for a run directory, the wrong suite's
dataset named as such, `heedful export RUN --format jsonl --out -` on standard output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.cli import main

SMALL = ["--set", "object_anchors=3", "--set", "action_anchors=5", "--set", "atomic_families=40"]
SMALL += ["--set", "multi_families=2", "--set", "visual_families=10"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("hints")
    assert main(["generate", "decisions", "--seed", "1", "--out", str(root / "data"), "--no-progress", *SMALL]) == 0
    args = ["run", "decisions", "--agent", "oracle", "--dataset", str(root / "data"), "--limit", "4"]
    assert main([*args, "--out", str(root / "runs" / "oracle"), "--no-progress"]) == 0
    return root / "data", root / "runs" / "oracle"


def test_a_mistyped_run_directory_gets_a_did_you_mean(
    small_run: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = small_run[1]
    assert main(["report", str(run.parent / "oracel")]) == 2
    assert f"no run directory {run.parent / 'oracel'} (did you mean '{run}'?)" in capsys.readouterr().err


def test_a_dataset_of_another_suite_is_named_as_such(
    small_run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = small_run[0]
    assert main(["run", "household", "--agent", "oracle", "--dataset", str(data), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{data} is a decisions dataset (dataset.json says suite 'decisions'), not a household one" in err
    assert "heedful release" not in err and not (tmp_path / "r").exists()


def test_export_with_out_dash_writes_json_lines_to_stdout(
    small_run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["export", str(small_run[1]), "--format", "jsonl", "--out", "-"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 4 and all("episode_id" in row for row in rows) and not (tmp_path / "-").exists()
    assert main(["export", str(small_run[1]), "--format", "parquet", "--out", "-"]) == 2
    assert "use --format jsonl" in capsys.readouterr().err
