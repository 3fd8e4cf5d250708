"""The trajectory-replay check of levels L1 and L3, in real MuJoCo physics.

`expert_actions` records the scripted expert of a grounded task in a layout (its control actions, the
simulator's `delta_eef` space, from the home pose). `replay_score` plays those actions open loop in
another layout, holds still up to the task's horizon and scores the trajectory against that task. A
policy that memorised the training motion does exactly this, so an L1 or L3 task whose replay of the
training motion completes tests nothing the L0 task did not.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.expert import program
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.runtime import TrialRuntime
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory
from heedful.suites.tabletop.skillcalls import execute

EXPERT_STEPS = 10_000  # no horizon while recording: the replay is cut to the task's own horizon


def expert_actions(g: Grounded, layout: Layout) -> NDArray[np.float64]:
    """The control actions (steps, 7) of the scripted expert doing `g` in `layout`."""
    rt = TrialRuntime(layout, EXPERT_STEPS)
    try:
        for call in program(g, layout):
            execute(call, rt.skills)
        return rt.trajectory().actions.copy()
    finally:
        rt.close()


def replay(actions: NDArray[np.float64], layout: Layout, horizon: int) -> Trajectory:
    """The trajectory of `actions` played open loop in `layout`, cut or held still to `horizon` steps."""
    rt = TrialRuntime(layout, horizon)
    try:
        for action in actions[:horizon]:
            rt.step(action)
        rt.idle_to_horizon()
        return rt.trajectory()
    finally:
        rt.close()


def replay_score(actions: NDArray[np.float64], g: Grounded, layout: Layout, scene: int, horizon: int) -> TrialScore:
    """Score the open-loop replay of `actions` in `layout` against the task `g` (held to `horizon`)."""
    return score_trajectory(replay(actions, layout, horizon), g, layout, scene)
