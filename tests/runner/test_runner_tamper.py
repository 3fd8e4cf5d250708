"""Records and manifests that verify what they say (a guard against accidents and casual edits, not forgers): an
edited score, deleted records, a deleted store, a hand-edited or relabelled manifest and an unknown schema version
are refused (exit 2, naming what changed) by report, export, compare, merge and --resume."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from heedful.cli import main
from heedful.runner.manifest import READABLE_SCHEMAS, manifest_digest
from heedful.runner.store import body_digest

RUN = ["run", "decisions", "--agent", "random-valid", "--limit", "12", "--order", "file", "--no-progress"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run and its two shards, copied by each test before it edits them."""
    root = tmp_path_factory.mktemp("runs")
    assert main([*RUN, "--out", str(root / "run")]) == 0
    for i in (1, 2):
        assert main([*RUN, "--shard", f"{i}/2", "--out", str(root / f"s{i}")]) == 0
    return root


def _copy(made: Path, tmp_path: Path, name: str) -> Path:
    import shutil

    shutil.copytree(made / name, tmp_path / name)
    return tmp_path / name


def _readers(run: Path, other: Path, tmp_path: Path) -> list[list[str]]:
    return [
        ["report", str(run), "--resamples", "20"],
        ["export", str(run), "--format", "jsonl", "--out", str(tmp_path / "x.jsonl")],
        ["compare", str(run), str(other), "--resamples", "20"],
        [*RUN, "--out", str(run), "--resume"],
    ]


def _edit_manifest(run: Path, reseal: bool = False, **changes: object) -> None:
    path = run / "manifest.json"
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        elif key in ("agent_name", "seed"):
            data["spec"][key.removesuffix("_name")] = value
        else:
            data[key] = value
    if reseal:  # a careful editor who recomputes the manifest's own digest
        data["manifest_digest"] = manifest_digest(data)
    path.write_text(json.dumps(data))


def test_an_edited_score_is_refused_by_every_reader_naming_the_record(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(made, tmp_path, "run")
    with sqlite3.connect(run / "records.sqlite") as conn:
        (episode, body), *_ = conn.execute("SELECT episode_id, body FROM records WHERE body LIKE '%\"correct\":false%'")
        conn.execute(
            "UPDATE records SET body = ? WHERE episode_id = ?",
            (body.replace('"correct":false', '"correct":true'), episode),
        )
    for argv in _readers(run, made / "run", tmp_path):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"1 records of {run} were changed after they were written ('{episode}')" in err, argv


@pytest.mark.parametrize("damage", ["delete some", "delete all", "delete the store"])
def test_deleted_records_are_refused(
    made: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(made, tmp_path, "run")
    if damage == "delete the store":
        (run / "records.sqlite").unlink()
    else:
        with sqlite3.connect(run / "records.sqlite") as conn:
            conn.execute("DELETE FROM records" + (" WHERE idx < 3" if damage == "delete some" else ""))
    assert main(["report", str(run), "--resamples", "20"]) == 2
    err = capsys.readouterr().err
    assert ("not those its manifest recorded" in err) or ("has no records.sqlite but its manifest records" in err)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"agent_name": "oracle"}, "was edited after heedful wrote it"),
        ({"seed": 5}, "was edited after heedful wrote it"),
        ({"planned": 500}, "was edited after heedful wrote it"),
        ({"schema_version": "heedful-run/99"}, "has schema_version 'heedful-run/99' (written by heedful "),
        ({"schema_version": None}, "has no schema_version (written by heedful "),
        ({"run_identity": None, "reseal": True}, "lacks its run_identity"),
        ({"seed": 5, "reseal": True}, "is not the identity of its spec"),
    ],
)
def test_an_edited_manifest_is_refused_by_name(
    made: Path, tmp_path: Path, changes: dict[str, object], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(made, tmp_path, "run")
    reseal = bool(changes.pop("reseal", False))
    _edit_manifest(run, reseal=reseal, **changes)
    for argv in _readers(run, made / "run", tmp_path)[:3]:
        capsys.readouterr()
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv


def test_a_manifest_of_a_newer_or_no_schema_says_which_versions_are_read_and_how_to_fix_it(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(made, tmp_path, "run")
    _edit_manifest(run, schema_version="heedful-run/3")
    capsys.readouterr()
    assert main(["report", str(run), "--resamples", "20"]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'manifest.json'} has schema_version 'heedful-run/3'" in err
    assert f"reads {', '.join(READABLE_SCHEMAS)}" in err and "upgrade heedful" in err and "run it again" in err


@pytest.mark.parametrize(("version", "shown"), [("heedful-record/2", "'heedful-record/2'"), (None, "none")])
def test_a_record_of_a_newer_or_no_schema_is_refused_by_every_reader_naming_it(
    made: Path, tmp_path: Path, version: str | None, shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(made, tmp_path, "run")
    with sqlite3.connect(run / "records.sqlite") as conn:
        (episode, body), *_ = conn.execute("SELECT episode_id, body FROM records ORDER BY idx")
        data = json.loads(body)
        data.pop("schema_version")
        if version is not None:  # as a newer heedful would store it: its own digest, the version first
            data = {"schema_version": version, **data}
        text = json.dumps(data, separators=(",", ":"))
        conn.execute("UPDATE records SET body = ?, digest = ? WHERE episode_id = ?", (text, body_digest(text), episode))
    for argv in _readers(run, made / "run", tmp_path):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        where = f"1 records of {run / 'records.sqlite'} ('{episode}') have schema_version {shown}"
        assert f"{where}; this heedful reads heedful-record/1" in err and "upgrade heedful" in err, argv


def test_merge_refuses_an_edited_or_emptied_shard(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s1, s2 = _copy(made, tmp_path, "s1"), _copy(made, tmp_path, "s2")
    assert main(["merge", str(s1), str(s2), "--out", str(tmp_path / "ok")]) == 0
    with sqlite3.connect(s2 / "records.sqlite") as conn:
        conn.execute("DELETE FROM records WHERE idx > 2")
    assert main(["merge", str(s1), str(s2), "--out", str(tmp_path / "m")]) == 2
    assert "not those its manifest recorded" in capsys.readouterr().err and not (tmp_path / "m").exists()
    _edit_manifest(s1, planned=99)
    assert main(["merge", str(s1), str(_copy(made, tmp_path / "b", "s2")), "--out", str(tmp_path / "m")]) == 2
    assert "was edited after heedful wrote it" in capsys.readouterr().err
