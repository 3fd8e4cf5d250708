"""Datasets are verified on load: the recorded content hash, bad bytes named by file and line, and per-suite
semantic checks that refuse an edit a shallow check would let through (a gold against its own constraints, an
object moved off its receptacle, a goal outside the vocabulary, an object off the table)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from heedful.errors import DatasetError
from heedful.suites.registry import get_suite

SUITES = ("decisions", "household", "tabletop")
_CACHE: dict[str, list[Any]] = {}


def small(name: str) -> list[Any]:
    if name not in _CACHE:
        suite = get_suite(name)
        _CACHE[name] = list(suite.generate(0, dict(suite.check_config)))[:40]
    return _CACHE[name]


def saved(name: str, out: Path, edit: Callable[[dict[str, Any]], None] | None = None, line: int = 0) -> Path:
    """Write the small dataset; with `edit`, change one episode and save it again (so its hash is right: the
    case of a dataset of your own, which only the semantic checks can catch)."""
    suite = get_suite(name)
    episodes = small(name)
    if edit is not None:
        raw = json.loads(episodes[line].model_dump_json())
        edit(raw)
        episodes = [*episodes[:line], type(episodes[line]).model_validate(raw), *episodes[line + 1 :]]
    suite.save_dataset(episodes, out, {"seed": 0})
    return out


@pytest.mark.parametrize("name", SUITES)
def test_a_changed_byte_is_refused_by_the_content_hash_unless_no_verify(name: str, tmp_path: Path) -> None:
    out = saved(name, tmp_path / "d")
    suite = get_suite(name)
    assert suite.load_dataset(out) == small(name)
    file = out / "episodes.jsonl"
    text = file.read_text(encoding="utf-8")
    file.write_text("{ " + text[1:], encoding="utf-8")  # the same content in other bytes: still refused
    with pytest.raises(DatasetError, match=r"does not match the content hash its dataset.json records.*--no-verify"):
        suite.load_dataset(out)
    assert suite.load_dataset(out, verify=False) == small(name)


@pytest.mark.parametrize("name", SUITES)
def test_bad_bytes_name_the_file_line_and_byte(name: str, tmp_path: Path) -> None:
    out = saved(name, tmp_path / "d")
    file = out / "episodes.jsonl"
    lines = file.read_bytes().split(b"\n")
    lines[1] = lines[1][:10] + b"\xff" + lines[1][11:]
    file.write_bytes(b"\n".join(lines))
    with pytest.raises(DatasetError, match=r"episodes.jsonl:2: not UTF-8 text \(byte 0xff at column 11\)"):
        get_suite(name).load_dataset(out, verify=False)


def _solved_otherwise(raw: dict[str, Any]) -> None:
    other = next(c["id"] for c in raw["candidates"] if c["id"] != raw["gold"])
    raw["gold"] = other


def test_a_decisions_gold_against_its_own_constraints_is_refused(tmp_path: Path) -> None:
    line = next(i for i, ep in enumerate(small("decisions")) if ep.decision_type == "single" and ep.task)
    out = saved("decisions", tmp_path / "d", _solved_otherwise, line)
    with pytest.raises(DatasetError, match=rf"episodes.jsonl:{line + 1}: .*but its constraint set solves to"):
        get_suite("decisions").load_dataset(out)


def _moved_far(raw: dict[str, Any]) -> None:
    raw["relocations"][0]["x"] += 3.0


def _unknown_goal(raw: dict[str, Any]) -> None:
    raw["goal"] = {"kind": "receptacle", "receptacle": "spaceship", "function": None}


def _human_outside(raw: dict[str, Any]) -> None:
    raw["human"]["start"] = [-50.0, -50.0]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_moved_far, r"relocations\[0\]: .* is not on receptacle"),
        (_unknown_goal, r"goal receptacle 'spaceship' is not in the vocabulary"),
        (_human_outside, r"human.start \(-50.0, -50.0\) is outside every room"),
    ],
)
def test_a_household_world_edit_is_refused(
    edit: Callable[[dict[str, Any]], None], message: str, tmp_path: Path
) -> None:
    goal_kind = "human" if edit is not _unknown_goal else "receptacle"
    line = next(
        i
        for i, ep in enumerate(small("household"))
        if ep.relocations and (ep.goal.kind != "human") == (goal_kind != "human")
    )
    out = saved("household", tmp_path / "d", edit, line)
    with pytest.raises(DatasetError, match=message):
        get_suite("household").load_dataset(out)


def _off_the_table(raw: dict[str, Any]) -> None:
    raw["layout"]["objects"][0]["x"] = 2.0


def test_a_tabletop_object_off_the_table_is_refused(tmp_path: Path) -> None:
    out = saved("tabletop", tmp_path / "d", _off_the_table, 3)
    with pytest.raises(
        DatasetError, match=r"episodes.jsonl:4: task .*: its layout cannot be built: .* is off the table"
    ):
        get_suite("tabletop").load_dataset(out)
