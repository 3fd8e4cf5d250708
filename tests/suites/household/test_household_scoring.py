"""Success and SPL with known answers."""

from __future__ import annotations

import pytest
from household_data import first, small_episodes

from heedful.sims.household.sim import ObjectState
from heedful.suites.household.metrics import spl
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.scoring import CLEAR_FOLLOW_LIMIT, goal_reached, score


def test_spl_known_answers() -> None:
    assert spl(True, 100, 80) == pytest.approx(0.8)
    assert spl(True, 60, 80) == 1.0  # shorter than the oracle is capped at 1
    assert spl(False, 80, 80) == 0.0
    assert spl(True, 300, None) == 1.0  # the oracle failed: L_oracle = 600
    assert spl(True, 600, 0) == 1.0
    assert spl(True, 400, 100) == pytest.approx(0.25)


def _objects(env: TaskEnv) -> list[ObjectState]:
    return list(env.sim.objects.values())


def test_receptacle_and_room_goals() -> None:
    for kind in ("receptacle", "room"):
        ep = next(e for e in small_episodes() if e.goal.kind == kind)
        env = TaskEnv.start(ep)
        assert not goal_reached(ep, _objects(env))
        target = next(o for o in env.sim.objects.values() if o.category == ep.target_category)
        fitting = next(
            r
            for r in ep.house.receptacles
            if (
                r.category == ep.goal.receptacle
                if kind == "receptacle"
                else ep.house.rooms[r.room].function == ep.goal.function
            )
        )
        target.receptacle, (target.x, target.y) = fitting.id, fitting.rect.center
        assert goal_reached(ep, _objects(env))
        target.holder = "agent"  # still held: the gripper must be open
        assert not goal_reached(ep, _objects(env))


def test_human_goal_and_the_following_rule() -> None:
    for ambiguous in (False, True):
        ep = first("s_hum", ambiguous)
        env = TaskEnv.start(ep)
        target = next(o for o in env.sim.objects.values() if o.category == ep.target_category)
        target.holder = "human"
        env.followed_steps = CLEAR_FOLLOW_LIMIT
        assert score(env).success
        env.followed_steps = CLEAR_FOLLOW_LIMIT + 1
        assert score(env).success is ambiguous  # a clear task fails after more than 50 steps of following
        assert "followed" in score(env).reason or ambiguous


def test_score_reports_steps_and_spl() -> None:
    ep = first("pnp")
    env = TaskEnv.start(ep)
    result = score(env)
    assert (result.success, result.steps, result.spl, result.oracle_steps) == (False, 0, 0.0, ep.oracle_steps)
