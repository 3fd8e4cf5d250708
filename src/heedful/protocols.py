"""The agent kinds: one small protocol per way of answering, all in one place.

| kind | method | suites | answers with |
|---|---|---|---|
| decision | `decide(observation)` | decisions | `AgentReply` (the suite parses its text) |
| planner | `act(observation)` | household, tabletop | `AgentReply`, one tool or skill call per call |
| controller | `predict(observation)` | tabletop | a (T, 7) action chunk |

What an agent declares besides answering (privileged, concurrency, cameras, fit, ...) is read by
`heedful.capabilities.capabilities(agent)`, and by nothing else. This module sits below the suites in the
import layers (a suite's rollout types its agent with it), which is why it is not under `heedful.agents`.

Every agent keeps no state from one episode to the next: a serial run shares one agent object while a process
pool has one per worker, so carried-over state would make results depend on the backend. Per-episode randomness
comes from the observation's seed. An agent may raise `heedful.errors.AgentInterfaceError` or
`AgentTimeoutError`; the runner records those with their own status, and any other exception as `crashed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from heedful.replies import AgentReply

__all__ = ["Agent", "AgentFactory", "AgentReply", "ControllerAgent", "DecisionAgent", "Fittable", "PlannerAgent"]


@runtime_checkable
class DecisionAgent(Protocol):
    """Answers a one-shot decision question with raw text (the suite parses and scores it)."""

    name: str

    def decide(self, observation: Any) -> AgentReply: ...


@runtime_checkable
class PlannerAgent(Protocol):
    """Chooses the next high-level call (a household tool, a tabletop skill) from the observation, closed loop.

    Within an episode the observation carries the history; `reply.text` is the call. A planner that talks to a
    model answers with its model queries too, or ends the episode (`AgentReply.queries`, `end`, `parse_error`).
    """

    name: str

    def act(self, observation: Any) -> AgentReply: ...


@runtime_checkable
class ControllerAgent(Protocol):
    """A low-level policy: `predict` gets {"image", "wrist_image", "state", "prompt", "step"} (images for the
    cameras it names in `cameras`; with `object_state` declared also "object_poses", (N, 7) in scene order, and
    "objects", each one's name, shape, colour and size) and returns a (T, 7) chunk of `delta_eef` actions
    (RoboFollow's policy interface). The remote agent (`heedful.remote.agent`) and the trained `bc` agent are
    controllers; the optional hooks (`begin_trial`, `trial_report`) are declared through `heedful.capabilities`."""

    name: str

    def reset(self) -> None: ...

    def set_instruction(self, instruction: str) -> None: ...

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]: ...


@runtime_checkable
class Fittable(Protocol):
    """An agent that learns from training episodes before evaluation (for example the majority baseline)."""

    def fit(self, train_episodes: Sequence[Any]) -> None: ...


Agent = DecisionAgent | PlannerAgent | ControllerAgent
"""An agent of any kind; which one it is comes from its answering method (`heedful.capabilities`)."""

AgentFactory = Callable[..., Agent]
"""What the agent registry holds: an agent class (or any callable) built with keyword arguments (`--agent-arg`)."""
