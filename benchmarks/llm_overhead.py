"""Harness overhead on language-model runs: `heedful` runs vs direct `openai` client calls, same server.

Starts one real llama.cpp server (SmolLM2 by default) in its own process, builds the exact requests the
`llm` agent sends for the first N decisions episodes, then alternates two ways of sending them at the same
concurrency:
- direct: `openai.OpenAI(...).chat.completions.create` from a thread pool (the reference);
- harness: `heedful.runner.run` with the `llm` agent (records, SQLite store, manifest, no cache).
It reports requests/s and completion tokens/s of each and the ratio harness / direct (target >= 0.9).

    python benchmarks/llm_overhead.py [--requests 16] [--concurrency 2] [--rounds 2] [--max-tokens 32]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heedful.agents.llm import LLMDecisionAgent
from heedful.runner import RunSpec, load_run, run
from heedful.seeding import derive_seed
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE

RUN_SEED = 0


@dataclass(frozen=True)
class Measure:
    mode: str
    requests: int
    completion_tokens: int
    wall_s: float

    @property
    def requests_per_s(self) -> float:
        return self.requests / self.wall_s

    @property
    def tokens_per_s(self) -> float:
        return self.completion_tokens / self.wall_s


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen[str], str, str]:
    command = [sys.executable, "-m", "heedful.llm.serve", "--parallel", str(args.parallel or args.concurrency)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    if args.gguf:
        command += ["--gguf", args.gguf]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().split()
    if len(line) < 5 or line[0] != "listening":
        process.kill()
        raise SystemExit(f"the server did not start: {' '.join(line)}")
    return process, line[2], line[4]


def direct(requests: list[Any], url: str, model: str, concurrency: int) -> Measure:
    import openai

    client = openai.OpenAI(base_url=url, api_key="not-needed", max_retries=0, timeout=600)

    def send(request: Any) -> int:
        response = client.chat.completions.create(**request.body(model))
        return int(response.usage.completion_tokens if response.usage else 0)

    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        tokens = sum(pool.map(send, requests))
    wall = time.perf_counter() - start
    client.close()
    return Measure("direct openai", len(requests), tokens, wall)


def harness(episodes: list[Any], agent_args: dict[str, Any], out: Path) -> Measure:
    suite = SUITE
    spec = RunSpec(
        suite="decisions",
        suite_version=suite.version,
        dataset_hash=suite.dataset_hash(episodes),
        dataset_source="benchmark",
        agent="llm",
        agent_args=agent_args,
        seed=RUN_SEED,
    )
    start = time.perf_counter()
    run(spec, episodes, out, progress=False)
    wall = time.perf_counter() - start
    records = load_run(out)[1]
    if any(not r.status.scored for r in records):
        raise SystemExit(f"harness run had transport failures: {[r.error for r in records if not r.status.scored]}")
    return Measure("heedful run", len(records), sum(r.usage["completion_tokens"] for r in records), wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, help="server threads (default: the server's)")
    parser.add_argument("--parallel", type=int, help="server slots (default: --concurrency)")
    parser.add_argument("--gguf", help="model file (default: SmolLM2)")
    args = parser.parse_args()

    episodes = SUITE.generate(0)[: args.requests]
    server, url, model = start_server(args)
    try:
        agent_args = {
            "base_url": url,
            "model": model,
            "concurrency": args.concurrency,
            "max_tokens": args.max_tokens,
            "use_cache": False,
        }
        agent = LLMDecisionAgent(**agent_args)
        requests = [
            agent.request_for(build_observation(ep, seed=derive_seed(RUN_SEED, ep.episode_id), mask=False))
            for ep in episodes
        ]
        direct(requests[:1], url, model, 1)  # warm-up
        results: dict[str, list[Measure]] = {"direct openai": [], "heedful run": []}
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.rounds):
                results["direct openai"].append(direct(requests, url, model, args.concurrency))
                results["heedful run"].append(harness(episodes, agent_args, Path(tmp) / f"run{i}"))
    finally:
        server.terminate()
        server.wait(timeout=60)
    report(results, args)


def report(results: dict[str, list[Measure]], args: argparse.Namespace) -> None:
    print(
        f"{args.requests} requests, concurrency {args.concurrency}, max_tokens {args.max_tokens}, {args.rounds} rounds"
    )
    print(f"{'mode':<14} {'requests/s':>11} {'tokens/s':>9}   per round (requests/s)")
    medians = {}
    for mode, measures in results.items():
        rps = statistics.median(m.requests_per_s for m in measures)
        tps = statistics.median(m.tokens_per_s for m in measures)
        medians[mode] = rps
        rounds = ", ".join(f"{m.requests_per_s:.3f}" for m in measures)
        print(f"{mode:<14} {rps:>11.3f} {tps:>9.2f}   {rounds}")
    ratio = medians["heedful run"] / medians["direct openai"]
    print(f"ratio harness / direct (median requests/s): {ratio:.3f} (target >= 0.90)")


if __name__ == "__main__":
    main()
