"""`heedful show RUN EPISODE_ID`: what the agent was given and did, for each suite, and a wrong id named."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.cli import main
from heedful.runner import load_run
from heedful.suites.household.suite import SUITE


def _show(run: Path, episode_id: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["show", str(run), episode_id]) == 0
    return capsys.readouterr().out


def _fields(text: str) -> set[str]:
    return {line[:13].strip() for line in text.splitlines()[1:] if line[:1] not in (" ", "(")}


def test_a_decisions_episode_shows_instruction_state_candidates_gold_and_prediction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main(["run", "decisions", "--agent", "oracle", "--limit", "4", "--out", str(out), "--no-progress"]) == 0
    _, records = load_run(out)
    record = records[0]
    text = _show(out, record.episode_id, capsys)
    assert {"status", "instruction", "candidates", "observation", "gold", "prediction", "correct"} <= _fields(text)
    assert f"instruction   {record.inputs['instruction']}" in text and "Candidate" in text
    assert record.inputs["instruction"] and record.inputs["candidates"]
    assert main(["show", str(out), record.episode_id[:-1]]) == 2
    assert f"did you mean {record.episode_id!r}" in capsys.readouterr().err


def test_a_tabletop_trial_shows_each_stage_with_its_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["run", "tabletop", "--agent", "oracle", "--level", "L1", "--scene", "2", "--trials", "1", "--limit", "1"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    _, records = load_run(out)
    text = _show(out, records[0].episode_id, capsys)
    assert {"instruction", "task", "layout", "stages", "completion", "skill calls", "scores"} <= _fields(text)
    assert "intent yes  execution yes" in text and records[0].inputs["instruction"] in text


def test_a_household_episode_shows_the_communication_and_the_actions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = SUITE
    data = tmp_path / "data"
    suite.save_dataset(suite.generate(5, {"houses": 4, "seen_houses": 2, "per_split_type": 1}), data, {"seed": 5})
    out = tmp_path / "run"
    args = ["run", "household", "--agent", "commonsense", "--dataset", str(data), "--limit", "2"]
    assert main([*args, "--out", str(out), "--no-progress"]) == 0
    _, records = load_run(out)
    text = _show(out, records[-1].episode_id, capsys)
    assert {"instruction", "house", "communication", "actions", "outcome", "scores"} <= _fields(text)
