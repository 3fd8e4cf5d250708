"""Error modes of failed household episodes, in the spirit of the paper's Table 8, from records alone.

Every failed episode gets exactly one mode, by the first of these rules that matches (the paper lists its
modes "chronologically": an early error such as a parsing mistake precludes later ones):

1. parsing: status parse_error. The answer did not parse, or named an action not available at that
   moment (the paper's rule: the task ends), or the agent reported an unreadable plan itself.
2. perception (noisy perception only): the agent never held the target and the simulated detector
   reported no instance of the target category as that category (`prediction.perception`).
3. planning, the plan contradicts the instruction:
   a. stopped without a plan: the episode ended (Done, or a call limit) before any search or
      manipulation call (Go to / Explore Room, Follow Human, Pick up);
   b. wrong object: the last successful Pick up was of another category than the target;
   c. wrong delivery: the final delivery (the last successful one after the last pick) was of the wrong
      kind (Give to Human for a receptacle or room goal, a Put for the human goal) or onto another
      receptacle category than the instruction names.
4. strategy / human: a clear S_hum task on which the agent followed the human for more than 50 steps.
5. actuation: the last call before the end (a final Done skipped) failed in execution: navigation could
   not reach a room, object, receptacle or the human, or the put failed (the agent gave up, or its
   budget ended, on an executor failure). A grab that closes on nothing is not one: with oracle
   perception it means the map entry was stale (the human moved the object).
6. planning, the agent lost track of progress:
   d. Done while still holding the target (it never delivered it);
   e. repeats itself: the episode ended on the same call three times in a row (Follow Human and
      Give to Human excepted: a planner repeats them by design while the human walks).
7. strategy by phase: never held the target -> object; held it, but the step or call budget ran out
   after more than five Go to / Explore calls before the pick (the paper's "unnecessary repetitive
   movements") -> object; otherwise -> human for the human goal, room for receptacle and room goals.

Records with status interface_error, timeout or crashed are not errors of the agent: they are counted
apart and never get a mode. Fields that a record lacks (older runs, other agents) are inferred or skipped:
`prediction.ended_by` falls back to the last tool call and the step count, `tools` to no calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from heedful.records import Record, Status
from heedful.suites.household.payload import EXECUTION_FAILURES, ToolEntry, ToolFailure, read_tools

MAX_STEPS = 600
CLEAR_FOLLOW_LIMIT = 50
REPEAT_LIMIT = 3
SEARCH_LIMIT = 5
SEARCH_CALLS = ("Go to Room ", "Explore Room ")
PLAN_CALLS = (*SEARCH_CALLS, "Follow Human", "Pick up ")
WAITING_CALLS = ("Follow Human", "Give to Human")


class ErrorMode(StrEnum):
    PARSING = "parsing"
    PERCEPTION = "perception"
    PLANNING = "planning"
    STRATEGY_OBJECT = "strategy_object"
    STRATEGY_ROOM = "strategy_room"
    STRATEGY_HUMAN = "strategy_human"
    ACTUATION = "actuation"


@dataclass(frozen=True)
class Classification:
    mode: ErrorMode
    reason: str
    """Which rule matched, in words."""


def harness_failure(record: Record) -> bool:
    """Interface errors, timeouts and crashes: failures of the harness or transport, not of the agent."""
    return not record.status.scored


def failed(record: Record) -> bool:
    """A scored episode that did not succeed."""
    return record.status.scored and not (record.status is Status.OK and record.scores.get("success", 0.0) == 1.0)


def _prediction(record: Record) -> dict[str, Any]:
    return record.prediction if isinstance(record.prediction, dict) else {}


def _calls(record: Record) -> list[ToolEntry]:
    return read_tools(_prediction(record).get("tools"))


def _ended_by(record: Record, calls: Sequence[ToolEntry]) -> str:
    ended = _prediction(record).get("ended_by")
    if ended:
        return str(ended)
    if calls and calls[-1].action == "Done" and calls[-1].ok:
        return "done"
    if record.scores.get("steps", 0.0) >= MAX_STEPS or (calls and calls[-1].failure is ToolFailure.STEP_LIMIT):
        return "step_limit"
    return "tool_call_limit"


def _last_index(calls: Sequence[ToolEntry], prefix: str) -> int:
    return max((i for i, c in enumerate(calls) if c.ok and c.action.startswith(prefix)), default=-1)


def _holding_target(calls: Sequence[ToolEntry], target: str) -> tuple[bool, int]:
    """Whether the agent holds the target at the end, and the index of its last successful pick of it."""
    pick = max((i for i, c in enumerate(calls) if c.ok and c.action == f"Pick up {target}"), default=-1)
    delivered = any(c.ok and c.action.startswith(("Put", "Give")) for c in calls[pick + 1 :])
    return pick >= 0 and not delivered, pick


def _wrong_plan(record: Record, calls: Sequence[ToolEntry], ended: str, target: str) -> str | None:
    """Planning errors that contradict the instruction (rule 3)."""
    goal = dict((record.gold or {}).get("goal") or {})
    if not any(c.action.startswith(PLAN_CALLS) for c in calls):
        return f"stopped without a plan (ended by {ended} before any search or manipulation)"
    pick = _last_index(calls, "Pick up ")
    if pick >= 0 and calls[pick].action != f"Pick up {target}":
        return f"wrong object: {calls[pick].action!r} for a {target}"
    # the final delivery: after the last pick (an earlier wrong one was taken back)
    deliveries = [c for c in calls[pick + 1 :] if c.ok and c.action.startswith(("Put", "Give"))]
    if deliveries:
        last, kind = deliveries[-1], goal.get("kind")
        if (last.action == "Give to Human") != (kind == "human"):
            return f"wrong delivery: {last.action!r} for a {kind} goal"
        wanted = goal.get("receptacle")
        if kind == "receptacle" and last.put_on != wanted:
            return f"wrong delivery: {last.action!r} ({last.message}) for the goal {wanted}"
    return None


def _lost_track(calls: Sequence[ToolEntry], ended: str, holding: bool) -> str | None:
    """Planning errors of progress tracking (rule 6)."""
    if ended == "done" and holding:
        return "Done while holding the target"
    tail = [c for c in calls if c.action != "Done"][-REPEAT_LIMIT:]
    if len(tail) == REPEAT_LIMIT and len({c.action for c in tail}) == 1 and tail[0].action not in WAITING_CALLS:
        return f"repeats itself: {tail[0].action!r} {REPEAT_LIMIT} times in a row at the end"
    return None


def classify(record: Record) -> Classification | None:
    """The error mode of a failed episode; None for a success or a harness failure (see the module docstring)."""
    if harness_failure(record) or not failed(record):
        return None
    if record.status is Status.PARSE_ERROR:
        return Classification(ErrorMode.PARSING, f"parse error: {record.error or 'unreadable answer'}")
    calls = _calls(record)
    target = str((record.gold or {}).get("target_category", ""))
    ended = _ended_by(record, calls)
    held, pick = _holding_target(calls, target)
    seen = _prediction(record).get("perception")
    if isinstance(seen, dict) and pick < 0 and seen.get("target_detectable") == 0:
        return Classification(ErrorMode.PERCEPTION, "the simulated detector never reported the target category")
    wrong = _wrong_plan(record, calls, ended, target)
    if wrong is not None:
        return Classification(ErrorMode.PLANNING, wrong)
    keys = record.keys
    followed = record.scores.get("followed_steps", 0.0)
    if keys.get("task_type") == "s_hum" and keys.get("ambiguous") == "false" and followed > CLEAR_FOLLOW_LIMIT:
        return Classification(ErrorMode.STRATEGY_HUMAN, f"clear task, followed the human for {followed:.0f} steps")
    last = next((c for c in reversed(calls) if c.action != "Done"), None)
    if last is not None and not last.ok and last.failure in EXECUTION_FAILURES:
        return Classification(ErrorMode.ACTUATION, f"{last.action!r} failed in execution: {last.message}")
    lost = _lost_track(calls, ended, held)
    if lost is not None:
        return Classification(ErrorMode.PLANNING, lost)
    return _by_phase(record, calls, ended, held, pick)


def _by_phase(record: Record, calls: Sequence[ToolEntry], ended: str, held: bool, pick: int) -> Classification:
    if pick < 0:
        return Classification(ErrorMode.STRATEGY_OBJECT, f"never picked up the target (ended by {ended})")
    searches = sum(1 for c in calls[:pick] if c.action.startswith(SEARCH_CALLS))
    if ended not in ("done", "parse_error") and searches > SEARCH_LIMIT:
        return Classification(
            ErrorMode.STRATEGY_OBJECT, f"{searches} search calls before the pick used up the budget ({ended})"
        )
    human = dict((record.gold or {}).get("goal") or {}).get("kind") == "human"
    state = "held the target but did not deliver it" if held else "delivered the target to the wrong place"
    mode = ErrorMode.STRATEGY_HUMAN if human else ErrorMode.STRATEGY_ROOM
    return Classification(mode, f"{state} (ended by {ended})")


def classify_all(records: Sequence[Record]) -> list[dict[str, Any]]:
    """One row per failed or harness-failed record: episode id, task type, mode (or "harness") and reason."""
    rows = []
    for record in records:
        found = classify(record)
        if found is None and not harness_failure(record):
            continue
        mode = "harness" if found is None else found.mode.value
        reason = f"{record.status.value}: {record.error}" if found is None else found.reason
        rows.append(
            {
                "episode_id": record.episode_id,
                "task_type": record.keys.get("task_type"),
                "mode": mode,
                "reason": reason,
            }
        )
    return rows
