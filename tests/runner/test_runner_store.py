"""RunStore, load_run and the manifest helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from runner_toy import make_episodes, toy_spec

from heedful.errors import RunError
from heedful.records import Record, Status
from heedful.runner import RunStore, load_run
from heedful.runner.manifest import git_state, new_manifest, read_manifest, spec_differences, write_manifest


def _record(index: int, status: Status = Status.OK) -> Record:
    error = None if status is Status.OK else "it failed"
    return Record(episode_id=f"ep-{index}", index=index, status=status, error=error, timing={"wall_s": 0.1})


def test_store_replaces_by_episode_id_and_sorts_by_index(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.put(_record(2))
        store.put(_record(0, Status.INTERFACE_ERROR))
        store.put_many([_record(1, Status.CRASHED), _record(3, Status.PARSE_ERROR)])
        assert store.count_by_status() == {"crashed": 1, "interface_error": 1, "ok": 1, "parse_error": 1}
        assert store.done_ids([Status.OK, Status.PARSE_ERROR]) == {"ep-2", "ep-3"}
        assert store.done_ids([]) == set()

        store.put(_record(0))  # the retried episode replaces its failed record
        assert len(store) == 4
        assert store.count_by_status()["ok"] == 2
    with RunStore(tmp_path) as reopened:
        records = reopened.records()
    assert [r.index for r in records] == [0, 1, 2, 3]
    assert records[0] == _record(0) and records[0].timing == {"wall_s": 0.1}


def test_load_run_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(RunError, match=r"no manifest.json in .*: is this a run directory made by `heedful run`\?"):
        load_run(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(RunError, match="is not a valid run manifest"):
        load_run(tmp_path)


def test_manifest_round_trips_and_is_replaced_atomically(tmp_path: Path) -> None:
    spec = toy_spec(make_episodes(3))
    manifest = new_manifest(spec, {"name": "toy"}, workers=2)
    write_manifest(tmp_path, manifest)
    write_manifest(tmp_path, manifest.model_copy(update={"state": "finished"}))
    assert read_manifest(tmp_path) == manifest.model_copy(update={"state": "finished"})
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]  # no temporary file left behind
    assert load_run(tmp_path) == (read_manifest(tmp_path), [])


def test_spec_differences_ignore_limit() -> None:
    spec = toy_spec(make_episodes(3))
    assert spec_differences(spec, spec.model_copy(update={"limit": 2})) == []
    changed = spec.model_copy(update={"agent_args": {"x": 1}, "dataset_source": "d"})
    assert spec_differences(spec, changed) == ["agent_args"]  # the same content under another path may resume


def test_git_state_is_none_outside_a_checkout(tmp_path: Path) -> None:
    assert git_state(tmp_path) == (None, None)
    assert git_state(tmp_path / "missing") == (None, None)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_state_reads_the_revision_of_a_checkout(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)
    revision, dirty = git_state(package)
    assert revision is not None and len(revision) == 40 and dirty is False
    (package / "__init__.py").write_text("x = 1\n")
    assert git_state(package)[1] is True


def test_a_prompt_is_stored_once_and_records_keep_only_its_hash(tmp_path: Path) -> None:
    from heedful.records import prompt_reference

    shared = prompt_reference((("system", "be brief"), ("user", "pick a1")))
    other = prompt_reference((("system", "be brief"), ("user", "pick a2")), images=(b"png",))
    records = [
        Record(episode_id=f"ep-{i}", index=i, status=Status.OK, inputs={"instruction": "x", "prompt": ref})
        for i, ref in enumerate([shared, shared, other])
    ]
    with RunStore(tmp_path) as store:
        store.put_many(records)
        assert store.prompt_texts() == {shared["sha256"]: shared["text"], other["sha256"]: other["text"]}
        stored = store.records()
    assert [r.inputs["prompt"] for r in stored] == [{"sha256": r["sha256"]} for r in (shared, shared, other)]
    assert "[image] sha256:" in other["text"] and stored[0].inputs["instruction"] == "x"
    assert Record(episode_id="e", index=0, status=Status.OK).model_dump_json().find("inputs") == -1  # as before
