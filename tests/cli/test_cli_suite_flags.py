"""`heedful run SUITE`: each suite's flags come from its run-options model and appear under that suite only."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

import pytest
from pydantic import Field, StrictBool, StrictInt

from heedful.cli import main
from heedful.cli.parser import CliUsageError, Parser
from heedful.cli.suite_flags import add_suite_flags, suite_options
from heedful.errors import ConfigError
from heedful.suites.options import RunOptions, cli_flag
from heedful.suites.registry import get_suite

OWN_FLAGS = {
    "decisions": ["--mask", "--condition", "--subset"],
    "household": ["--perception", "--noise", "--max-calls"],
    "tabletop": ["--level", "--scene", "--trials", "--video", "--max-calls"],
}


def _help(suite: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(["run", suite, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("suite", sorted(OWN_FLAGS))
def test_a_suites_help_lists_its_own_flags_only(suite: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(suite, capsys)
    assert f"{suite} run options" in text
    for flag in OWN_FLAGS[suite]:
        assert flag in text, flag
    others = {f for name, flags in OWN_FLAGS.items() if name != suite for f in flags} - set(OWN_FLAGS[suite])
    for flag in others:
        assert f"{flag} " not in text and f"{flag}\n" not in text, flag
    assert "--split" in text and "--agent" in text


def test_another_suites_flag_is_an_unknown_option_named_as_that_suites(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "tabletop", "--agent", "oracle", "--perception", "noisy"]) == 2
    err = capsys.readouterr().err
    assert "unknown option --perception: it is a run option of household, not of tabletop" in err
    assert "heedful run tabletop --help" in err
    assert main(["run", "decisions", "--agent", "oracle", "--max-calls", "3"]) == 2
    assert "it is a run option of household and tabletop, not of decisions" in capsys.readouterr().err
    assert main(["run", "decisions", "--agent", "oracle", "--sed", "3"]) == 2  # nobody's: a did-you-mean
    assert "unknown option --sed (did you mean '--seed'?)" in capsys.readouterr().err


def test_splits_come_from_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "decisions", "--agent", "oracle", "--split", "val_seen"]) == 2
    assert "invalid choice: 'val_seen'" in capsys.readouterr().err
    assert "val_unseen" in _help("household", capsys)


class ToyOptions(RunOptions):
    """Every kind of field the command line knows."""

    loud: StrictBool = Field(False, description="a switch")
    colour: Literal["red", "blue"] = Field("red", description="a choice")
    size: list[Literal[1, 2, 3]] | None = Field(None, description="a repeatable choice")
    count: StrictInt = Field(5, ge=1, description="a number")
    root: str | None = Field(None, description="set by the suite", json_schema_extra=cli_flag(hidden=True))
    movie: str | None = Field(None, description="a dir", json_schema_extra=cli_flag(flag="--film", out_subdir="f"))
    alpha: float | None = Field(None, description="rate a", json_schema_extra=cli_flag(group="rates"))
    beta: float | None = Field(None, description="rate b", json_schema_extra=cli_flag(group="rates"))


def _parse(argv: list[str]) -> dict[str, object]:
    parser = Parser(prog="toy")
    add_suite_flags(parser, ToyOptions, "toy")
    return suite_options(parser.parse_args(argv), ToyOptions, Path("out"))


def test_flags_map_to_the_options_given() -> None:
    assert _parse([]) == {}
    # given values are stored even when they equal the default (a resume compares the options given)
    assert _parse(["--colour", "red", "--count", "5"]) == {"colour": "red", "count": 5}
    flags = ["--loud", "--colour", "blue", "--size", "3", "--size", "1", "--size", "3", "--count", "2", "--film"]
    options = _parse([*flags, "--rates", "beta=0.5", "--rates", "alpha=0.25"])
    assert options == {
        "loud": True,
        "colour": "blue",
        "size": [1, 3],
        "count": 2,
        "movie": str(Path("out") / "f"),
        "alpha": 0.25,
        "beta": 0.5,
    }
    ToyOptions.model_validate(options)  # what the flags give, the model accepts


def test_hidden_fields_have_no_flag_and_group_keys_are_checked() -> None:
    with pytest.raises(CliUsageError):
        _parse(["--root", "x"])
    with pytest.raises(CliUsageError, match=r"--rates has no key 'alfa' \(did you mean 'alpha'\?\)"):
        _parse(["--rates", "alfa=0.1"])
    with pytest.raises(CliUsageError, match="invalid choice"):
        _parse(["--size", "4"])
    with pytest.raises(CliUsageError, match="invalid int value"):
        _parse(["--count", "many"])


@pytest.mark.parametrize(
    ("suite", "options", "expected"),
    [
        ("tabletop", {"trails": 3}, r"tabletop has no run option 'trails' \(did you mean 'trials'\?\)"),
        ("tabletop", {"trials": "3"}, "positive integer"),
        ("household", {"max_calls": True}, "max_calls"),
        ("household", {"max_calls": 0}, "greater than or equal to 1"),
        ("decisions", {"mask": "yes"}, "decisions run option mask: Input should be a valid boolean"),
        ("decisions", {"subset": 3}, "unknown subset"),
    ],
)
def test_the_model_validates_a_runs_options(suite: str, options: dict[str, object], expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        get_suite(suite).check_options(options)


class ClashingOptions(RunOptions):
    seed: StrictInt = Field(0, description="clashes with the run's own --seed")


class OnByDefault(RunOptions):
    shuffle: StrictBool = Field(True, description="a switch that could never be turned off")


def test_a_model_that_cannot_become_flags_is_a_config_error() -> None:
    from heedful.cli.commands import SuiteRunParser, add_run_arguments

    parser = SuiteRunParser(prog="heedful run toy")
    add_run_arguments(parser)
    with pytest.raises(ConfigError, match="suite toy: a run option's flag clashes with another flag"):
        add_suite_flags(parser, ClashingOptions, "toy")
    with pytest.raises(ConfigError, match="switch with default True"):
        add_suite_flags(Parser(prog="toy"), OnByDefault, "toy")


def test_every_suite_declares_a_run_options_model_and_splits() -> None:
    for name in ("decisions", "household", "tabletop"):
        suite = get_suite(name)
        assert issubclass(suite.run_options, RunOptions)
        assert suite.splits[0] == "all"
        parser = argparse.ArgumentParser()
        add_suite_flags(parser, suite.run_options, name)  # every field is expressible as a flag


def test_flags_before_the_suite_are_answered_with_the_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--agent", "oracle", "decisions"]) == 2
    assert "name the suite first: heedful run SUITE --agent NAME" in capsys.readouterr().err


def test_default_run_directories_name_the_agent_arguments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs of one agent with other arguments never share a default directory (the README replay found it)."""
    from heedful.cli.commands import _agent_tag

    assert _agent_tag({}) == ""
    assert _agent_tag({"constrain": True}) == "-constrained" and _agent_tag({"constrain": False}) == "-unconstrained"
    assert _agent_tag({"model": "a"}) != _agent_tag({"model": "b"}) and _agent_tag({"model": "a"}).startswith("-")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "decisions", "--agent", "oracle", "--limit", "4", "--no-progress"]) == 0
    assert (tmp_path / "runs" / "decisions-oracle-seed0" / "manifest.json").is_file()
