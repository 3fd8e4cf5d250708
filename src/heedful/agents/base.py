"""Agent protocols: one small protocol per interaction mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from heedful.capabilities import capabilities
from heedful.replies import AgentReply

__all__ = ["AgentReply", "DecisionAgent", "Fittable", "describe_agent"]


@runtime_checkable
class DecisionAgent(Protocol):
    """Answers a one-shot decision question with raw text (the suite parses and scores it).

    Agents may raise `heedful.errors.AgentInterfaceError` or `AgentTimeoutError`; the runner records those
    with their own status. Any other exception is recorded as `crashed`.

    An agent keeps no state from one episode to the next: a serial run shares one agent object while a
    process pool has one per worker, so carried-over state would make results depend on the backend.
    Per-episode randomness comes from `observation.seed`.
    """

    name: str

    def decide(self, observation: Any) -> AgentReply: ...


@runtime_checkable
class Fittable(Protocol):
    """An agent that learns from training episodes before evaluation (for example the majority baseline)."""

    def fit(self, train_episodes: Sequence[Any]) -> None: ...


def describe_agent(agent: object) -> dict[str, Any]:
    """Metadata an agent wants stored in the run manifest."""
    return capabilities(agent).description()
