"""`heedful report --explain`: the glossary names every metric the suites report and every mark of a table."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli import main
from heedful.suites.registry import SUITES, get_suite


def test_the_glossary_covers_every_metric_of_every_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--explain"]) == 0
    text = capsys.readouterr().out
    for name in SUITES.names():
        assert f"{name}: metrics" in text
        for metric in get_suite(name).metric_spec:
            assert f"  {metric.name} " in text, (name, metric.name)
    for term in ("95% CI", "Wilson 95%", "chance", "collapsed", "partial", "intent_full", "complete", "SPL"):
        assert term in text, term


def test_explain_one_suite_or_after_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--explain", "tabletop"]) == 0
    text = capsys.readouterr().out
    assert "tabletop: terms" in text and "decisions: metrics" not in text
    assert main(["report", "--explain", "tabeltop"]) == 2
    assert "did you mean 'tabletop'" in capsys.readouterr().err
    out = tmp_path / "run"
    assert main(["run", "decisions", "--agent", "oracle", "--limit", "4", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--explain", "--resamples", "50"]) == 0
    text = capsys.readouterr().out
    assert text.index("status: ok 4") < text.index("Reading a heedful report") and "decisions: terms" in text
    assert main(["report"]) == 2
