"""Scene entropy H(T | S): RoboFollow's training set (3.782 bits) and LIBERO's suites from their grouping."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from heedful.api import entropy
from heedful.cli.main import main
from heedful.errors import ConfigError, DatasetError
from heedful.metrics.entropy import LIBERO_GROUPS, entropy_report, libero_entropies, scene_entropy


def test_entropy_formula_on_small_groupings() -> None:
    assert scene_entropy([1, 1, 1]) == 0.0  # every scene admits one task: language is redundant
    assert scene_entropy([4]) == pytest.approx(2.0)
    assert scene_entropy([2, 1, 1]) == pytest.approx(0.5)
    with pytest.raises(ConfigError):
        scene_entropy([])
    with pytest.raises(ConfigError):
        scene_entropy([3, 0])


def test_our_training_set_has_3_782_bits_in_six_groups() -> None:
    result = entropy()
    assert round(result["bits"], 3) == 3.782
    assert sorted(g["tasks"] for g in result["groups"]) == [4, 7, 16, 16, 16, 16]
    assert result["tasks"] == 75
    expected = sum(n / 75 * math.log2(n) for n in (16, 16, 16, 16, 7, 4))
    assert result["bits"] == pytest.approx(expected)


def test_libero_suites_from_their_grouping() -> None:
    assert {suite: len(groups) for suite, groups in LIBERO_GROUPS.items()} == dict.fromkeys(LIBERO_GROUPS, 10)
    values = libero_entropies()
    assert round(values["libero_spatial"], 3) == 0.0
    assert round(values["libero_object"], 3) == 0.0
    assert round(values["libero_goal"], 3) == 3.322
    assert round(values["libero_10"], 3) == 0.200
    assert round(values["mean"], 3) == 0.880


def test_grouping_follows_the_scene_spec_not_its_key_order(tmp_path: Path) -> None:
    lines = [
        {"task": "a", "scene": {"objects": ["cube", "bowl"], "table": 1}},
        {"task": "b", "scene": {"table": 1, "objects": ["cube", "bowl"]}},
        {"task": "c", "scene": {"table": 2, "objects": ["cube"]}},
        {"task": "a", "scene": {"objects": ["cube", "bowl"], "table": 1}},  # a repeated label counts once
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = entropy(path)
    assert result["bits"] == pytest.approx(2 / 3)
    assert sorted(g["tasks"] for g in result["groups"]) == [1, 2]
    path.write_text('{"task": "a"}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"tasks\.jsonl:1"):
        entropy(path)
    with pytest.raises(ConfigError):
        entropy_report([])


def test_entropy_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["entropy", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["bits"], 3) == 3.782 and len(data["groups"]) == 6
    assert main(["entropy", "--libero"]) == 0
    assert "0.880 bits" in capsys.readouterr().out
