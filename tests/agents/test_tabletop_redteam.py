"""Red team of issue 38: each agent that tries to earn tabletop credit without following gets the score the
specification (docs/tabletop-scoring.md) gives it, from the scorer AND from the independent verifier.
Before issue 38, the first six got Completion 100% (numbers in the issue)."""

from __future__ import annotations

from typing import Any

import pytest

from heedful.agents.tabletop_redteam import REDTEAM, DriveDouble
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.model import TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks, horizon
from heedful.suites.tabletop.replay import record
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.scoring import score_trajectory
from heedful.suites.tabletop.suite import SUITE
from heedful.suites.tabletop.verifier import verify

pytestmark = pytest.mark.slow
TASKS = {t.task: t for t in evaluation_tasks()}
STACK, BOWL, RELATIVE = TASKS["s2_L0_004_stack"], TASKS["s2_L0_012_place_bowl"], TASKS["s1_L0_004_place_relative"]
PUSH, ROUTE, SLOT = TASKS["s2_L0_008_push"], TASKS["s3_L0_000_route_place"], TASKS["s4_L0_020_if_place_slot"]


def scores(name: str, task: TabletopTask) -> tuple[float, float, bool, int]:
    """(intent, execution, complete, disturbance) of `name` on round 0 of `task`; the verifier must agree."""
    double: DriveDouble = REDTEAM[name]()
    trial = SUITE.episodes_for_run([task], {"trials": 1})[0]
    layout = trial_layout(trial)
    assert double.applies(task.grounded, layout)
    traj = record(layout, horizon(task.spec), double.plan(task.grounded, layout, trial))
    s = score_trajectory(traj, task.grounded, layout, task.scene)
    v = verify(traj, task.grounded, layout, task.scene)
    assert (v.intent, v.execution, v.complete, sorted(v.disturbed)) == (
        s.intent,
        s.execution,
        s.complete,
        sorted(s.disturbed),
    )
    return s.intent, s.execution, s.complete, len(s.disturbed)


def approx(intent: float, execution: float, complete: bool, disturbance: int) -> tuple[Any, Any, bool, int]:
    return pytest.approx(intent), pytest.approx(execution), complete, disturbance


def test_never_letting_go_completes_nothing_and_chooses_no_place_through_heedful_run() -> None:
    trial = SUITE.episodes_for_run([STACK], {"trials": 1})[0]
    record_ = SUITE.rollout_episode(trial, REDTEAM["never-let-go"](), RolloutContext(seed=0, index=0, options={}))
    assert (record_.scores["intent"], record_.scores["complete"]) == (pytest.approx(0.4), 0.0)  # was 1.0 / 1.0
    assert scores("never-let-go", BOWL) == approx(0.4, 0.4, False, 0)


def test_a_wrong_target_first_costs_the_target_choice() -> None:
    # Lowered 1.5 cm over the wrong bowl first: the place stage loses its intent; the final state is right,
    # so Completion (a final-state criterion, RoboFollow section 3.2) stays. Was 1.0 / 1.0 / complete.
    assert scores("wrong-target-first", BOWL) == approx(0.4, 0.4, True, 0)
    assert scores("wrong-target-first", STACK) == approx(0.4, 0.4, True, 0)


def test_a_pantomime_or_a_grasp_in_the_air_earns_nothing() -> None:
    assert scores("pantomime", BOWL) == approx(0.0, 0.0, False, 0)  # was intent 1.0
    assert scores("hover-grasp", STACK) == approx(0.0, 0.0, False, 0)


def test_a_tower_is_not_a_stack() -> None:
    assert scores("tower", STACK) == approx(0.0, 0.0, False, 2)


def test_moving_the_wrong_thing_does_not_complete() -> None:
    assert scores("move-wrong-thing", RELATIVE) == approx(0.0, 0.0, False, 0)  # the anchor was moved to it
    assert scores("move-wrong-thing", PUSH)[2:] == (False, 1)  # rammed by a neighbour


def test_side_effects_cost_the_finish_and_show_as_disturbance_not_completion() -> None:
    assert scores("side-effects", STACK) == approx(0.8, 0.8, True, 2)  # complete, but not complete_clean
    assert scores("knock-first", BOWL) == approx(0.0, 0.0, True, 1)  # first went down at the other object


def test_the_end_state_rules_timing_gripper_and_reference() -> None:
    assert scores("late-release", BOWL)[2] is False  # let go at the last step: not at rest
    assert scores("regrip-at-end", STACK) == approx(0.8, 0.8, False, 0)  # gripper closed on it at the end
    assert scores("nudge-reference", RELATIVE)[2] is False  # the anchor moved after the place
    assert scores("stall", BOWL) == approx(0.4, 0.4, False, 0)  # still carrying it at the horizon


def test_tolerances_conditions_and_routes() -> None:
    assert scores("offset-place", RELATIVE) == approx(0.4, 0.4, False, 0)  # 0.16 m > 0.12 m from the anchor
    assert scores("diagonal-push", PUSH) == approx(0.4, 0.4, False, 0)  # 55 degrees off
    assert scores("forbidden-route", ROUTE) == approx(0.0, 0.0, False, 0)
    other = next(t for t in evaluation_tasks() if t.scene == 4 and t.grounded.branch == "else" and t.level == "L0")
    intent, _, complete, _ = scores("condition-blind", other)
    assert intent < 1.0 and not complete
    # A tower meant to satisfy both branches (the else branch holds here): nothing rests on the else base.
    assert scores("condition-tower", TASKS["s4_L0_005_if_stack"]) == approx(0.0, 0.0, False, 1)
