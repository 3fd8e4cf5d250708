"""`heedful list tasks SUITE` and `heedful.tasks(...)`: every task with its groups, instruction and description."""

from __future__ import annotations

import json

import pytest

import heedful
from heedful.cli import main
from heedful.errors import ConfigError, UnknownNameError
from heedful.suites.tabletop.registry import evaluation_tasks


def test_tasks_filter_by_level_and_scene_as_the_registry_holds_them() -> None:
    found = heedful.tasks("tabletop", level="L1", scene=2)
    expected = [t for t in evaluation_tasks() if t.level == "L1" and t.scene == 2]
    assert [t.id for t in found] == [t.task for t in expected] and len(found) > 0
    assert [t.instruction for t in found] == [t.instruction for t in expected]
    assert found[0].episode == expected[0] and found[0].groups["level"] == "L1"
    assert heedful.tasks("tabletop", scene="S2", level="L1") == found
    assert len(heedful.tasks("tabletop")) == 554


def test_a_wrong_filter_gets_did_you_mean_and_a_wrong_value_the_values() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'level'"):
        heedful.tasks("tabletop", levl="L1")
    with pytest.raises(ConfigError, match="values: L0, L1, L2, L3"):
        heedful.tasks("tabletop", level="L7")
    with pytest.raises(UnknownNameError, match="did you mean 'tabletop'"):
        heedful.tasks("tabeltop")


def test_list_tasks_prints_id_groups_instruction_and_description(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "tasks", "tabletop", "--where", "level=L2", "--where", "scene=4"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    expected = [t for t in evaluation_tasks() if t.level == "L2" and t.scene == 4]
    assert len(lines) == 2 * len(expected) and f"{len(expected)} tasks" in captured.err
    first = expected[0]
    assert lines[0] == f"{first.task}  L2  S4  {first.action}  {first.instruction}"
    assert lines[1].startswith(f"    {first.action} ") and f"{first.horizon} steps" in lines[1]
    assert main(["list", "tasks", "decisions", "--where", "split=test", "--format", "json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and {r["split"] for r in rows} == {"test"} and all(r["instruction"] for r in rows)


def test_list_tasks_training_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "tasks", "tabletop", "--training"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("s1_t00_pickup  ")
    assert main(["list", "tasks"]) == 2
    assert "heedful list tasks SUITE" in capsys.readouterr().err
    assert main(["list", "tasks", "tabletop", "--where", "levl=L1"]) == 2
    assert "did you mean 'level'" in capsys.readouterr().err


def test_demos_name_a_wrong_training_label_with_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demos", "tabletop", "--out", "unused", "--task", "s1_t00_pikup"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 's1_t00_pickup'" in err and "heedful list tasks tabletop --training" in err
