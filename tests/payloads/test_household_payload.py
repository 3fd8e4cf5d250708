"""Household records store typed tool calls, and Table 8 reads their codes, not their messages."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
from household_data import first

from heedful.agents.household import OracleAgent
from heedful.records import Record, Status
from heedful.suites.base import RolloutContext
from heedful.suites.household.error_modes import ErrorMode, classify
from heedful.suites.household.payload import ToolEntry, ToolFailure, read_tools
from heedful.suites.household.suite import SUITE


def _record(tools: list[Any]) -> Record:
    return Record(
        episode_id="hand-built",
        index=0,
        status=Status.OK,
        keys={"task_type": "pnp", "ambiguous": "n/a", "split": "val_seen", "phase": "val"},
        gold={"goal": {"kind": "receptacle", "receptacle": "table"}, "target_category": "cup"},
        prediction={"actions": [t["action"] for t in tools], "tools": tools, "ended_by": "done"},
        scores={"success": 0.0, "steps": 100.0, "followed_steps": 0.0},
    )


def _call(action: str, ok: bool, message: str, **typed: Any) -> dict[str, Any]:
    return {"action": action, "start_step": 0, "steps": 10, "ok": ok, "message": message, "room": 2, **typed}


PICK = _call("Pick up cup", True, "you picked up the cup")
DONE = _call("Done", True, "you declared the task done")


def test_actuation_follows_the_failure_code_whatever_the_message_says() -> None:
    reworded = _call("Go to Room 2", False, "navigation gave up", failure="unreachable")
    assert classify(_record([PICK, reworded, DONE])).mode is ErrorMode.ACTUATION  # type: ignore[union-attr]
    # the old message text with no execution code is not actuation any more: only codes count
    coded = _call("Go to Room 2", False, "could not reach room 2 (stuck)", failure="not_mapped")
    assert classify(_record([PICK, coded, DONE])).mode is not ErrorMode.ACTUATION  # type: ignore[union-attr]


def test_a_delivery_is_judged_by_where_the_object_went() -> None:
    wrong = _call("Put on table", True, "you put the object on the table", put_on="shelves")
    found = classify(_record([PICK, wrong, DONE]))
    assert found is not None and found.mode is ErrorMode.PLANNING and "wrong delivery" in found.reason


def test_legacy_rows_read_the_codes_their_messages_meant() -> None:
    rows = [
        ["Go to Room 2", 0, 60, False, "could not reach room 2 (stuck)"],
        ["Pick up cup", 60, 1, False, "no cup is mapped in room 2", 2],
        ["Put on table", 61, 3, True, "you put the object on the table", 2],
        ["Go to Room 1", 64, 536, False, "the step limit of 600 was reached", 1],
    ]
    entries = read_tools(rows)
    assert [e.failure for e in entries] == [
        ToolFailure.UNREACHABLE,
        ToolFailure.NOT_MAPPED,
        None,
        ToolFailure.STEP_LIMIT,
    ]
    assert entries[2].put_on == "table" and entries[0].room == -1


def test_a_real_rollout_stores_typed_calls() -> None:
    episode = first("pnp")
    record = SUITE.rollout_episode(episode, OracleAgent(), RolloutContext(0, 0))
    entries = read_tools(record.prediction["tools"])  # type: ignore[index]
    assert entries and all(isinstance(e, ToolEntry) for e in entries)
    puts = [e for e in entries if e.ok and e.action.startswith("Put")]
    assert puts and all(e.put_on for e in puts)
    assert all(e.failure is None for e in entries if e.ok)
