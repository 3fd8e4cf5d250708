"""Sweeps: a 2 agents x 2 suites matrix runs as one job into its own run directories, resumes, and prints one
table with the paired differences against the baseline; a bad sweep file fails before anything runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.cli.sweep_command import add_sweep
from heedful.errors import ConfigError
from heedful.report.flags import PRIVILEGED_FLAG
from heedful.runner import load_run
from heedful.sweep import load_sweep, run_sweep, sweep_rows

SWEEP = """
out = "{out}"
baseline = "oracle"

[run]
limit = 4

[matrix]
suites = ["decisions", "tabletop"]
seeds = [0]
agents = [
    "oracle",
    {{ label = "weak", agent = "random-valid", suites = ["decisions"] }},
    {{ label = "weak", agent = "noop", suites = ["tabletop"] }},
]

[options.tabletop]
trials = 1
"""


_M = '[matrix]\nsuites = ["decisions"]\nagents = ["oracle"]\n'


def test_a_damaged_or_escaping_sweep_json_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    out.mkdir()
    cell = {
        "suite": "decisions",
        "agent": "oracle",
        "options_label": "",
        "seed": 0,
        "run_dir": "decisions/oracle/seed0",
    }
    for body, message in [
        ([1, 2], "not a sweep record"),
        ({"cells": [{**cell, "seed": "0"}]}, "seed must be an integer"),
        ({"cells": [{**cell, "run_dir": "../elsewhere"}]}, "is not inside the sweep"),
        ({"cells": [{**cell, "run_dir": "/tmp"}]}, "is not inside the sweep"),
    ]:
        (out / "sweep.json").write_text(json.dumps(body))
        assert main(["report", str(out)]) == 2
        assert message in capsys.readouterr().err


def _sweep_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    add_sweep(parser.add_subparsers(), argparse.HelpFormatter)
    args = parser.parse_args(["sweep", *argv])
    return int(args.handler(args))


@pytest.mark.slow
def test_a_sweep_of_two_agents_on_two_suites_runs_resumes_and_prints_one_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("mujoco")
    out = tmp_path / "sweep"
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP.format(out=out.as_posix()))
    assert _sweep_cli(str(path), "--no-progress", "--resamples", "200") == 0
    table = capsys.readouterr().out
    cells = json.loads((out / "sweep.json").read_text())["cells"]
    assert [(c["suite"], c["agent"], c["state"]) for c in cells] == [
        ("decisions", "oracle", "finished"),
        ("decisions", "weak", "finished"),
        ("tabletop", "oracle", "finished"),
        ("tabletop", "weak", "finished"),
    ]
    for cell in cells:  # each cell is a run directory of its own, resumable and reportable alone
        manifest, records = load_run(out / cell["run_dir"])
        assert manifest.state == "finished" and manifest.spec.agent == cell["agent_name"] and records
    assert table.startswith(f"sweep {out}: 4 cells, baseline oracle")
    rows = sweep_rows(out, resamples=200)
    accuracy = {(r["suite"], r["agent"]): r for r in rows if r["metric"] in ("accuracy", "complete")}
    assert accuracy[("decisions", "oracle")]["value"] == 1.0 and accuracy[("decisions", "oracle")]["diff"] is None
    weak = accuracy[("decisions", "weak")]
    assert weak["baseline"] == "oracle" and weak["diff"] == pytest.approx(weak["value"] - 1.0)
    assert accuracy[("decisions", "oracle")]["flags"] == [PRIVILEGED_FLAG] and weak["flags"] == []
    assert f"oracle [{PRIVILEGED_FLAG}]" in table
    assert ("tabletop", "weak") in accuracy and accuracy[("tabletop", "weak")]["diff"] is not None
    for line in ("decisions  -        0     weak", "tabletop   -        0     oracle"):
        assert line in table

    # Again: every cell is finished, so nothing runs and the table is the same.
    stamps = {c["run_dir"]: (out / c["run_dir"] / "records.sqlite").stat().st_mtime_ns for c in cells}
    entries = run_sweep(load_sweep(path), progress=False, say=lambda line: None)
    assert all(e["state"] == "finished" for e in entries)
    assert {c["run_dir"]: (out / c["run_dir"] / "records.sqlite").stat().st_mtime_ns for c in cells} == stamps
    assert _sweep_cli(str(out), "--resamples", "200") == 0
    assert capsys.readouterr().out == table
    # `heedful report` and `heedful compare` take the sweep directory too; compare may name another baseline
    assert main(["report", str(out), "--resamples", "200"]) == 0
    assert capsys.readouterr().out == table
    assert main(["compare", str(out), "--baseline", "weak", "--resamples", "200"]) == 0
    against_weak = capsys.readouterr().out
    assert against_weak.startswith(f"sweep {out}: 4 cells, baseline weak")
    oracle = next(r for r in sweep_rows(out, resamples=200, baseline="weak") if r["agent"] == "oracle")
    assert oracle["baseline"] == "weak" and oracle["diff"] is not None
    assert main(["compare", str(out), "--baseline", "nobody"]) == 2
    assert "has no agent 'nobody'" in capsys.readouterr().err
    assert main(["compare", str(out / "decisions" / "oracle" / "seed0")]) == 2  # one run, no sweep: say what to give
    assert "heedful compare RUN_A RUN_B" in capsys.readouterr().err
    print(table)  # the combined table, for the record (pytest -s shows it)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('out = "x"\n[matrix]\nsuites = ["decisions"]\nagents = ["oracle"]\n[extra]\n', "unknown key 'extra'"),
        ('out = "x"\n[matrix]\nsuites = ["decisions"]\nagents = ["noop"]\n', "decisions / noop"),
        ('out = "x"\nbaseline = "b"\n[matrix]\nsuites = ["decisions"]\nagents = ["oracle"]\n', "baseline 'b'"),
        ('out = "x"\n[matrix]\nsuites = ["decisions"]\nagents = ["oracle"]\nseeds = [0.5]\n', "list of integers"),
        ('out = "x"\n[matrix]\nsuites = ["decisions"]\nagents = ["oracle", "oracle"]\n', "repeat 'decisions: oracle'"),
        ('out = "x"\n[run]\nworkerz = 2\n[matrix]\nsuites = ["decisions"]\nagents = ["oracle"]\n', "'workerz'"),
        ('[matrix]\nsuites = ["decisions"]\nagents = ["oracle"]\n', "names no sweep directory"),
        ("out = [", "is not valid TOML"),
        # every value checked before the sweep directory exists (issue 44)
        ('out = "x"\n[run]\nlimit = "4"\n' + _M, "limit must be int"),
        ('out = "x"\n[run]\nworkers = "2"\n' + _M, "workers must be int"),
        ('out = "x"\n[run]\nlimit = -4\n' + _M, "limit must be at least 1"),
        ('out = "x"\n[run]\nworkers = 0\n' + _M, "workers must be at least 1"),
        ('out = "x"\n[run]\nverify = "no"\n' + _M, "verify must be bool"),
        ('out = "x"\n[run]\nsplit = "tset"\n' + _M, "split 'tset' is not one of"),
        ('out = "x"\n' + _M + "options = 5\n", "matrix.options must be a non-empty list"),
        ('out = "x"\n' + _M + "[options.tabletopp]\ntrials = 1\n", "unknown key 'tabletopp'"),
        ('out = "x"\n' + _M + 'options = [{ label = "a\\u0000b" }]\n', "must be a plain directory name"),
        ('out = "x"\n' + _M + 'options = [{ label = "m", maks = true }]\n', "decisions / oracle / m:"),
        (
            'out = "x"\n[matrix]\nsuites = ["decisions"]\nagents = [{ agent = "llm", args = { temperatur = 1 } }]\n',
            "no argument 'temperatur'",
        ),
        (
            'out = "x"\n[matrix]\nsuites = ["decisions"]\nagents = [{ agent = "llm", args = { temperature = [1] } }]\n',
            "temperature=[1] is not a valid float",
        ),
    ],
)
def test_a_bad_sweep_file_fails_before_anything_runs(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        load_sweep(path)
    assert not (tmp_path / "x").exists()
