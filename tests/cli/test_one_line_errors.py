"""Bad places and damaged files end in one line and exit 2, never a traceback; a damaged record store names the
unreadable records and --resume runs exactly those again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from heedful.cli.main import main
from heedful.runner import load_run
from heedful.suites.registry import get_suite


@pytest.fixture
def oracle_run(tmp_path: Path) -> Path:
    small = [f"--set={key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main(["generate", "decisions", "--out", str(tmp_path / "ds"), "--no-progress", *small]) == 0
    out = tmp_path / "run"
    args = ["run", "decisions", "--agent", "oracle", "--dataset", str(tmp_path / "ds"), "--out", str(out)]
    assert main([*args, "--limit", "8", "--no-progress"]) == 0
    return out


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("heedful: error:") and "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_outputs_below_a_file_are_one_line_errors(
    oracle_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x")
    capsys.readouterr()
    assert main(["export", str(oracle_run), "--format", "jsonl", "--out", str(tmp_path / "file" / "x.jsonl")]) == 2
    assert str(tmp_path / "file") in one_line_error(capsys)  # the path that is in the way
    assert main(["generate", "decisions", "--out", str(tmp_path / "file" / "ds")]) == 2
    one_line_error(capsys)
    run = ["run", "decisions", "--agent", "oracle", "--limit", "2", "--no-progress"]
    assert main([*run, "--out", str(tmp_path / "file" / "r")]) == 2
    assert "cannot create run directory" in one_line_error(capsys)


def _stored(run_dir: Path) -> list[dict[str, Any]]:
    return [r.deterministic_dict() for r in load_run(run_dir)[1]]


def test_a_damaged_store_names_its_unreadable_records_and_resume_reruns_exactly_those(
    oracle_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _stored(oracle_run)
    with sqlite3.connect(oracle_run / "records.sqlite") as conn:
        ids = [row[0] for row in conn.execute("SELECT episode_id FROM records ORDER BY idx LIMIT 2")]
        conn.executemany("UPDATE records SET body = '{\"cut' WHERE episode_id = ?", [(i,) for i in ids])
    capsys.readouterr()
    assert main(["report", str(oracle_run)]) == 2
    err = one_line_error(capsys)
    assert f"2 records of {oracle_run} cannot be read ({ids[0]!r}, {ids[1]!r})" in err and "--resume" in err
    manifest = json.loads((oracle_run / "manifest.json").read_text())
    dataset = manifest["spec"]["dataset_source"]
    args = ["run", "decisions", "--agent", "oracle", "--dataset", dataset, "--out", str(oracle_run), "--resume"]
    assert main([*args, "--limit", "8", "--no-progress"]) == 0
    assert "run " in capsys.readouterr().out
    assert _stored(oracle_run) == before  # exactly the two were run again, the same way


def test_a_store_that_is_not_a_database_is_a_one_line_error(
    oracle_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (oracle_run / "records.sqlite-wal").unlink(missing_ok=True)
    (oracle_run / "records.sqlite").write_bytes(b"this is no database" * 100)
    capsys.readouterr()
    assert main(["report", str(oracle_run)]) == 2
    assert "records.sqlite" in one_line_error(capsys)
