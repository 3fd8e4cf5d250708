"""A run resumes with its dataset named by another path (same content), and --no-verify loads a deliberate edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.suites.registry import get_suite


def test_resume_accepts_the_same_dataset_by_an_absolute_path_and_refuses_other_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    small = [f"--set={key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main(["generate", "decisions", "--out", "ds", "--no-progress", *small]) == 0
    run = ["run", "decisions", "--agent", "oracle", "--out", "r", "--no-progress"]
    assert main([*run, "--dataset", "ds", "--limit", "4"]) == 0
    assert main([*run, "--dataset", str(tmp_path / "ds"), "--resume"]) == 0
    assert main(["generate", "decisions", "--out", "ds", "--no-progress", "--seed", "3", "--force", *small]) == 0
    capsys.readouterr()
    assert main([*run, "--dataset", "ds", "--resume"]) == 2
    assert "differs from the stored run in dataset_hash" in capsys.readouterr().err


def test_no_verify_loads_an_edited_dataset_that_is_still_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    small = [f"--set={key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main(["generate", "decisions", "--out", "ds", "--no-progress", *small]) == 0
    file = tmp_path / "ds" / "episodes.jsonl"
    file.write_text(file.read_text().replace('"instruction":"', '"instruction":"Please: ', 1))
    run = ["run", "decisions", "--agent", "oracle", "--dataset", "ds", "--limit", "4", "--no-progress"]
    capsys.readouterr()
    assert main([*run, "--out", "a"]) == 2
    assert "does not match the content hash" in capsys.readouterr().err
    assert main([*run, "--out", "b", "--no-verify"]) == 0
