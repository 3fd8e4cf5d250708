"""Validity controls for the tabletop suite: agents that show what a score is worth.

- `noop`: does nothing (answers `done` at once); every metric must be 0.
- `memorizer`: the mirage. It matches the instruction to the most similar training phrasing of the
  scene's configuration (word-sequence similarity) and replays, open loop, the expert motion of that
  training task as recorded in its training layout (under the trial's own 1-2 cm jitter, so at L0 it is
  the expert itself). In a changed layout it goes where the objects were in training. High at L0, low
  wherever the layout or the wording changes what must be done.
- `memorizer-object`: the same match, re-grounded: the training task's expert program run on the objects
  of the same identity in the trial's layout (wherever they now stand). It solves a task whose layout
  changed but whose objects did not; an L1 task it solves did not change what the task involves.

Both memorizers read privileged data a policy would infer from the image: the task's base configuration
and the trial seed (for the jitter). None of them is a baseline to beat: they bound what the benchmark
can tell apart. The exact chance level (the blind branch draw) is in `suites/tabletop/chance.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.agents.base import AgentReply
from heedful.agents.tabletop import DONE, planned_reply
from heedful.errors import ConfigError
from heedful.suites.tabletop.expert import branch_program
from heedful.suites.tabletop.model import TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation
from heedful.suites.tabletop.replay import nearest_training, training_replay


class NoopAgent:
    """Does nothing: the robot holds still at home for the whole horizon."""

    name = "noop"

    def act(self, observation: PlannerObservation) -> AgentReply:
        return AgentReply(text=DONE.text(), info={})

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "nothing"}


class ReplayController:
    """A controller that sends a motion prepared at `begin_trial` as one chunk, then holds still."""

    name = "replay"
    privileged = True  # prepares its motion from the trial (task, layout, seed) given to `begin_trial`
    cameras: tuple[str, ...] = ()  # it looks at nothing: no frames are rendered for it

    def __init__(self) -> None:
        self.actions: NDArray[np.float64] = np.zeros((0, 7))
        self.sent = False
        self.info: dict[str, Any] = {}

    def prepare(self, trial: TabletopTrial, seed: int) -> NDArray[np.float64]:
        raise NotImplementedError

    def begin_trial(self, trial: TabletopTrial | None, seed: int) -> None:
        if trial is None:
            raise ConfigError(f"{self.name} prepares its motion from the trial, which only privileged agents get")
        self.info = {}
        self.actions, self.sent = self.prepare(trial, seed), False

    def reset(self) -> None:
        self.sent = False

    def set_instruction(self, instruction: str) -> None:
        pass

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        # The rest of the motion from the control step the trial is at: all of it at step 0; what a cut chunk
        # left (a mid-trial re-instruction cuts it; the replay does not listen) when asked again.
        step = observation.get("step")
        if isinstance(step, int) and 0 < step < len(self.actions):
            return self.actions[step:]
        if not self.sent and len(self.actions):
            self.sent = True
            return self.actions
        grip = float(self.actions[-1, 6]) if len(self.actions) else -1.0
        return np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, grip]])

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        return dict(self.info), {}


class MemorizerAgent(ReplayController):
    """Replays the expert of the most similar training instruction at the training locations."""

    name = "memorizer"

    def prepare(self, trial: TabletopTrial, seed: int) -> NDArray[np.float64]:
        match, phrase, score = nearest_training(trial.task.instruction, trial.task.base_config)
        self.info = {"matched": match.label, "phrase": phrase, "similarity": round(score, 4)}
        return training_replay(match, trial.trial_seed)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "instruction (nearest training phrasing), base configuration"}


class MemorizerObjectAgent:
    """Runs the expert program of the most similar training instruction on the same objects, re-grounded
    to where they stand in the trial's layout."""

    name = "memorizer-object"
    privileged = True  # reads the base configuration and the objects' identities

    def act(self, observation: PlannerObservation) -> AgentReply:
        truth = observation.ground_truth()
        task, layout = truth.task, truth.layout
        match, phrase, score = nearest_training(observation.instruction, task.base_config)
        info = {"matched": match.label, "phrase": phrase, "similarity": round(score, 4)}
        return planned_reply(branch_program(match.grounded, layout), observation, **info)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "instruction (nearest training phrasing), objects by identity"}
