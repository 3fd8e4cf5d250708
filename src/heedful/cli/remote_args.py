"""The remote-policy options of `heedful run`: flags that become keyword arguments of the `remote` agent.

Only agents that take an option accept it; `--port` with `--agent oracle` is a usage error naming the flag.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from heedful.cli.agent_flags import AgentFlag, FlagGroup
from heedful.cli.parser import CliUsageError

if TYPE_CHECKING:
    from heedful.protocols import AgentFactory

URL_FLAG = AgentFlag(
    "--url",
    "url",
    "policy server address, ws://HOST:PORT (or --host and --port); repeat it for a pool of servers serving the "
    "same policy: episodes spread over them, one in flight on each, a failing server cooled down and out of "
    "rotation after 3 failures in a row (--agent remote with several --url runs the remote-pool agent)",
    str,
    "URL",
    many=True,
)
FLAGS = (
    URL_FLAG,
    AgentFlag("--host", "host", "policy server host (default 127.0.0.1)", str, "HOST"),
    AgentFlag("--port", "port", "policy server port (default 8000, openpi's)", int, "PORT"),
    AgentFlag("--replan", "replan", "actions executed from each returned chunk (default 5, LIBERO's)", int, "N"),
    AgentFlag(
        "--adapter",
        "adapter",
        "observation / action adapter: libero (default) or module:Class; its arguments via --agent-arg",
        str,
        "NAME",
    ),
    AgentFlag("--connect-timeout", "connect_timeout", "seconds to wait for a connection (default 30)", float, "S"),
    AgentFlag("--request-timeout", "request_timeout", "seconds to wait for one reply (default 120)", float, "S"),
    AgentFlag("--connect-retries", "connect_retries", "further connection attempts (default 2)", int, "N"),
)

GROUP_HELP = """\
Options of remote robot policies (--agent remote, tabletop) served over openpi's websocket protocol,
e.g. by openpi's scripts/serve_policy.py or by `heedful serve`. Needs pip install "heedful[remote]"
and pip install --no-deps openpi-client. LIBERO's observation keys by default; change them with
--agent-arg image_key=... (also wrist_image_key, state_key, prompt_key, action_key, image_size)."""


REMOTE_FLAGS = FlagGroup(
    title="remote policies",
    help=GROUP_HELP,
    owners="remote policies (--agent remote)",
    prefix="remote_",
    flags=FLAGS,
)


def add_remote_args(parser: argparse.ArgumentParser) -> None:
    """Add the remote-policy options to `parser` in their own help group."""
    REMOTE_FLAGS.add_to(parser)


def pooled_agent(args: argparse.Namespace, agent: str) -> str:
    """`remote-pool` for `--agent remote` given several `--url` (a pool of servers); else `agent` itself.

    Raises:
        CliUsageError: a pool with --workers above 1 (each worker would hold its own connection to every server).
    """
    urls = getattr(args, REMOTE_FLAGS.dest(URL_FLAG), None) or []
    pooled = "remote-pool" if agent == "remote" and len(urls) > 1 else agent
    if pooled == "remote-pool" and getattr(args, "workers", 1) > 1:
        raise CliUsageError(
            "a pool of policy servers keeps one episode in flight on each server from one process: drop --workers "
            "(the servers are the parallelism)"
        )
    return pooled


def remote_agent_args(
    args: argparse.Namespace, agent_cls: AgentFactory, agent: str, agent_args: dict[str, Any]
) -> dict[str, Any]:
    """`agent_args` plus the remote-policy options given on the command line (see `FlagGroup.agent_args`)."""
    return REMOTE_FLAGS.agent_args(args, agent_cls, agent, agent_args)
