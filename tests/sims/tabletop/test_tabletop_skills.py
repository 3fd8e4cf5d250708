"""Scripted skills in real physics: a seeded sweep over every skill and shape, and typed refusals."""

from __future__ import annotations

import numpy as np
import pytest
from tabletop_sweep import CONFIG, all_cases, run_sweep

from heedful.errors import ConfigError
from heedful.sims.tabletop.env import TabletopEnv
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.skillset import Skills
from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec


def scene_with(*objects: tuple[str, str, float, float]) -> SceneSpec:
    return SceneSpec(
        objects=tuple(ObjectSpec(name=n, shape=s, color="blue", x=x, y=y) for n, s, x, y in objects)  # type: ignore[arg-type]
    )


def test_every_skill_succeeds_on_every_shape_it_applies_to() -> None:
    count, failures = run_sweep(range(2))
    assert count == 2 * len(list(all_cases()))
    assert failures == []


@pytest.mark.slow
def test_every_skill_succeeds_on_every_shape_over_many_seeded_scenes() -> None:
    # 456 attempts (6 seeds; 10 seeds, 760 attempts, and 20 seeds, 1,520, had no miss on 2026-12-02): fewer seeds
    # than before to keep CI inside its 15 minutes, still well past the fast test's 2 seeds
    count, failures = run_sweep(range(2, 8))
    # Physics is not perfect: allow at most 1% of the attempts to miss, and show every miss.
    assert len(failures) <= count // 100, "\n".join(failures)


def test_skills_refuse_impossible_requests_with_reasons() -> None:
    sim = TabletopSim(scene_with(("bowl", "bowl", 0.15, 0.55), ("cube", "cube", -0.1, 0.45)), CONFIG)
    sk = Skills(sim)
    assert "not graspable" in sk.pick("bowl").reason
    assert sk.place_at(0.0, 0.5).reason == "nothing is held"
    assert "push distance" in sk.push("cube", "left", 0.5).reason
    assert sk.carry([(0.0, 0.5)]).reason == "nothing is held"
    assert sk.pick("cube").success
    assert "already holding" in sk.pick("cube").reason
    assert "occupied by 'bowl'" in sk.place_at(0.15, 0.55).reason
    assert "no flat top" in sk.place_on("bowl").reason
    assert "holding" in sk.push("bowl", "left", 0.05).reason
    assert [r.success for r in sk.history] == [False, False, False, False, True, False, False, False, False]
    with pytest.raises(ConfigError, match="no object named 'ghost'"):
        sk.pick("ghost")
    with pytest.raises(ConfigError, match="unknown relation"):
        sk.place_relative("bowl", "above")
    with pytest.raises(ConfigError, match="unknown direction"):
        sk.push("bowl", "up", 0.05)


def test_skills_through_the_env_are_recorded_as_low_level_actions() -> None:
    env = TabletopEnv(scene_with(("a", "cube", -0.1, 0.45), ("b", "cube", 0.1, 0.5)), CONFIG)
    env.reset(seed=0)
    sk = env.skills
    results = [sk.pick("a"), sk.place_on("b"), sk.go_home()]
    assert all(r.success for r in results), results
    traj = env.trajectory()
    assert len(traj) == sum(r.steps for r in results) + 1 == env.sim.steps + 1
    close, opened = traj.event_steps("close"), traj.event_steps("open")
    assert len(close) == 1 and len(opened) == 1 and close[0] < opened[0]
    a = traj.object_track("a")
    assert a[close[0], 2] < 0.03 and a[opened[0] - 1, 2] > 0.05  # grasped on the table, released on the stack
    assert np.all(np.abs(traj.actions) <= 1.0)
