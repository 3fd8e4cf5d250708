"""`heedful generate` writes a dataset whole or not at all and replaces a non-empty --out only with --force."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.errors import ConfigError
from heedful.staging import staged_directory
from heedful.suites.registry import get_suite


def test_a_failure_inside_leaves_the_old_directory_untouched_and_no_partial_one(tmp_path: Path) -> None:
    out = tmp_path / "data"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt), staged_directory(out, force=True) as staging:
        (staging / "new.txt").write_text("half")
        raise KeyboardInterrupt
    assert [p.name for p in tmp_path.iterdir()] == ["data"] and (out / "old.txt").read_text() == "old"


def test_success_replaces_the_directory_whole_with_ordinary_permissions(tmp_path: Path) -> None:
    out = tmp_path / "data"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with staged_directory(out, force=True) as staging:
        (staging / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["data"]  # nothing retired or staged is left beside it
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask


def test_a_non_empty_out_needs_force_and_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x").write_text("x")
    with pytest.raises(ConfigError, match="is not empty; pass --force"), staged_directory(tmp_path / "data"):
        pass
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is a file"), staged_directory(tmp_path / "file"):
        pass


def test_generate_refuses_a_non_empty_out_then_replaces_it_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ds"
    args = ["generate", "decisions", "--out", str(out), "--no-progress"]
    small = [f"--set={key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main([*args, *small]) == 0
    first = json.loads((out / "dataset.json").read_text())["content_hash"]
    assert main([*args, *small]) == 2
    assert "is not empty; pass --force" in capsys.readouterr().err
    assert main([*args, *small, "--set", "no_such_key=1", "--force"]) == 2  # a failed generate replaces nothing
    assert json.loads((out / "dataset.json").read_text())["content_hash"] == first
    assert main([*args, *small, "--seed", "1", "--force"]) == 0
    assert json.loads((out / "dataset.json").read_text())["content_hash"] != first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]
