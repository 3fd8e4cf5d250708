"""Exit codes that mean something (heedful.outcome, docs/exit-codes.md): a run, a report, a merge or a sweep exits
0 only when every planned episode is scored; crashes exit 4 with a summary line, unless --max-errors tolerates
them; a run whose first episodes all crash alike stops (6), resumable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.errors import ConfigError
from heedful.outcome import EXIT_ABORTED, EXIT_INCOMPLETE, EXIT_NOT_SCORED, MaxErrors, parse_max_errors, verdict
from heedful.runner.manifest import read_manifest

SMALL = ["--set", "object_anchors=3", "--set", "action_anchors=5", "--set", "atomic_families=12"]
SMALL += ["--set", "multi_families=1", "--set", "visual_families=2"]
ALWAYS = "fault_agents:AlwaysCrashingAgent"
SOMETIMES = "fault_agents:SometimesCrashingAgent"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "small"
    assert main(["generate", "decisions", "--seed", "1", "--out", str(out), "--no-progress", *SMALL]) == 0
    return out


def _run(dataset: Path, out: Path, agent: str, *extra: str) -> int:
    return main(
        [
            "run",
            "decisions",
            "--agent",
            agent,
            "--dataset",
            str(dataset),
            "--out",
            str(out),
            "--no-progress",
            "--limit",
            "24",
            "--order",
            "file",
            *extra,
        ]
    )


def test_crashed_episodes_exit_4_with_a_summary_and_max_errors_tolerates_them(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert _run(dataset, out, SOMETIMES) == EXIT_NOT_SCORED
    err = capsys.readouterr().err
    assert "episodes not scored (crashed" in err and "most frequent error" in err and "a flaky answer" in err
    assert main(["report", str(out), "--resamples", "50"]) == EXIT_NOT_SCORED  # report reads the same rule
    assert main(["report", str(out), "--resamples", "50", "--max-errors", "100%"]) == 0
    assert main(["report", str(out), "--resamples", "50", "--max-errors", "1"]) == EXIT_NOT_SCORED
    assert main(["report", str(out), "--max-errors", "five"]) == 2
    ok = tmp_path / "ok"
    assert _run(dataset, ok, "oracle") == 0


def test_a_run_whose_first_episodes_all_crash_alike_stops_resumable(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert _run(dataset, out, ALWAYS) == EXIT_ABORTED
    err = capsys.readouterr().err
    assert "the first 8 episodes all crashed with the same error: RuntimeError: libfoo.so.1" in err
    manifest = read_manifest(out)
    assert manifest.state == "stopped" and manifest.counts == {"crashed": 8}  # not 24 identical crashes
    assert _run(dataset, out, "oracle", "--resume") == 2  # another agent: refused, as before
    assert main(["report", str(out), "--resamples", "50"]) == EXIT_NOT_SCORED


def test_a_broken_install_is_caught_by_importing_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.requirements import Requirement, check_requirements

    package = tmp_path / "brokenlib"
    package.mkdir()
    (package / "__init__.py").write_text("raise OSError('libGL.so.1: cannot open shared object file')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(Exception, match=r"brokenlib \(a simulator\).*installed but does not import: OSError: libGL"):
        check_requirements("toy", [Requirement("brokenlib", "a simulator", "toy")])


def test_verdicts_of_status_mixes() -> None:
    ok = verdict("r", {"ok": 5, "parse_error": 1}, 6, "finished", {})
    assert ok.code == 0
    assert verdict("r", {"ok": 5}, 6, "finished", {}).code == EXIT_INCOMPLETE
    assert verdict("r", {"ok": 6}, 6, "interrupted", {}).code == EXIT_INCOMPLETE
    for status in ("crashed", "timeout", "interface_error"):
        found = verdict("r", {"ok": 5, status: 1}, 6, "finished", {"E: x": 1})
        assert found.code == EXIT_NOT_SCORED and "E: x" in found.line
        assert verdict("r", {"ok": 5, status: 1}, 6, "finished", {}, MaxErrors(count=1)).code == 0
    assert parse_max_errors("10%").allows(1, 10) and not parse_max_errors("10%").allows(2, 10)
    for bad in ("-1", "1.5", "x%", "101%"):
        with pytest.raises(ConfigError):
            parse_max_errors(bad)
    assert json.dumps(str(parse_max_errors("5%"))) == '"5%"'
