"""A suite's missing requirement stops `heedful run` before anything is written, with both install lines (the
missing package is simulated by hiding it from the import system: a test double of an uninstalled package)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.requirements import Requirement, check_requirements, missing
from heedful.suites.registry import get_suite


def test_a_run_without_the_simulator_stops_before_the_first_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mujoco", None)  # as if not installed
    out = tmp_path / "run"
    args = ["run", "tabletop", "--agent", "oracle", "--level", "L1", "--scene", "2", "--trials", "1", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert 'mujoco (the tabletop simulator): pip install "heedful[tabletop]"' in err
    assert 'from a clone: pip install -e ".[tabletop]"' in err
    assert not out.exists()  # no green run of crashed episodes, no directory at all


def test_video_adds_the_mp4_writer_and_every_declared_module_is_installed_here() -> None:
    suite = get_suite("tabletop")
    assert {r.module for r in suite.requirements({"video_dir": "v"})} >= {"imageio", "imageio_ffmpeg"}
    for name in ("decisions", "household", "tabletop"):
        assert missing(get_suite(name).requirements({"video_dir": "v"})) == []


def test_every_missing_module_is_named() -> None:
    needs = [Requirement("no_such_module_a", "a", "x"), Requirement("no_such.sub", "b")]
    with pytest.raises(Exception, match=r"no_such_module_a \(a\).*no_such.sub \(b\): reinstall heedful"):
        check_requirements("toy", needs)
