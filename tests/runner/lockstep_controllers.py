"""Deterministic batched controllers for the lockstep tests (importable by pool workers and Ray actors).

`StepwisePolicy` answers each observation from its state, its prompt and the mean colour of its wrist image, one
observation at a time in plain float arithmetic, so its batched and single answers are the same floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

CRASH_WORD = "red ball"
"""An instruction with this word crashes the policy at step 40 (one trial's crash among batch-mates)."""


class StepwisePolicy:
    """A stateless controller: a short chunk nudging the gripper by a function of what it sees."""

    name = "stepwise"
    cameras = ("wrist",)
    image_size = 16

    def __init__(self, crash: bool = False) -> None:
        self.crash = crash
        self.calls = 0

    def reset(self) -> None:
        self.calls = 0  # in lockstep, episodes share this agent: its slot counts each episode's predictions

    def set_instruction(self, instruction: str) -> None:
        pass

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        self.calls += 1
        return self._one(observation)

    def predict_batch(self, observations: Sequence[dict[str, Any]]) -> list[NDArray[np.float64]]:
        return [self._one(o) for o in observations]

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        return {"predictions": self.calls}, {"stepwise_predict_ms_mean": 0.0}  # in lockstep the slot reports

    def _one(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        if self.crash and CRASH_WORD in observation["prompt"] and observation["step"] >= 40:
            raise RuntimeError("the policy broke on this trial")
        state = np.asarray(observation["state"], dtype=np.float64)
        colour = np.asarray(observation["wrist_image"], dtype=np.float64).mean(axis=(0, 1)) / 255.0
        phase = (len(observation["prompt"]) % 7) / 7.0
        chunk = np.zeros((4, 7))
        for t in range(4):
            chunk[t, 0] = 0.3 * np.sin(state[0] * 3.0 + colour[0] + t * phase)
            chunk[t, 1] = 0.3 * np.cos(state[1] * 3.0 + colour[1] - t * phase)
            chunk[t, 2] = -0.2 + 0.1 * colour[2]
            chunk[t, 6] = 1.0 if observation["step"] % 40 < 20 else -1.0
        return chunk
