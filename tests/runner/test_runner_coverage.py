"""A run says how much it set out to do: a killed or interrupted run reports "partial: N of M planned"."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_toy import make_episodes, toy_spec

from heedful.api import report
from heedful.runner import load_run, run

pytestmark = pytest.mark.usefixtures("toy")


def test_an_interrupted_run_reports_what_it_covered_of_what_it_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes = make_episodes(24)
    monkeypatch.setenv("HEEDFUL_TOY_INTERRUPT_AT", "10")
    with pytest.raises(KeyboardInterrupt):
        run(toy_spec(episodes, limit=20), episodes, tmp_path / "run", progress=False)
    manifest, _ = load_run(tmp_path / "run")
    assert (manifest.planned, manifest.available) == (20, 24)
    _, title = report(tmp_path / "run", resamples=20)
    assert "partial: 10 of 20 planned (--limit: the first 20 of 24 episodes in file order) | state interrupted" in title
    monkeypatch.delenv("HEEDFUL_TOY_INTERRUPT_AT")
    run(toy_spec(episodes), episodes, tmp_path / "run", resume=True, progress=False)
    _, title = report(tmp_path / "run", resamples=20)
    assert "| 24 records | state finished" in title
