"""The agent registry. Third parties add agents through the `heedful.agents` entry-point group.

Names are looked up first as `SUITE/NAME` (an agent for one suite, e.g. `decisions/oracle`), then as
plain `NAME` (an agent that serves several suites); a `MODULE:CLASS` name (`--agent mypolicy:MyPolicy`) imports
the class directly, from the current directory or the installed packages. An agent class is built with keyword
arguments from `--agent-arg KEY=VALUE` (or a Python dict).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from heedful.agent_args import check_agent_args
from heedful.errors import ConfigError, UnknownNameError
from heedful.protocols import Agent, AgentFactory
from heedful.registry import Registry, suggest

USER_DIRS: dict[str, str] = {}
"""Top-level module -> the directory `--agent MODULE:CLASS` imported it from (the current directory then), so
that spawned workers and Ray actors import the same module (heedful.runner.worker)."""

AGENTS: Registry[AgentFactory] = Registry(
    kind="agent",
    group="heedful.agents",
    builtins={
        "decisions/oracle": "heedful.agents.decisions:OracleAgent",
        "decisions/random-valid": "heedful.agents.decisions:RandomValidAgent",
        "decisions/majority": "heedful.agents.decisions:MajorityAgent",
        "decisions/lexical": "heedful.agents.decisions_controls:LexicalAgent",
        "decisions/unnamed-member": "heedful.agents.decisions_controls:UnnamedMemberAgent",
        "decisions/order-of-mention": "heedful.agents.decisions_controls:OrderOfMentionAgent",
        "decisions/bow": "heedful.agents.decisions_bow:BowAgent",
        "decisions/count-rank": "heedful.agents.decisions_keywords:CountRankAgent",
        "decisions/keyword-train": "heedful.agents.decisions_keywords:TrainKeywordAgent",
        "decisions/keyword-full": "heedful.agents.decisions_keywords:FullKeywordAgent",
        "household/oracle": "heedful.agents.household:OracleAgent",
        "household/commonsense": "heedful.agents.household:CommonsenseAgent",
        "household/situated": "heedful.agents.household:SituatedAgent",
        "household/sweep": "heedful.agents.household_sweep:SweepAgent",
        "household/reasoner": "heedful.agents.household_reasoner:ReasonerAgent",
        "household/prompter": "heedful.agents.household_prompter:PrompterAgent",
        "decisions/llm": "heedful.agents.llm:LLMDecisionAgent",
        "tabletop/oracle": "heedful.agents.tabletop:OracleAgent",
        "tabletop/blind": "heedful.agents.tabletop:BlindAgent",
        "tabletop/noop": "heedful.agents.tabletop_controls:NoopAgent",
        "tabletop/memorizer": "heedful.agents.tabletop_controls:MemorizerAgent",
        "tabletop/memorizer-object": "heedful.agents.tabletop_controls:MemorizerObjectAgent",
        "tabletop/planner": "heedful.agents.tabletop:LLMPlannerAgent",
        "tabletop/remote": "heedful.remote.agent:RemoteAgent",
        "tabletop/remote-pool": "heedful.remote.pool:RemotePoolAgent",
        "tabletop/bc": "heedful.agents.tabletop_bc:BCAgent",
        "tabletop/lerobot": "heedful.agents.tabletop_lerobot:LeRobotAgent",
    },
)


def agent_names(suite: str | None = None) -> list[str]:
    """Agent names usable with `suite` (suite-specific ones without their prefix)."""
    names = []
    for full in AGENTS.names():
        prefix, _, short = full.rpartition("/")
        if not prefix:
            names.append(full)
        elif suite is None or prefix == suite:
            names.append(short if suite else full)
    return sorted(set(names))


def agent_class(name: str, suite: str | None = None) -> AgentFactory:
    """The class registered for `name` (trying `suite/name` first), or the class a `MODULE:CLASS` name names."""
    known = set(AGENTS.names())
    for candidate in ([f"{suite}/{name}"] if suite else []) + [name]:
        if candidate in known:
            return AGENTS.get(candidate)
    if ":" in name:
        return import_agent(name)
    choices = agent_names(suite)
    where = f" for suite {suite!r}" if suite else ""
    raise UnknownNameError(
        f"unknown agent {name!r}{where}{suggest(name, choices)}; choose one of: {', '.join(choices)}"
    )


def registered_agent_class(name: str, suite: str | None = None) -> AgentFactory | None:
    """The class registered (built in or by an installed package's entry point) for `name`, else None.

    Never imports a `MODULE:CLASS` name: what reads a run directory (a video re-run) builds only these, because a
    run directory is data someone may have sent, and its manifest could name any importable callable.
    """
    known = set(AGENTS.names())
    for candidate in ([f"{suite}/{name}"] if suite else []) + [name]:
        if candidate in known:
            return AGENTS.get(candidate)
    return None


def make_agent(name: str, args: dict[str, Any] | None = None, suite: str | None = None) -> Agent:
    """Build the agent registered as `name` with keyword `args`; unknown keywords and values of the wrong type
    raise ConfigError."""
    return build_agent(agent_class(name, suite), name, args)


def build_agent(cls: AgentFactory, name: str, args: dict[str, Any] | None = None) -> Agent:
    """Build the agent class `cls` (known as `name`) with keyword `args`; unknown keywords and values of the wrong
    type raise ConfigError."""
    args = dict(args or {})
    check_agent_args(name, cls, args)
    return cls(**args)


def import_agent(target: str) -> AgentFactory:
    """The class `MODULE:CLASS` names; the current directory is searched first, as `python -m` would.

    Raises:
        ConfigError: the module does not import or has no such class (with did-you-mean).
    """
    import os

    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"--agent {target!r}: write MODULE:CLASS, e.g. mypolicy:MyPolicy")
    try:
        module = import_first_from([os.getcwd()], module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name.split(".")[0] and exc.name != module_name:
            raise ConfigError(f"--agent {target}: importing {module_name!r} failed: {exc}") from exc
        raise ConfigError(
            f"--agent {target}: cannot import {module_name!r} ({exc}); the module must be in the current "
            "directory or installed"
        ) from exc
    except ImportError as exc:
        raise ConfigError(f"--agent {target}: importing {module_name!r} failed: {exc}") from exc
    where = getattr(module, "__file__", None)
    if where is not None and os.path.abspath(where).startswith(os.getcwd() + os.sep):
        USER_DIRS.setdefault(module_name.split(".")[0], os.getcwd())
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = [n for n in dir(module) if not n.startswith("_")]
            raise ConfigError(f"--agent {target}: {module_name} has no {part!r}{suggest(part, names)}")
        obj = getattr(obj, part)
    found: AgentFactory = obj  # a class (or callable) that builds the agent; its kind is checked where it is used
    return found


def user_dirs(cls: Any) -> dict[str, str]:
    """{top-level module: directory} for a class `--agent MODULE:CLASS` imported from the current directory
    (what a spawned worker must import from there too); empty for every other class."""
    top = str(getattr(cls, "__module__", "")).split(".")[0]
    return {top: USER_DIRS[top]} if top in USER_DIRS else {}


def import_first_from(directories: list[str], module_name: str) -> ModuleType:
    """Import `module_name` searching `directories` first, as `python -m` does with the current directory; for
    this import only, so that a file there never shadows an installed library later."""
    import importlib
    import sys

    added = [d for d in directories if d not in sys.path]
    sys.path[:0] = added
    try:
        return importlib.import_module(module_name)
    finally:
        for directory in added:
            if directory in sys.path:
                sys.path.remove(directory)
