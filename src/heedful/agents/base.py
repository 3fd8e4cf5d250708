"""Agent protocols, as `heedful.protocols` defines them (kept here for `from heedful.agents.base import ...`)."""

from __future__ import annotations

from heedful.capabilities import capabilities
from heedful.protocols import ControllerAgent, DecisionAgent, Fittable, PlannerAgent
from heedful.records import AgentDescription
from heedful.replies import AgentReply

__all__ = ["AgentReply", "ControllerAgent", "DecisionAgent", "Fittable", "PlannerAgent", "describe_agent"]


def describe_agent(agent: object) -> AgentDescription:
    """Metadata an agent wants stored in the run manifest."""
    return capabilities(agent).description()
