"""The remote-policy options of `heedful run`: flags that become keyword arguments of the `remote` agent.

Only agents that take an option accept it; `--port` with `--agent oracle` is a usage error naming the flag.
"""

from __future__ import annotations

import argparse
import inspect
from dataclasses import dataclass
from typing import Any

from heedful.cli.parser import CliUsageError


@dataclass(frozen=True)
class RemoteFlag:
    flag: str
    arg: str
    help: str
    type: Any
    metavar: str


FLAGS = (
    RemoteFlag("--url", "url", "policy server address, ws://HOST:PORT (or --host and --port)", str, "URL"),
    RemoteFlag("--host", "host", "policy server host (default 127.0.0.1)", str, "HOST"),
    RemoteFlag("--port", "port", "policy server port (default 8000, openpi's)", int, "PORT"),
    RemoteFlag("--replan", "replan", "actions executed from each returned chunk (default 5, LIBERO's)", int, "N"),
    RemoteFlag(
        "--adapter",
        "adapter",
        "observation / action adapter: libero (default) or module:Class; its arguments via --agent-arg",
        str,
        "NAME",
    ),
    RemoteFlag("--connect-timeout", "connect_timeout", "seconds to wait for a connection (default 30)", float, "S"),
    RemoteFlag("--request-timeout", "request_timeout", "seconds to wait for one reply (default 120)", float, "S"),
    RemoteFlag("--connect-retries", "connect_retries", "further connection attempts (default 2)", int, "N"),
)

GROUP_HELP = """\
Options of remote robot policies (--agent remote, tabletop) served over openpi's websocket protocol,
e.g. by openpi's scripts/serve_policy.py or by `heedful serve`. Needs pip install "heedful[remote]"
and pip install --no-deps openpi-client. LIBERO's observation keys by default; change them with
--agent-arg image_key=... (also wrist_image_key, state_key, prompt_key, action_key, image_size)."""


def _dest(flag: RemoteFlag) -> str:
    return "remote_" + flag.arg


def add_remote_args(parser: argparse.ArgumentParser) -> None:
    """Add the remote-policy options to `parser` in their own help group."""
    group = parser.add_argument_group("remote policies", GROUP_HELP)
    for flag in FLAGS:
        group.add_argument(
            flag.flag, dest=_dest(flag), type=flag.type, metavar=flag.metavar, default=argparse.SUPPRESS, help=flag.help
        )


def remote_agent_args(
    args: argparse.Namespace, agent_cls: Any, agent: str, agent_args: dict[str, Any]
) -> dict[str, Any]:
    """`agent_args` plus the remote-policy options given on the command line.

    Raises:
        CliUsageError: an option the agent does not take, or one also given with --agent-arg.
    """
    params = inspect.signature(agent_cls).parameters
    merged = dict(agent_args)
    for flag in FLAGS:
        value = getattr(args, _dest(flag), None)
        if value is None:
            continue
        if flag.arg not in params:
            raise CliUsageError(
                f"{flag.flag} is an option of remote policies (--agent remote); agent {agent!r} does not take it"
            )
        if flag.arg in merged:
            raise CliUsageError(f"{flag.flag} and --agent-arg {flag.arg}=... both set {flag.arg}; give it once")
        merged[flag.arg] = value
    return merged
