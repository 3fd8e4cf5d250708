"""The command line for the tabletop suite: generate, run (with suite options), resume, report, export, demos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.cli.main import main


def test_generate_run_resume_report_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, run = tmp_path / "data", tmp_path / "run"
    assert main(["generate", "tabletop", "--out", str(data)]) == 0
    lines = (data / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 554
    first = json.loads(lines[0])
    assert {"task", "scene", "level", "config", "instruction"} <= set(first)
    summary = json.loads((data / "dataset.json").read_text(encoding="utf-8"))
    assert summary["counts"]["by_level"] == {"L0": 75, "L1": 86, "L2": 173, "L3": 220}

    args = ["run", "tabletop", "--agent", "oracle", "--dataset", str(data), "--scene", "1", "--level", "L2"]
    args += ["--trials", "2", "--limit", "3", "--out", str(run), "--no-progress"]
    assert main(args) == 0
    assert main([*args[:-3], "--limit", "4", "--out", str(run), "--no-progress", "--resume"]) == 0
    out = capsys.readouterr().out
    assert "ok 4" in out

    assert main(["report", str(run), "--format", "json", "--resamples", "200"]) == 0
    rows = json.loads(capsys.readouterr().out)
    complete = next(r for r in rows if r["group"] == "S1 / L2" and r["metric"] == "complete")
    assert complete["value"] == 1.0 and complete["unit"] == "task"
    assert main(["report", str(run), "--resamples", "200"]) == 0
    assert "Table 1 layout" in capsys.readouterr().out

    export = tmp_path / "rows.jsonl"
    assert main(["export", str(run), "--format", "jsonl", "--out", str(export)]) == 0
    row = json.loads(export.read_text(encoding="utf-8").splitlines()[0])
    for key in ("episode_id", "task", "scene", "level", "trial", "intent", "execution", "complete", "status"):
        assert key in row


def test_suite_options_are_refused_by_other_suites(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["run", "decisions", "--agent", "oracle", "--level", "L1", "--out", str(tmp_path / "r")])
    assert code == 2
    assert "unknown option --level" in capsys.readouterr().err  # a tabletop flag: `heedful run decisions` has none


def test_list_shows_the_tabletop_baselines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("suite tabletop"))
    assert "oracle" in line and "blind" in line


def test_demos_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demos"
    args = ["demos", "tabletop", "--out", str(out), "--per-task", "1", "--task", "s1_t01_pickup", "--no-progress"]
    assert main(args) == 0
    assert "1 demos of 1 tasks" in capsys.readouterr().out
    assert (out / "s1_t01_pickup_demo.hdf5").exists()
    assert main([*args[:-3], "--task", "s1_t99_nothing", "--no-progress"]) == 2
    assert "unknown training task" in capsys.readouterr().err
