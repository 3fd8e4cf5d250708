"""Groups of `heedful run` flags that become keyword arguments of the agent (language-model, remote-policy).

Only agents that take an option accept it: `--model` with `--agent oracle` is a usage error naming the flag,
and so is an option given both as a flag and as `--agent-arg`.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from heedful.cli.parser import CliUsageError

if TYPE_CHECKING:
    from heedful.protocols import AgentFactory


@dataclass(frozen=True)
class AgentFlag:
    flag: str
    arg: str
    help: str
    type: Any = None
    metavar: str | None = None
    switch_to: bool | None = None  # a store-true flag that sets `arg` to this value
    many: bool = False  # repeatable: one value sets `arg`; several set `arg + "s"` if the agent takes it, else `arg`


@dataclass(frozen=True)
class FlagGroup:
    """Flags of one kind of agent: `owners` names them in errors, `prefix` keeps their dests apart."""

    title: str
    help: str
    owners: str
    prefix: str
    flags: Sequence[AgentFlag]
    accept_any_kwargs: bool = False  # agents taking **kwargs get every flag (and check it themselves)

    def dest(self, flag: AgentFlag) -> str:
        # from the flag, not the arg: --constrain and --no-constrain set one arg
        return self.prefix + flag.flag.removeprefix("--").replace("-", "_")

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        """Add the flags to `parser` in their own help group."""
        group = parser.add_argument_group(self.title, self.help)
        for flag in self.flags:
            # SUPPRESS: an option not given leaves no attribute (and no "(default: None)" in the help).
            if flag.switch_to is not None:
                group.add_argument(
                    flag.flag, dest=self.dest(flag), action="store_true", default=argparse.SUPPRESS, help=flag.help
                )
            else:
                group.add_argument(
                    flag.flag,
                    dest=self.dest(flag),
                    action="append" if flag.many else "store",
                    type=flag.type,
                    metavar=flag.metavar,
                    default=argparse.SUPPRESS,
                    help=flag.help,
                )

    def agent_args(
        self, args: argparse.Namespace, agent_cls: AgentFactory, agent: str, agent_args: dict[str, Any]
    ) -> dict[str, Any]:
        """`agent_args` plus the options of this group given on the command line.

        Raises:
            CliUsageError: an option the agent does not take, or one also given with --agent-arg.
        """
        params = inspect.signature(agent_cls).parameters
        takes_any = self.accept_any_kwargs and any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        merged = dict(agent_args)
        set_by: dict[str, str] = {}  # arg -> the flag that set it
        for flag in self.flags:
            value = getattr(args, self.dest(flag), None)
            if value is None or value is False:
                continue
            arg = flag.arg
            if flag.many:  # the list for an agent taking `arg + "s"`; else one value, or the list (the agent checks)
                if arg + "s" in params:
                    arg, value = arg + "s", list(value)
                else:
                    value = value[0] if len(value) == 1 else list(value)
            if not takes_any and arg not in params:
                raise CliUsageError(f"{flag.flag} is an option of {self.owners}; agent {agent!r} does not take it")
            if arg in merged:
                other = set_by.get(arg, f"--agent-arg {arg}=...")
                raise CliUsageError(f"{flag.flag} and {other} both set {arg}; give it once")
            set_by[arg] = flag.flag
            merged[arg] = flag.switch_to if flag.switch_to is not None else value
        return merged
