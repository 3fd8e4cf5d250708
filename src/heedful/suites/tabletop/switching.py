"""Mid-episode re-instruction of a tabletop trial (`--reinstruct`, see `heedful.language.reinstruct`).

The new task is another task of the same scene and layout (the substitute `--instruction other` would show, see
`heedful.suites.tabletop.arms.others`), grounded in the trial's layout. When the switch comes:

- `at=FRACTION`: at control step S = max(1, floor(FRACTION x horizon));
- `after-first-choice`: right after the first control step at which an object is held between both fingers.

The switch comes at that step for every agent: a controller's chunk is cut there, and so is a planner's skill in
flight (its call is recorded as failed, "cut short: the instruction changed"); the agent is asked at once. A planner
that answers `done` before the switch holds still until S (`at`) or is switched at once (first choice).

At the switch a controller gets `set_instruction(new words)` and the new words as `obs["prompt"]` from then on (it is
not reset); a privileged controller is also handed the trial again through `begin_trial`, now carrying the switch
(`TrialSwitch.made_at`, so a served test peer re-plans from there). A planner's observation then carries the new
instruction, `instruction_since` (calls made before it) and, when privileged, the new task.

Scores: the new task is scored on the trajectory from the switch on, as a trial that starts there (the poses there are
its initial state), after the hand-over (`hand_over`): when the gripper at S holds something other than the new task's
source, is closed, or is down at an object, the new task's trial starts at the first later row at which the gripper is
open, holds nothing and is down at no object; when it holds the new source at S, that counts as its grasp at S. The old
task is judged at the switch on the trajectory up to S, and at the end on the whole trajectory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from heedful.errors import ConfigError
from heedful.language.reinstruct import KEPT_OLD, OLD_DONE, SCORED_FROM, SWITCHED, Reinstruct, parse_reinstruct
from heedful.sims.tabletop.recorder import CLOSE_EVENT, Trajectory
from heedful.suites.tabletop.arms import shown_task
from heedful.suites.tabletop.model import Layout, TabletopTask, TabletopTrial, TrialSwitch
from heedful.suites.tabletop.runtime import TrialRuntime
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory
from heedful.suites.tabletop.stages import Track


@dataclass
class Switcher:
    """The pending or made switch of one trial."""

    trial: TabletopTrial
    new_task: TabletopTask
    """The new task as the agent is given it: the substitute's words and spec grounded in this trial's layout."""
    rule: Reinstruct | None
    made_at: int | None
    horizon: int
    step: int | None = None
    """The control step at which the switch was made (None: not yet)."""
    calls_before: int = 0
    """A planner's calls before the switch."""

    @classmethod
    def of(cls, trial: TabletopTrial, seed: int, layout: Layout) -> Switcher | None:
        """The trial's switcher, or None when it has no switch."""
        switch = trial.switch
        if switch is None:
            return None
        rule = None if switch.made_at is not None else parse_reinstruct(switch.rule)
        new = shown_task(trial.task, "other", seed, switch.to, layout)
        return cls(trial, new, rule, switch.made_at, trial.task.horizon)

    @property
    def pending(self) -> bool:
        return self.step is None

    @property
    def target(self) -> int | None:
        """The control step the switch waits for, when the rule names one (at=FRACTION, or made at a known step)."""
        if self.made_at is not None:
            return self.made_at
        if self.rule is not None and self.rule.at is not None:
            return max(1, math.floor(self.rule.at * self.horizon))
        return None

    def due(self, rt: TrialRuntime) -> bool:
        """Whether the switch is due at this decision point."""
        if not self.pending:
            return False
        target = self.target
        if target is not None:
            return rt.steps >= target
        return rt.recorder.first_held_row() is not None

    def comes_now(self, rt: TrialRuntime) -> bool:
        """Whether the switch comes after the step just made (checked step by step inside a planner's skill)."""
        target = self.target
        if target is not None:
            return rt.steps >= target
        return rt.sim.held_object() is not None

    def make(self, rt: TrialRuntime, calls: int = 0) -> None:
        self.step, self.calls_before = rt.steps, calls

    def announced(self, seen: TabletopTrial) -> TabletopTrial:
        """What a privileged controller is handed at the switch: the trial as it saw it, with the switch made."""
        switch = TrialSwitch(
            to=self.new_task, rule=self.trial.switch.rule if self.trial.switch else "", made_at=self.step
        )
        return seen.model_copy(update={"switch": switch})

    def scores(self, traj: Trajectory, layout: Layout, old_final: TrialScore) -> tuple[TrialScore, dict[str, float]]:
        """The new task's score from the switch on (from the last row when the switch never came: nothing is done
        there), and the switch's own scores."""
        task = self.trial.task
        switch = self.step if self.step is not None else len(traj) - 1
        start = hand_over(traj, layout, switch, self.new_task.grounded.source)
        new = score_trajectory(trajectory_from(traj, start), self.new_task.grounded, layout, task.scene)
        old_done = score_trajectory(trajectory_until(traj, switch), task.grounded, layout, task.scene).complete
        return new, {
            SWITCHED: float(self.step is not None),
            OLD_DONE: float(old_done),
            KEPT_OLD: float(old_final.complete and not old_done),
            SCORED_FROM: float(start),
        }


def hand_over(traj: Trajectory, layout: Layout, switch: int, source: str) -> int:
    """The row from which the new task is scored: the switch, unless the gripper then holds an object other than the
    new task's source, is closed or is down at an object: then the first later row at which it is open, holds nothing
    and is down at no object (letting go of what the old task left in hand is no choice for the new task); the last
    row when there is none (nothing is done there)."""
    held = int(traj.held[switch])
    if held >= 0 and traj.object_names[held] == source:
        return switch  # already holding what the new task needs: that counts as its grasp
    tail = trajectory_from(traj, switch)
    down = Track(tail, layout).approaches(0, len(tail) - 1).any(axis=1)
    free = (tail.held < 0) & (tail.gripper_command <= 0) & ~down
    rows = np.flatnonzero(free)
    return switch + int(rows[0]) if rows.size else len(traj) - 1


def trajectory_from(traj: Trajectory, row: int) -> Trajectory:
    """Rows `row`.. of a trajectory, as a trial that starts there (a closed gripper there counts as a close)."""
    if not 0 <= row < len(traj):
        raise ConfigError(f"row {row} is outside the trajectory's {len(traj)} rows")
    events = traj.events[row:].copy()
    events[0] = CLOSE_EVENT if traj.gripper_command[row] > 0 else 0
    return _rows(traj, slice(row, None), events, traj.actions[row:])


def trajectory_until(traj: Trajectory, row: int) -> Trajectory:
    """Rows ..`row` of a trajectory (the trial as it stood at that row)."""
    return _rows(traj, slice(0, row + 1), traj.events[: row + 1].copy(), traj.actions[:row])


def _rows(traj: Trajectory, rows: slice, events: np.ndarray, actions: np.ndarray) -> Trajectory:
    return replace(
        traj,
        time=traj.time[rows],
        tcp_pos=traj.tcp_pos[rows],
        tcp_quat=traj.tcp_quat[rows],
        gripper_opening=traj.gripper_opening[rows],
        gripper_command=traj.gripper_command[rows],
        events=events,
        object_poses=traj.object_poses[rows],
        actions=actions,
        held=traj.held[rows],
        touched=traj.touched[rows],
        frames={cam: frames[rows] for cam, frames in traj.frames.items()},
    )
