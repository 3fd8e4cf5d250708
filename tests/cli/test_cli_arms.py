"""`heedful run SUITE --arms ...` as one job of sibling runs, and its table in report and compare (issue 42)."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli import main

RUN = ["run", "tabletop", "--agent", "blind", "--level", "L0", "--scene", "1", "--trials", "1", "--limit", "1"]


def test_arms_run_as_sibling_runs_and_report_one_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "job"
    assert main([*RUN, "--arms", "given,empty,other", "--out", str(job), "--no-progress"]) == 0
    assert sorted(p.name for p in job.iterdir()) == ["arms.json", "empty", "given", "other"]
    capsys.readouterr()
    assert main(["report", str(job)]) == 0
    table = capsys.readouterr().out
    assert "Language dependence | tabletop | agent blind" in table and "arms given, empty, other" in table
    assert "status: given ok 1; empty ok 1; other ok 1" in table
    # the blind control reads no words: each arm scores as given, a difference of exactly 0 (all and L0)
    assert table.count("+0.0 [0.0, 0.0] (n=1)") == 4
    assert main(["report", str(job / "other"), "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "| instruction other |" in out and "followed given words" in out
    assert main(["compare", str(job / "empty"), str(job / "given"), "--resamples", "100"]) == 0
    assert "Language dependence" in capsys.readouterr().out
    assert main([*RUN, "--arms", "given,empty", "--instruction", "empty", "--out", str(tmp_path / "x")]) == 2
    assert "drop --instruction" in capsys.readouterr().err
