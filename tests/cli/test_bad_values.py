"""`--set` and `--agent-arg` values are type-checked, and generation sizes bounded, before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli.main import main


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["generate", "decisions", "--set", "atomic_families=99999999999999999999"], "less than or equal to 50000"),
        (
            ["generate", "decisions", "--set", "atomic_families=true"],
            "atomic_families: Input should be a valid integer",
        ),
        (["generate", "household", "--set", "houses=abc"], "houses must be an integer from 0 to 1000, got 'abc'"),
        (["generate", "household", "--set", "per_split_type=10000000"], "per_split_type must be an integer"),
        (["run", "decisions", "--agent", "llm", "--agent-arg", "temperature=[1]"], "temperature=[1] is not a valid"),
        (["run", "decisions", "--agent", "llm", "--agent-arg", "max_tokens=many"], "max_tokens='many' is not a valid"),
        (["run", "decisions", "--agent", "random-valid", "--agent-arg", "seed=1"], "has no argument 'seed'"),
    ],
)
def test_a_bad_value_is_one_line_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and not out.exists() and not list(tmp_path.iterdir())
