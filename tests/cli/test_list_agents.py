"""`heedful list SUITE`: every agent of the suite with the first line of its docstring."""

from __future__ import annotations

import pytest

from heedful.cli import main


def test_list_describes_the_decisions_controls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "decisions"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in ("lexical", "unnamed-member", "order-of-mention", "bow", "oracle", "random-valid", "majority"):
        assert "Validity control" in lines[name], lines[name]


def test_list_names_an_unknown_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "decison"]) == 2
    assert "did you mean 'decisions'" in capsys.readouterr().err
