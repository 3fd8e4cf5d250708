"""`heedful compare` says how many episodes it paired out of each run, and --strict refuses unequal runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.suites.registry import get_suite


def test_compare_names_the_pairing_and_strict_refuses_different_episode_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = [f"--set={key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main(["generate", "decisions", "--out", str(tmp_path / "ds"), "--no-progress", *small]) == 0
    run = ["run", "decisions", "--dataset", str(tmp_path / "ds"), "--no-progress"]
    assert main([*run, "--agent", "oracle", "--limit", "8", "--out", str(tmp_path / "a")]) == 0
    assert main([*run, "--agent", "majority", "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--resamples", "50"]) == 0
    assert (
        "paired 8 episodes scored in both runs (A holds 8, B 36; 0 only in A, 28 only in B" in capsys.readouterr().out
    )
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--strict"]) == 2
    assert "--strict: the runs hold different episodes" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "b"), str(tmp_path / "b"), "--strict", "--resamples", "50"]) == 0
