"""Regression tests of the tabletop scorer with misbehaving TEST DOUBLES acting in the real simulator
(issue 12). Each expected score follows from the stage rules; every test failed on the scorer before
issue 12 (numbers then in the comments)."""

from __future__ import annotations

from typing import Any

import pytest

from heedful.agents.tabletop_doubles import (
    ApproachOnlyDouble,
    AroundEndDouble,
    DropHalfwayDouble,
    SwitchObjectDouble,
    ThreadGapDouble,
    UndoDouble,
    WrongGoalDouble,
    WrongObjectDouble,
    gap_x,
)
from heedful.records import Record
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.model import TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE


def task(scene: int, action: str, **grounded: Any) -> TabletopTask:
    """The first L0 task of `scene` and `action` whose grounded spec has the given fields."""
    for t in evaluation_tasks():
        g = t.grounded.model_dump()
        if t.level == "L0" and t.scene == scene and t.action == action and all(g[k] == v for k, v in grounded.items()):
            return t
    raise LookupError(f"no L0 task {scene} {action} {grounded}")


def run(t: TabletopTask, agent: Any) -> tuple[float, float, bool]:
    trial = SUITE.episodes_for_run([t], {"trials": 1})[0]
    record = SUITE.rollout_episode(trial, agent, RolloutContext(seed=0, index=0, options={}))
    Record.model_validate_json(record.model_dump_json())  # stored and read back (finding 1)
    s = record.scores
    return s["intent"], s["execution"], s["complete"] == 1.0


PICKUP = task(2, "pickup", source="red_cube")
BOWL = task(2, "place_bowl", source="red_cube", target="green_bowl")
STACK = task(2, "stack", source="red_cube", target="blue_cube")
VIA = task(3, "route_place", route_mode="via", target="purple_label")
AVOID = task(3, "route_place", route_mode="avoid", target="purple_label")


def approx(intent: float, execution: float, complete: bool) -> tuple[Any, Any, bool]:
    return pytest.approx(intent), pytest.approx(execution), complete


@pytest.mark.slow
def test_a_drop_halfway_loses_execution_and_the_goal_choice() -> None:
    assert run(PICKUP, DropHalfwayDouble()) == approx(0.8, 0.0, False)  # was 1.0 / 1.0 / complete
    # Dropped halfway, far from the bowl: a motion ending far from the goal is not heading for it (issue 38;
    # it was 1.0 / 0.4 under the heading rule).
    assert run(BOWL, DropHalfwayDouble()) == approx(0.4, 0.4, False)
    assert run(BOWL, WrongGoalDouble()) == approx(0.4, 0.4, False)


@pytest.mark.slow
def test_the_right_object_to_a_wrong_goal_loses_the_goal_stage() -> None:
    assert run(STACK, WrongGoalDouble()) == approx(0.4, 0.4, False)
    # "Pick up X" done by picking X and putting it back down: no full intent (was 1.0 / 1.0 / complete).
    assert run(PICKUP, WrongGoalDouble()) == approx(0.8, 0.0, False)
    # Scene 3, right route and yaw to the other label: the grasp is free, the label choice is not (was 0.6).
    assert run(VIA, WrongGoalDouble()) == approx(0.3, 0.3, False)


@pytest.mark.slow
def test_a_wrong_object_scores_zero_even_when_corrected_after_descending_on_it() -> None:
    assert run(STACK, WrongObjectDouble()) == approx(0.0, 0.0, False)
    # Descends on the wrong object first, then does it right: the approach shows the choice (was 1.0).
    assert run(PICKUP, SwitchObjectDouble()) == approx(0.0, 0.0, False)


@pytest.mark.slow
def test_approaching_the_right_object_without_grasping_earns_partial_intent_only() -> None:
    assert run(PICKUP, ApproachOnlyDouble()) == approx(0.8, 0.0, False)  # was 0 / 0
    assert run(BOWL, ApproachOnlyDouble()) == approx(0.4, 0.0, False)
    push = task(2, "push", source="red_cube")
    assert run(push, ApproachOnlyDouble()) == approx(0.8, 0.0, False)  # right object, pusher on the right side


@pytest.mark.slow
def test_around_the_barriers_end_is_avoiding_not_passing_over() -> None:
    assert run(VIA, AroundEndDouble()) == approx(0.0, 0.0, False)  # was 1.0 / 1.0 / complete
    assert run(AVOID, AroundEndDouble()) == approx(1.0, 1.0, True)  # was 0.3 / 0.3


@pytest.mark.slow
def test_threading_the_gap_between_two_allowed_bars_is_stored_and_scored() -> None:
    assert set(AVOID.grounded.allowed_bars) == {"green_bar", "yellow_bar"}
    assert gap_x(AVOID.grounded, AVOID.layout) == pytest.approx(0.09)
    assert run(AVOID, ThreadGapDouble()) == approx(1.0, 1.0, True)  # was a PydanticSerializationError


@pytest.mark.slow
def test_completing_then_undoing_loses_completion() -> None:
    assert run(PICKUP, UndoDouble()) == approx(0.8, 0.0, False)  # was 1.0 / 1.0 / complete
    assert run(BOWL, UndoDouble()) == approx(0.8, 0.8, False)
