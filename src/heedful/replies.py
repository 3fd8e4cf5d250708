"""What agents answer: the one reply type every suite's rollout reads (no suite or agent imports here).

An `AgentReply` is one answer (a decision, a skill call, a tool call) as raw text the suite parses. A planner
that talks to a model over several turns also gives the model queries it made (`queries`), or says that the
episode ends (`end`, with its reason in `info`) or that the model's answer did not parse (`parse_error`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from heedful.errors import AgentInterfaceError


@dataclass(frozen=True)
class AgentReply:
    """What an agent answered.

    text: the call or decision the suite parses ("" when `parse_error` or `end` is set).
    usage / info: token counts and the like; anything the agent wants kept in the record.
    queries: the model queries behind this answer (JSON-ready dicts, in order); None for an agent that answers
        without a model conversation, whose `text` is then the raw output.
    """

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    queries: tuple[dict[str, Any], ...] | None = None
    parse_error: str | None = None
    end: str | None = None


def as_reply(answer: object) -> AgentReply:
    """The agent's answer as an AgentReply (a plain str is its text).

    Raises:
        AgentInterfaceError: anything else, naming what came back.
    """
    if isinstance(answer, AgentReply):
        return answer
    if isinstance(answer, str):
        return AgentReply(answer)
    raise AgentInterfaceError(
        f"an agent must answer with a heedful.replies.AgentReply (or a str), got {type(answer).__name__}"
    )
