"""`heedful list SUITE`: every agent of the suite with the first line of its docstring."""

from __future__ import annotations

import pytest

from heedful.cli import main


def test_list_describes_the_decisions_controls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "decisions"]) == 0
    lines: dict[str, str] = {}
    for line in capsys.readouterr().out.splitlines():  # the agents' lines come before their arguments'
        lines.setdefault(line.split()[0], line)
    for name in ("lexical", "unnamed-member", "order-of-mention", "bow", "oracle", "random-valid", "majority"):
        assert "Validity control" in lines[name], lines[name]


def test_list_names_an_unknown_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "decison"]) == 2
    assert "did you mean 'decisions'" in capsys.readouterr().err


def test_list_suite_shows_each_agents_arguments_with_type_default_and_meaning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "decisions"]) == 0
    out = capsys.readouterr().out
    arguments = out[out.index("agent arguments (--agent-arg NAME=VALUE") : out.index("run options")]
    assert "    in_sample: bool = False  Evaluating on its own training episodes is refused" in arguments
    assert "  oracle: none" in arguments and "    prompt_dir: str | None = None  A folder" in arguments
