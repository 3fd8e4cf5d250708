"""Runs that the `heedful view` tests build sites from: made once per session with scripted agents."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def site_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """decisions oracle and majority (40 records each), household oracle (8 episodes of a small generated
    dataset), tabletop oracle (2 trials) without and with video."""
    from heedful.api import evaluate
    from heedful.suites.household.suite import SUITE

    root = tmp_path_factory.mktemp("site-runs")
    runs = {name: root / name for name in ("dec_oracle", "dec_majority", "hh_oracle", "tt_oracle", "tt_video")}
    evaluate(suite="decisions", agent="oracle", out=runs["dec_oracle"], limit=40, progress=False)
    evaluate(suite="decisions", agent="majority", out=runs["dec_majority"], limit=40, progress=False)
    suite = SUITE
    data = root / "household-data"
    suite.save_dataset(suite.generate(5, {"houses": 4, "seen_houses": 2, "per_split_type": 1}), data, {"seed": 5})
    evaluate(suite="household", agent="oracle", out=runs["hh_oracle"], dataset=data, limit=8, progress=False)
    tabletop = {"trials": 1}
    evaluate(suite="tabletop", agent="oracle", out=runs["tt_oracle"], limit=2, options=tabletop, progress=False)
    video = {**tabletop, "video_dir": str(runs["tt_video"] / "videos")}  # what `heedful run --video` passes
    evaluate(suite="tabletop", agent="oracle", out=runs["tt_video"], limit=2, options=video, progress=False)
    return runs


# The report and plot tests' runs, made once per test process by report_runs (shared by both test files).
@pytest.fixture(scope="module")
def runs() -> dict[str, Path]:
    """One small run of each suite (tests/report/report_runs.py), by suite name."""
    import report_runs

    return report_runs.all_runs()


@pytest.fixture(scope="module")
def decisions_runs() -> dict[str, Path]:
    import report_runs

    return report_runs.decisions_runs()
