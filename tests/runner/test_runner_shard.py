"""`--shard I/N` and `heedful merge`: disjoint parts of whole sampling units that join into the unsharded run."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli import main
from heedful.runner import load_run
from heedful.runner.manifest import read_manifest, write_manifest
from heedful.runner.run import shard_positions

RUN = ["run", "decisions", "--agent", "random-valid", "--limit", "40", "--no-progress"]


def _run(out: Path, *extra: str) -> None:
    assert main([*RUN, "--out", str(out), *extra]) == 0


def test_shard_positions_keep_units_whole_and_cover_everything_once() -> None:
    units = [("a", [0, 1, 2, 3]), ("b", [4, 5, 6, 7]), ("c", [8]), ("d", [9, 10])]
    chosen = list(range(11))
    parts = [shard_positions(chosen, units, (i, 3)) for i in (1, 2, 3)]
    assert parts == [[0, 1, 2, 3, 9, 10], [4, 5, 6, 7], [8]]
    # a unit keeps its shard whatever else is selected: a resume that raises --limit moves no episode
    assert shard_positions([4, 8], units, (1, 2)) == [8] and shard_positions([4, 8], units, (2, 2)) == [4]
    assert shard_positions(chosen, units, (1, 2)) == [0, 1, 2, 3, 8]


def test_merged_shards_equal_the_unsharded_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "whole")
    for i in (1, 2, 3):
        _run(tmp_path / f"s{i}", "--shard", f"{i}/3")
    shards = [load_run(tmp_path / f"s{i}")[1] for i in (1, 2, 3)]
    families = [{r.keys["family_id"] for r in records} for records in shards]
    assert not (families[0] & families[1]) and not (families[1] & families[2]) and all(families)  # whole families
    gpu = {"platform": "egl", "egl_device": 0, "vendor": "V", "renderer": "GPU", "version": "4.6", "workers": [0]}
    for i, drawn in ((1, [gpu]), (2, [gpu, {**gpu, "renderer": "llvmpipe"}])):  # as if shards 1, 2 had rendered
        shard = read_manifest(tmp_path / f"s{i}")
        write_manifest(tmp_path / f"s{i}", shard.model_copy(update={"renderers": drawn}))
    args = ["merge", *(str(tmp_path / f"s{i}") for i in (3, 1, 2)), "--out", str(tmp_path / "m")]
    assert main(args) == 0
    manifest, merged = load_run(tmp_path / "m")
    assert manifest.renderers == [gpu, {**gpu, "renderer": "llvmpipe"}]  # every shard's, each once
    _, whole = load_run(tmp_path / "whole")
    assert [r.deterministic_dict() for r in merged] == [r.deterministic_dict() for r in whole]
    assert manifest.spec.shard is None and manifest.planned == 40 and manifest.state == "finished"
    capsys.readouterr()
    assert main(["report", str(tmp_path / "s2"), "--resamples", "20"]) == 0
    assert "(shard 2/3: one of 3 disjoint parts" in capsys.readouterr().out.splitlines()[0]
    assert (
        main(["run", "decisions", "--agent", "random-valid", "--limit", "40", "--resume", "--out", str(tmp_path / "m")])
        == 0
    )


def test_merge_refuses_what_is_not_all_shards_of_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(tmp_path / "a1", "--shard", "1/2")
    _run(tmp_path / "a2", "--shard", "2/2")
    other = ["run", "decisions", "--agent", "oracle", "--limit", "40", "--shard", "2/2", "--no-progress"]
    assert main([*other, "--out", str(tmp_path / "b2")]) == 0
    _run(tmp_path / "whole")
    cases = {
        ("a1",): "shard 2/2 missing",
        ("a1", "a1"): "given twice",
        ("a1", "b2"): "shards of different runs (they differ in agent",
        ("a1", "whole"): "is not a shard run",
    }
    for names, message in cases.items():
        capsys.readouterr()
        assert main(["merge", *(str(tmp_path / n) for n in names), "--out", str(tmp_path / "m")]) == 2
        assert message in capsys.readouterr().err, names
    raised = ["run", "decisions", "--agent", "random-valid", "--limit", "80", "--no-progress", "--shard", "1/2"]
    first_ids = {r.episode_id for r in load_run(tmp_path / "a1")[1]}
    assert main([*raised, "--out", str(tmp_path / "a1"), "--resume"]) == 0
    assert first_ids < {r.episode_id for r in load_run(tmp_path / "a1")[1]}  # grew, kept its episodes
    _run(tmp_path / "f2", "--shard", "2/2", "--order", "file")
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "a2"), str(tmp_path / "f2"), "--out", str(tmp_path / "m")]) == 2
    assert "differ in" in capsys.readouterr().err
    assert main([*RUN, "--out", str(tmp_path / "a1"), "--shard", "2/2", "--resume"]) == 2
    assert "shard" in capsys.readouterr().err
    assert main([*RUN, "--out", str(tmp_path / "x"), "--shard", "0/2"]) == 2
    assert "--shard must look like I/N" in capsys.readouterr().err
