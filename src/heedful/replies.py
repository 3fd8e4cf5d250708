"""What agents answer: the reply types every suite's rollout reads (no suite or agent imports here).

`AgentReply` is one answer (a decision, a skill call, a tool call) as raw text the suite parses. A planner
that talks to a model over several turns answers with a `PlannerReply`, which also carries the model
queries it made, or says that the episode ends (with its reason) or that the model's answer did not parse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AgentReply:
    """What an agent answered: the raw text the suite will parse, plus optional usage and metadata."""

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannerReply:
    """A planner's answer with its model queries (JSON-ready dicts, in order), or the end of the episode.

    `text` is the tool call ("" when `parse_error` or `end` is set).
    """

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    queries: tuple[dict[str, Any], ...] = ()
    parse_error: str | None = None
    end: str | None = None
