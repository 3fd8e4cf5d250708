"""The two cheats of the levels, in real MuJoCo. Trajectory replay: the training expert's actions of a task,
replayed open loop at the training coordinates, complete its L0 task and no L1 or L3 task. String
matching: the training task of the nearest training phrasing, replayed, completes at most half of L2.

Every reference motion of an L1 / L3 task (`registry.reference_motions`: the training task it varies and,
when it grounds there, its own spec in the training layout) is recorded once in its training layout and
replayed once per evaluation layout (unperturbed: the cheat's best case); each task scores the replay.
To keep the file near 20 s of CPU, a replay holds still for SETTLE steps after its last action instead of
up to the task's horizon: the rest of the horizon would only add more idle holds.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from numpy.typing import NDArray

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.behaviour import training_motion_fits
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.motion_replay import expert_actions, replay
from heedful.suites.tabletop.phrasing import nearest
from heedful.suites.tabletop.registry import evaluation_tasks, reference_motions, training_tasks
from heedful.suites.tabletop.scoring import score_trajectory

SETTLE = 40


class Replays:
    """Expert actions per motion and their replay per (motion, layout, horizon), each computed once."""

    def __init__(self) -> None:
        self.actions: dict[str, NDArray[np.float64]] = {}
        self.trajectories: dict[tuple[str, str, int], Trajectory] = {}

    def __call__(self, g: Grounded, home: Layout, layout: Layout, horizon: int) -> Trajectory:
        motion = g.model_dump_json() + home.layout_id
        if motion not in self.actions:
            self.actions[motion] = expert_actions(g, home)
        steps = min(horizon, len(self.actions[motion]) + SETTLE)
        key = (motion, layout.layout_id, steps)
        if key not in self.trajectories:
            self.trajectories[key] = replay(self.actions[motion], layout, steps)
        return self.trajectories[key]


@pytest.fixture(scope="module")
def replays() -> Replays:
    """One cache for both tests: the matcher's L2 replays are mostly training motions in their own layout."""
    return Replays()


@pytest.mark.slow
def test_replaying_the_training_motion_completes_every_l0_task_and_no_l1_or_l3_task(replays: Replays) -> None:
    completed: list[tuple[str, str]] = []
    per_level: Counter[str] = Counter()
    motions: dict[str, tuple[Grounded, Layout, int, int]] = {}
    for task in (t for t in evaluation_tasks() if t.level in ("L1", "L3")):
        per_level[task.level] += 1
        for g, home, name in reference_motions(task):
            motions[g.model_dump_json() + home.layout_id] = (g, home, task.scene, task.horizon)
            traj = replays(g, home, task.layout, task.horizon)
            if score_trajectory(traj, task.grounded, task.layout, task.scene).complete:
                completed.append((task.task, name))
    assert completed == []
    assert per_level == {"L1": 86, "L3": 220}
    # The same replays do complete each motion's own task in its training layout: the cheat is real.
    for g, home, scene, horizon in motions.values():
        assert score_trajectory(replays(g, home, home, horizon), g, home, scene).complete, g
    assert len(motions) >= 40


@pytest.mark.slow
def test_the_nearest_training_instruction_matcher_replayed_in_mujoco_scores_at_most_half_of_l2(
    replays: Replays,
) -> None:
    """The string-matching cheat in the simulator, on L2 (training layouts): the nearest training phrasing
    of the same scene picks a training task, whose expert actions are replayed. Its completions match the
    judgement from grounded positions (`training_motion_fits`) task by task, pickups included (the scorer
    no longer credits a pickup whose object is put down again, issue 12 finding 3)."""
    train = {t.label: t for t in training_tasks()}
    done: Counter[int] = Counter()
    total: Counter[int] = Counter()
    disagree = []
    for task in (t for t in evaluation_tasks() if t.level == "L2"):
        phrasings = [(t.label, p) for t in train.values() if t.scene == task.scene for p in t.paraphrases]
        matched = train[nearest(task.instruction, phrasings)[0]]
        traj = replays(matched.grounded, matched.layout, task.layout, task.horizon)
        complete = score_trajectory(traj, task.grounded, task.layout, task.scene).complete
        total[task.scene] += 1
        done[task.scene] += complete
        fits = training_motion_fits(matched.grounded, matched.layout, task.grounded, task.layout)
        if complete != fits:
            disagree.append(task.task)
    assert disagree == []
    assert all(done[s] <= total[s] / 2 for s in total), (done, total)  # S2 was 68 of 68 before the rework
