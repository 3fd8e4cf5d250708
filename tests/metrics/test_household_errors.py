"""Error modes of failed household episodes (Table 8): each rule on a scripted failing episode or a hand-built
record, harness failures apart, and the Table 8 layout in the suite's report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
import household_doubles as doubles
from household_data import small_episodes

from heedful.records import Record, Status
from heedful.suites.base import RolloutContext
from heedful.suites.household.error_modes import ErrorMode, classify, classify_all
from heedful.suites.household.error_table import error_rows, error_table
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.suite import SUITE


def rollout(episode: HouseholdEpisode, policy: doubles.Policy, **options: Any) -> Record:
    return SUITE.rollout_episode(
        episode, doubles.PolicyDouble(policy), RolloutContext(seed=0, index=0, options=options)
    )


def episodes(task_type: str, *, ambiguous: bool | None = None, goal: str | None = None) -> list[HouseholdEpisode]:
    return [
        ep
        for ep in small_episodes()
        if ep.task_type == task_type
        and (ambiguous is None or ep.ambiguous is ambiguous)
        and (goal is None or ep.goal.kind == goal)
    ]


def mode_of(record: Record) -> ErrorMode:
    assert record.status.scored and record.scores["success"] == 0.0, "the scripted episode must fail"
    found = classify(record)
    assert found is not None
    return found.mode


def first_failing(cands: list[HouseholdEpisode], policy: doubles.Policy, **options: Any) -> Record:
    for episode in cands:
        record = rollout(episode, policy, **options)
        if record.scores["success"] == 0.0:
            return record
    raise AssertionError("no candidate episode failed the scripted way")


def test_parsing() -> None:
    record = rollout(episodes("pnp")[0], doubles.garbage)
    assert record.status is Status.PARSE_ERROR and mode_of(record) is ErrorMode.PARSING


def test_planning_rules() -> None:
    at_once = rollout(episodes("pnp")[0], doubles.done_at_once)
    assert mode_of(at_once) is ErrorMode.PLANNING and "without a plan" in classify(at_once).reason  # type: ignore[union-attr]
    holding = rollout(episodes("pnp")[0], doubles.done_when_holding)
    assert mode_of(holding) is ErrorMode.PLANNING and "holding the target" in classify(holding).reason  # type: ignore[union-attr]
    wrong = first_failing(episodes("pnp"), doubles.wrong_object)
    assert mode_of(wrong) is ErrorMode.PLANNING and "wrong object" in classify(wrong).reason  # type: ignore[union-attr]
    other = first_failing(episodes("pnp", goal="receptacle"), doubles.put_on_other)
    assert mode_of(other) is ErrorMode.PLANNING and "wrong delivery" in classify(other).reason  # type: ignore[union-attr]


def test_strategy_object_and_room() -> None:
    elsewhere = rollout(episodes("s_obj")[0], doubles.search_elsewhere)
    assert mode_of(elsewhere) is ErrorMode.STRATEGY_OBJECT
    room_goals = [ep for ep in small_episodes() if ep.goal.kind == "room"]
    dropped = first_failing(room_goals, doubles.drop_in_wrong_room)
    assert mode_of(dropped) is ErrorMode.STRATEGY_ROOM


def test_strategy_human() -> None:
    clear = episodes("s_hum", ambiguous=False)
    over = rollout(clear[0], doubles.over_follow)
    assert over.scores["followed_steps"] > 50
    assert mode_of(over) is ErrorMode.STRATEGY_HUMAN and "followed" in classify(over).reason  # type: ignore[union-attr]
    waited = first_failing(episodes("s_hum"), doubles.give_in_wrong_room, max_calls=12)
    assert mode_of(waited) is ErrorMode.STRATEGY_HUMAN


def test_perception_needs_the_noisy_condition() -> None:
    blind = {"perception": "noisy", "miss_rate": 1.0, "false_positive_rate": 0.0, "confusion_rate": 0.0}
    record = rollout(episodes("pnp")[0], doubles.search_elsewhere, **blind)
    assert mode_of(record) is ErrorMode.PERCEPTION
    same_trace = rollout(episodes("pnp")[0], doubles.search_elsewhere)
    assert mode_of(same_trace) is ErrorMode.STRATEGY_OBJECT  # oracle perception: the agent searched badly


def hand_built(tools: list[list[Any]], *, status: Status = Status.OK, **extra: Any) -> Record:
    """A record as the rollout writes it (old layout: no `ended_by`, no room), for rules hard to script."""
    return Record(
        episode_id="hand-built",
        index=0,
        status=status,
        keys={"task_type": "pnp", "ambiguous": "n/a", "split": "val_seen", "phase": "val"},
        gold={"goal": {"kind": "receptacle", "receptacle": "table"}, "target_category": "cup"},
        prediction={"actions": [t[0] for t in tools], "tools": tools, **extra},
        scores={"success": 0.0, "steps": float(sum(t[2] for t in tools)), "followed_steps": 0.0},
    )


def test_actuation_and_fallbacks_for_missing_fields() -> None:
    stuck = hand_built(
        [
            ["Pick up cup", 0, 20, True, "you picked up the cup"],
            ["Go to Room 2", 20, 60, False, "could not reach room 2 (stuck)"],
            ["Done", 80, 0, True, "you declared the task done"],
        ]
    )
    assert mode_of(stuck) is ErrorMode.ACTUATION
    recovered = hand_built(
        [
            ["Go to Room 2", 0, 60, False, "could not reach room 2 (stuck)"],
            ["Go to Room 3", 60, 40, True, "you went to room 3"],
            ["Done", 100, 0, True, "you declared the task done"],
        ]
    )
    assert mode_of(recovered) is ErrorMode.STRATEGY_OBJECT  # a recovered failure did not end the task
    searches = [[f"Explore Room {k}", 40 * k, 40, True, f"you explored room {k}"] for k in range(6)]
    budget = hand_built(
        [
            *searches,
            ["Pick up cup", 240, 20, True, "you picked up the cup"],
            ["Go to Room 1", 260, 340, False, "the step limit of 600 was reached"],
        ]
    )
    assert mode_of(budget) is ErrorMode.STRATEGY_OBJECT and "search calls" in classify(budget).reason  # type: ignore[union-attr]
    short = hand_built(
        [*searches[-2:], ["Pick up cup", 80, 20, True, "you picked up the cup"]], ended_by="tool_call_limit"
    )
    assert mode_of(short) is ErrorMode.STRATEGY_ROOM
    assert mode_of(hand_built([])) is ErrorMode.PLANNING  # nothing recorded: stopped without a plan


def test_harness_failures_are_in_no_mode_and_successes_have_none() -> None:
    crashed = Record(
        episode_id="c", index=0, status=Status.CRASHED, error="boom", keys={"task_type": "pnp", "phase": "val"}
    )
    assert classify(crashed) is None
    ok = hand_built([["Done", 0, 0, True, "you declared the task done"]])
    solved = ok.model_copy(update={"scores": {**ok.scores, "success": 1.0}})
    assert classify(solved) is None
    rows = classify_all([crashed, solved, ok])
    assert [(r["episode_id"], r["mode"]) for r in rows] == [("c", "harness"), ("hand-built", "planning")]


def test_table_8_rows_and_layout() -> None:
    records = [
        rollout(episodes("pnp")[0], doubles.garbage),
        rollout(episodes("pnp")[0], doubles.done_at_once),
        rollout(episodes("s_obj")[0], doubles.search_elsewhere),
        Record(episode_id="t", index=9, status=Status.TIMEOUT, error="slow", keys=episodes("pnp")[0].keys()),
    ]
    rows = error_rows(records)
    pnp_phase = records[0].keys["phase"]
    table = {(r.group, r.metric): r for r in rows}
    assert (table[(f"{pnp_phase} / PnP", "failed")].k, table[(f"{pnp_phase} / PnP", "failed")].n) == (2, 2)
    assert table[(f"{pnp_phase} / PnP", "error_parsing")].value == 0.5
    assert table[(f"{pnp_phase} / PnP", "harness_failure")].k == 1
    assert table[("PnP", "error_planning")].k == 1
    text = error_table(rows)
    assert "Table 8 layout" in text and "Parsing" in text and "50 (1)" in text
    assert "Perception" not in text.split("Modes by")[0]  # shown only when some failure has it
    reported = SUITE.report(records, {"resamples": 50})
    assert reported[-len(rows) :] == rows  # the suite's extra scoring: its rows close the report
    units = {metric.name: metric.unit for metric in SUITE.metric_spec}
    assert all(row.unit == units[row.metric] for row in rows)  # each row counts what the spec says it counts
    report = SUITE.render_report(reported, "title")
    assert "Table 6" in report and "Table 9" in report and "Table 8 layout" in report
    generic = report.split("Table 6")[0]
    assert "error_parsing" not in generic  # the error rows are in Table 8 (and the JSON rows), not above
