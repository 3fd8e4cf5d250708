"""The command-line contract: generate, run, report, export, compare, and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from heedful.cli import main

HERE = Path(__file__).parent
SMALL = [
    "--set",
    "object_anchors=3",
    "--set",
    "action_anchors=5",
    "--set",
    "atomic_families=40",
    "--set",
    "multi_families=2",
    "--set",
    "visual_families=10",
]


def heedful(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "heedful", *args], capture_output=True, text=True, timeout=300)


def test_generate_is_byte_identical_for_a_seed_and_differs_for_another(tmp_path: Path) -> None:
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        assert main(["generate", "decisions", "--seed", seed, "--out", str(tmp_path / name), "--no-progress"]) == 0
    for file in ("episodes.jsonl", "dataset.json"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()
    assert (tmp_path / "a" / "episodes.jsonl").read_bytes() != (tmp_path / "c" / "episodes.jsonl").read_bytes()
    summary = json.loads((tmp_path / "a" / "dataset.json").read_text())
    assert summary["counts"]["instances"] == 4036 and summary["counts"]["families"] == 1009
    assert set(summary["counts"]) >= {"by_category", "by_split", "by_role", "by_decision_type"}
    assert summary["content_hash"].startswith("sha256:")


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "small"
    assert main(["generate", "decisions", "--seed", "1", "--out", str(out), "--no-progress", *SMALL]) == 0
    return out


def run(dataset: Path, out: Path, agent: str, *extra: str, code: int = 0) -> None:
    args = ["run", "decisions", "--agent", agent, "--dataset", str(dataset), "--out", str(out), "--no-progress"]
    assert main([*args, *extra]) == code


def test_run_report_export_compare(small_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(small_dataset, tmp_path / "oracle", "oracle")
    run(small_dataset, tmp_path / "random", "random-valid", "--mask")
    capsys.readouterr()

    assert main(["report", str(tmp_path / "oracle"), "--format", "json", "--resamples", "500"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all({"metric", "group", "value", "ci_low", "ci_high", "n"} <= set(r) for r in rows)
    names = {r["metric"] for r in rows if r["group"] == "all"}
    assert names >= {
        "accuracy",
        "parse_success",
        "pair_success",
        "decision_invariance",
        "decision_sensitivity",
        "over_invariance",
        "over_sensitivity",
        "family_success",
    }
    groups = {r["group"] for r in rows}
    assert {"category:inhibition", "category:set", "category:cardinality", "category:temporal"} <= groups
    accuracy = next(r for r in rows if r["metric"] == "accuracy" and r["group"] == "all")
    assert accuracy["value"] == 1.0 and accuracy["n"] == 168

    assert main(["report", str(tmp_path / "random")]) == 0
    table = capsys.readouterr().out
    assert "masked instructions" in table and "accuracy" in table

    for fmt in ("jsonl", "parquet"):
        out = tmp_path / f"export.{fmt}"
        assert main(["export", str(tmp_path / "random"), "--format", fmt, "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (tmp_path / "export.jsonl").read_text().splitlines()]
    assert len(lines) == 168
    required = {
        "episode_id",
        "family_id",
        "anchor_id",
        "role",
        "category",
        "split",
        "decision_type",
        "gold",
        "prediction",
        "status",
        "correct",
    }
    assert required <= set(lines[0])
    import pyarrow.parquet as pq

    table_pq = pq.read_table(tmp_path / "export.parquet")
    assert table_pq.num_rows == 168 and required <= set(table_pq.column_names)
    from heedful.report.export_schema import file_problems

    for fmt in ("jsonl", "parquet"):  # typed as `heedful schema decisions --export` says, read with pyarrow
        assert file_problems("decisions", tmp_path / f"export.{fmt}") == []
    assert {type(x["visual"]) for x in lines} == {bool} and all(isinstance(x["gold"], str) for x in lines)

    capsys.readouterr()
    assert (
        main(["compare", str(tmp_path / "oracle"), str(tmp_path / "random"), "--format", "json", "--resamples", "500"])
        == 0
    )
    comparison = json.loads(capsys.readouterr().out)
    acc = next(r for r in comparison if r["metric"] == "accuracy" and r["group"] == "all")
    assert acc["diff"] > 0.5 and acc["ci_low"] > 0
    mcnemar = next(r for r in comparison if r["metric"] == "mcnemar_accuracy" and r["group"] == "all")
    assert mcnemar["p_value"] < 1e-6


def test_a_dataset_exports_and_validates_against_the_shipped_schema(small_dataset: Path, tmp_path: Path) -> None:
    import jsonschema

    from heedful.suites.decisions.dataset import render_schema, schema_text

    assert schema_text() == render_schema(), "episode.schema.json is stale: regenerate it from the model"
    schema = json.loads(schema_text())
    for line in (small_dataset / "episodes.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), schema)
    assert main(["export", str(small_dataset), "--format", "parquet", "--out", str(tmp_path / "d.parquet")]) == 0


def test_a_user_dataset_without_constraints_runs_every_agent_but_the_oracle(
    small_dataset: Path, tmp_path: Path
) -> None:
    from heedful.runner import load_run

    user = tmp_path / "user"
    user.mkdir()
    lines = (small_dataset / "episodes.jsonl").read_text().splitlines()[:8]
    stripped = [json.dumps({k: v for k, v in json.loads(x).items() if k not in ("task", "template_id")}) for x in lines]
    (user / "episodes.jsonl").write_text("\n".join(stripped) + "\n")
    run(user, tmp_path / "random", "random-valid")
    run(user, tmp_path / "oracle", "oracle", code=4)  # every episode crashed: not a successful run
    _, records = load_run(tmp_path / "oracle")
    assert {r.status.value for r in records} == {"crashed"}
    assert "no symbolic task" in (records[0].error or "")


def test_bad_input_gives_one_line_typed_errors(small_dataset: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = (small_dataset / "episodes.jsonl").read_text().splitlines()
    broken = json.loads(lines[2])
    broken["gold"] = 17
    (bad / "episodes.jsonl").write_text("\n".join([lines[0], lines[1], json.dumps(broken), "{not json"]) + "\n")
    cases = [
        (
            ["run", "decisions", "--agent", "oracle", "--dataset", str(bad), "--out", str(tmp_path / "r")],
            "episodes.jsonl:3: field 'gold",
        ),
        (["run", "decisions", "--agent", "oracel", "--out", str(tmp_path / "r")], "did you mean 'oracle'"),
        (["run", "decisions", "--agent", "oracle", "--workrs", "2"], "did you mean '--workers'"),
        (
            ["generate", "decisions", "--out", str(tmp_path / "g"), "--set", "atomic_familes=3"],
            "did you mean 'atomic_families'",
        ),
        (["report", str(tmp_path / "nothing")], "manifest.json"),
    ]
    for args, expected in cases:
        result = heedful(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert expected in result.stderr, result.stderr


def test_sigkill_halfway_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    from heedful.runner import load_run

    sys.path.insert(0, str(HERE))
    from slow_agents import evaluate_slow

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, str(HERE / "slow_agents.py"), str(killed)], env=env)
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline and done < 200:
        time.sleep(0.1)
        if (killed / "records.sqlite").exists():
            with sqlite3.connect(killed / "records.sqlite") as db:
                try:
                    done = db.execute("select count(*) from records").fetchone()[0]
                except sqlite3.OperationalError:  # the file exists but its table is not created yet
                    continue
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < done < 400
    evaluate_slow(str(killed), resume=True)
    evaluate_slow(str(tmp_path / "clean"), resume=False)
    _, resumed = load_run(killed)
    _, clean = load_run(tmp_path / "clean")
    assert [r.index for r in resumed] == list(range(400))
    assert [r.deterministic_dict() for r in resumed] == [r.deterministic_dict() for r in clean]
