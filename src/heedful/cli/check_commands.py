"""`heedful check suite NAME` and `heedful check agent SUITE/NAME`: the conformance checks on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.parser import CliUsageError, Parser, key_values


def add_check(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "check",
        formatter_class=formatter,
        help=command_help("check"),
        description=(
            "Run the conformance checks (like Gymnasium's check_env) on a small dataset of the suite: for a suite, "
            "its members, seeded generation, dataset round trips, option checks, repeatable rollouts and reports; "
            "for an agent, that it builds, is a kind the suite runs, does not crash, gives the same records when "
            "built again and keeps no state between episodes. Prints each check; exits 1 when one fails."
        ),
    )
    kinds = p.add_subparsers(dest="what", metavar="WHAT", required=True, parser_class=Parser)
    suite = kinds.add_parser("suite", formatter_class=formatter, help="check a registered suite")
    suite.add_argument("name", help="suite name, e.g. household")
    suite.add_argument("--episodes", type=int, default=2, help="episodes the rollout checks use")
    suite.set_defaults(handler=cmd_check_suite, usage_parser=suite)
    agent = kinds.add_parser("agent", formatter_class=formatter, help="check an agent of a suite")
    agent.add_argument("name", help="SUITE/AGENT, e.g. household/situated")
    agent.add_argument("--agent-arg", action="append", metavar="KEY=VALUE", help="agent keyword argument (repeatable)")
    agent.add_argument("--episodes", type=int, default=3, help="episodes the rollout checks use")
    agent.add_argument(
        "--no-rollouts", action="store_true", help="only check the declarations (no episode is rolled out)"
    )
    agent.set_defaults(handler=cmd_check_agent, usage_parser=agent)


def _print(findings: Any) -> int:
    for line in findings.passed:
        print(f"ok    {line}")
    for line in findings.problems:
        print(f"FAIL  {line}")
    verdict = "keeps" if not findings.problems else "breaks"
    print(f"{findings.subject} {verdict} the contract ({len(findings.passed)} checks passed)")
    return 1 if findings.problems else 0


def _episodes(n: int) -> int:
    if n < 1:
        raise CliUsageError(f"--episodes must be at least 1, got {n}")
    return n


def cmd_check_suite(args: argparse.Namespace) -> int:
    from heedful.conformance import ConformanceError, check_suite

    try:
        return _print(check_suite(args.name, episodes=_episodes(args.episodes)))
    except ConformanceError as exc:
        return _print(exc.findings)


def cmd_check_agent(args: argparse.Namespace) -> int:
    from heedful.conformance import ConformanceError, check_agent

    suite, sep, agent = args.name.partition("/")
    if not sep or not suite or not agent:
        raise CliUsageError(f"name the agent as SUITE/AGENT, e.g. household/situated, got {args.name!r}")
    arguments = key_values(args.agent_arg, "--agent-arg")
    try:
        found = check_agent(suite, agent, arguments, episodes=_episodes(args.episodes), rollouts=not args.no_rollouts)
    except ConformanceError as exc:
        found = exc.findings
    return _print(found)
