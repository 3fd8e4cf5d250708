"""`heedful serve`: serve a tabletop agent (built-in or `MODULE:CLASS`) over openpi's websocket policy protocol."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.parser import key_values
from heedful.errors import ConfigError

DESCRIPTION = """\
Serve a tabletop agent as a policy server speaking openpi's websocket protocol (metadata on connect, msgpack
observations in, {"actions": H x 7, "server_timing"} out, a traceback on error), so you can test a client
set-up, and heedful's tests have a real peer:

  heedful serve --agent oracle --port 8000
  heedful serve --agent mypolicy:MyPolicy --port 8000      # your own controller, from this directory
  heedful run tabletop --agent remote --port 8000 --level L0 --trials 1

A controller (predict(observation) -> actions, built-in or your own MODULE:CLASS) is served as it is. The
planners (oracle, blind) act from the episode's ground truth, which heedful's remote agent sends under
`heedful/episode` because the server's metadata asks for it: they are protocol test peers, not policies
(see heedful.remote.mirror). Runs until Ctrl-C or SIGTERM."""


def add_serve(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "serve",
        formatter_class=formatter,
        help=command_help("serve"),
        description=DESCRIPTION,
    )
    p.add_argument(
        "--agent",
        required=True,
        help="tabletop agent to serve: a controller (yours as MODULE:CLASS, or bc, lerobot) or a planner "
        "(oracle, blind)",
    )
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE", help="agent keyword argument (repeatable)")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (0.0.0.0: every interface)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (0: a free one, printed at start)")
    p.add_argument("--chunk", type=int, default=10, help="actions per reply of a planner (a controller: its own)")
    p.add_argument("--dataset", type=Path, help="dataset whose L0 tasks blind fits on (else the built-in tasks)")
    p.add_argument(
        "--max-batch",
        type=int,
        default=1,
        help="answer up to N clients' requests with one batched call (heedful.remote.batching; 1: each alone)",
    )
    p.add_argument("--max-wait-ms", type=float, default=5.0, help="with --max-batch: longest wait for a batch to fill")
    p.add_argument("--max-frame-mb", type=float, default=64.0, help="largest request frame accepted, in MiB")
    p.add_argument("--idle-timeout", type=float, default=300.0, help="seconds a silent connection stays open")
    p.add_argument("--max-connections", type=int, default=64, help="open connections at most (more get HTTP 503)")
    p.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from heedful.agents.registry import agent_class, make_agent
    from heedful.capabilities import capabilities
    from heedful.remote.mirror import MirrorPolicy
    from heedful.remote.served_controller import ControllerPolicy
    from heedful.remote.server import PolicyServer

    train = None
    if args.dataset is not None:
        from heedful.suites.tabletop.suite import SUITE

        train = SUITE.load_dataset(args.dataset)
    agent_args = key_values(args.agent_arg, "--agent-arg")
    if args.agent in ("remote", "remote-pool"):
        raise ConfigError(
            f"heedful serve cannot serve {args.agent!r}: it forwards to a policy server itself; serve the policy "
            "behind it, a controller (MODULE:CLASS, bc, lerobot) or a planner (oracle, blind)"
        )
    policy: ControllerPolicy | MirrorPolicy
    if capabilities(agent_class(args.agent, "tabletop")).kind == "controller":
        policy = ControllerPolicy(make_agent(args.agent, agent_args, suite="tabletop"), args.agent)
    else:
        policy = MirrorPolicy(args.agent, chunk=args.chunk, agent_args=agent_args, train=train)
    served: Any = policy
    if args.max_batch > 1:
        from heedful.remote.batching import BatchingPolicy

        served = BatchingPolicy(policy, max_batch=args.max_batch, max_wait_ms=args.max_wait_ms)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        bounds = {
            "max_frame_bytes": int(args.max_frame_mb * 2**20),
            "idle_timeout_s": args.idle_timeout,
            "max_connections": args.max_connections,
        }
        with PolicyServer(served, host=args.host, port=args.port, **bounds) as server:
            print(
                f"serving tabletop/{args.agent} on {server.url} (openpi websocket protocol; Ctrl-C stops)", flush=True
            )
            while not stop.wait(0.5):
                pass
        print(f"stopped after {server.requests} requests", flush=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
