"""Household language-model agents (Reasoner, Prompter): episodes per minute with the embedded SmolLM2.

Every number comes with a reference measured in the same run (these machines are shared and noisy):

- the commonsense agent (no model) on the same episodes: the agents' episodes/minute over the commonsense
  agent's says what the model costs per episode;
- the raw model: the very requests the agent sent, sent again straight to the backend (no rollout, no
  cache): the agent's model calls/s over the raw requests/s says how much of the agent's time is the model
  (1.0: all of it).

The response cache is off, so every question reaches the model. Episodes: the first N of a small generated
dataset (one per split and task type, in the order val_seen pnp, s_obj, s_hum, val_unseen ...).

With --constrain the agents run in constrained mode (a JSON schema per question, see
heedful.agents.household_json), where SmolLM2's answers parse and episodes go past their first question.

    python benchmarks/household_llm.py [--episodes 6] [--agents reasoner,prompter] [--max-tokens 160] [--threads 2]
        [--constrain]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from heedful.agents.household import CommonsenseAgent
from heedful.agents.household_prompter import PrompterAgent
from heedful.agents.household_reasoner import ReasonerAgent
from heedful.llm.request import ChatRequest, ChatResult, Sampling
from heedful.seeding import derive_seed
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import SUITE

AGENTS = {"reasoner": ReasonerAgent, "prompter": PrompterAgent}
SMALL = {"houses": 2, "seen_houses": 1, "per_split_type": 1}
RUN_SEED = 0


class Recorder:
    """Wraps a backend and keeps the requests that pass through it."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.model = backend.model
        self.requests: list[ChatRequest] = []

    def identity(self) -> dict[str, Any]:
        return dict(self.backend.identity())

    def send(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        result: ChatResult = self.backend.send(request)
        return result

    def close(self) -> None:
        self.backend.close()


def rollouts(episodes: list[HouseholdEpisode], agent: Any) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    runs = [run_episode(ep, agent, derive_seed(RUN_SEED, ep.episode_id)) for ep in episodes]
    return time.perf_counter() - start, runs


def bench_agent(name: str, episodes: list[HouseholdEpisode], args: argparse.Namespace) -> dict[str, Any]:
    agent = AGENTS[name](use_cache=False, max_tokens=args.max_tokens, threads=args.threads, constrain=args.constrain)
    engine = agent.engine()
    recorder = Recorder(engine.backend)
    engine.backend = recorder
    try:
        warm = ChatRequest((("user", "Hello"),), Sampling(0.0, 1.0, 4, 0))
        recorder.backend.send(warm)  # start the embedded server outside the timed part
        wall, runs = rollouts(episodes, agent)
        sent = list(recorder.requests)
        start = time.perf_counter()
        for request in sent:
            recorder.backend.send(request)
        raw_wall = time.perf_counter() - start
    finally:
        agent.close()
    calls = sum(run.usage.get("model_calls", 0) for run in runs)
    return {
        "agent": name,
        "wall_s": wall,
        "episodes_per_min": 60 * len(runs) / wall,
        "model_calls": calls,
        "calls_per_s": calls / wall,
        "raw_requests_per_s": len(sent) / raw_wall if raw_wall > 0 else float("nan"),
        "prompt_tokens": sum(run.usage.get("prompt_tokens", 0) for run in runs),
        "completion_tokens": sum(run.usage.get("completion_tokens", 0) for run in runs),
        "success": sum(bool(run.score and run.score.success and run.status.value == "ok") for run in runs),
        "parse_errors": sum(run.status.value == "parse_error" for run in runs),
        "ended_by": sorted({run.ended_by for run in runs}),
        "episodes": len(runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=6)
    parser.add_argument("--agents", default="reasoner,prompter")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--constrain", action="store_true", help="constrained mode (JSON schemas)")
    args = parser.parse_args()
    episodes = SUITE.generate(5, SMALL)[: args.episodes]
    reference_wall, _ = rollouts(episodes, CommonsenseAgent())
    reference = 60 * len(episodes) / reference_wall
    mode = "constrained (json_schema)" if args.constrain else "unconstrained (free text)"
    print(f"episodes: {len(episodes)} ({', '.join(ep.episode_id for ep in episodes)}); output {mode}")
    print(f"reference: commonsense agent (no model) {reference:.1f} episodes/min ({reference_wall:.2f} s)")
    for name in args.agents.split(","):
        row = bench_agent(name.strip(), episodes, args)
        print(
            f"{row['agent']}: {row['episodes_per_min']:.2f} episodes/min ({row['wall_s']:.1f} s), "
            f"ratio to commonsense {row['episodes_per_min'] / reference:.4f}; "
            f"{row['model_calls']} model calls, {row['calls_per_s']:.3f} calls/s vs raw model "
            f"{row['raw_requests_per_s']:.3f} requests/s (ratio {row['calls_per_s'] / row['raw_requests_per_s']:.2f}); "
            f"tokens {row['prompt_tokens']} prompt + {row['completion_tokens']} completion; "
            f"success {row['success']}/{row['episodes']}, parse errors {row['parse_errors']}, "
            f"ended by {', '.join(row['ended_by'])}"
        )


if __name__ == "__main__":
    main()
