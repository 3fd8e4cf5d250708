"""The validity-control audit: its table, its verdict, and a run end to end on a small dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.agents.decisions_audit import CONTROLS, main, markdown_table, verdict
from heedful.suites.decisions.suite import SUITE


def results(bow_test: float, bow_train: float, rule: float) -> dict[str, dict[str, dict[str, float | None]]]:
    return {
        "unnamed-member": {"all": {"family_success": rule / 2}, "inhibition": {"family_success": rule}},
        "bow (test)": {"all": {"family_success": bow_test}, "set/retention": {"family_success": 0.9}},
        "bow (train, in-sample)": {"all": {"family_success": bow_train}},
    }


def test_verdict_flags_a_category_a_shallow_control_solves() -> None:
    lines, healthy = verdict(results(0.1, 0.9, rule=1.0))
    assert not healthy
    assert lines[0] == "- FAIL: unnamed-member reaches 100.0% family success on inhibition (limit 50%)"
    # a subtype above the limit is shown in the table but the target is per category
    assert not any("set/retention" in line for line in lines)


def test_verdict_flags_bow_held_out_close_to_its_in_sample_score() -> None:
    lines, healthy = verdict(results(0.6, 0.9, rule=0.2))
    assert not healthy and lines[-1].startswith("- FAIL: bow family success 60.0% on the test split vs 90.0%")
    lines, healthy = verdict(results(0.2, 0.9, rule=0.2))
    assert healthy and lines[0].startswith("- ok: no shallow control")


def test_markdown_table_has_one_row_per_control_and_group() -> None:
    table = markdown_table({"oracle": {"all": {"accuracy": 1.0, "family_success": None}}})
    assert table.splitlines()[0].startswith("| control | group | accuracy | pair success |")
    assert table.splitlines()[2] == "| oracle | all | 100.0 | - | - | - | - |"


@pytest.mark.slow
def test_audit_runs_every_control_end_to_end(default_episodes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    train = [ep for ep in default_episodes if ep.split == "train"][:160]
    test = [ep for ep in default_episodes if ep.split == "test"][:40]
    SUITE.save_dataset(train + test, tmp_path / "data", {"seed": 0})
    out, values = tmp_path / "audit.md", tmp_path / "audit.json"
    code = main(["--dataset", str(tmp_path / "data"), "--out", str(out), "--json", str(values), "--check"])
    data = json.loads(values.read_text())
    assert sorted(data) == sorted(c.label for c in CONTROLS)
    assert data["oracle"]["all"]["family_success"] == 1.0
    assert data["majority"]["all"]["decision_sensitivity"] == 0.0
    assert "| bow --mask (test) | all |" in out.read_text()
    assert code == (0 if "FAIL" not in out.read_text() else 1)
