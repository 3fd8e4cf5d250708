"""Remote-policy overhead: the `remote` agent over the network vs the same policy called in process.

The policy is the served oracle (`heedful.remote.mirror.MirrorPolicy`). Both paths run the same tabletop
trials with the same `RemoteAgent` (LIBERO adapter: two 224x224 camera images rendered per request,
replan 5 of a 10-action chunk); they differ only in the transport:
- in process (the reference): the agent's link calls `MirrorPolicy.infer` directly;
- remote: `heedful serve --agent oracle` in its own process on 127.0.0.1, reached through openpi-client
  (msgpack, websocket, heedful's timeout thread).
Both policies first roll every trial out once (the served oracle caches its rollouts), so the rounds time
only acting. The paths alternate for `--rounds` rounds (best round of each is kept; the machine is shared). It reports
seconds per control step of each, the remote overhead per step and per request, and the ratio
remote / in process, plus the bytes of one request on the wire. Because rendering and physics dominate a
step and the machine is noisy, it also reports the time spent waiting for replies, measured by the agent
around each call: the direct call in process vs the network round trip (their difference is the transport).

    MUJOCO_GL=egl python benchmarks/remote_policy.py [--trials 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from typing import Any

from heedful.remote.agent import RemoteAgent
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.wire import packb
from heedful.seeding import derive_seed
from heedful.suites.tabletop.model import TabletopTrial
from heedful.suites.tabletop.perturb import trial_seed
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.rollout import run_trial


class DirectLink:
    """Stands in for `PolicyLink`: calls the policy in this process (no msgpack, no socket, no thread)."""

    connect_timeout = request_timeout = 0.0
    connect_retries = 0

    def __init__(self, policy: MirrorPolicy) -> None:
        self.policy = policy
        self.metadata = policy.metadata
        self.last_obs: dict[str, Any] = {}

    def ensure(self) -> dict[str, Any]:
        return self.metadata

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        self.last_obs = obs
        return self.policy.infer(obs)

    def close(self) -> None:
        pass


def chosen_trials(n: int) -> list[TabletopTrial]:
    tasks = [t for t in evaluation_tasks() if t.level == "L0"]
    picked = tasks[:: max(1, len(tasks) // n)][:n]
    return [TabletopTrial(episode_id=f"{t.task}/t0", trial=0, trial_seed=trial_seed(t.task, 0), task=t) for t in picked]


def run_all(agent: RemoteAgent, trials: list[TabletopTrial]) -> tuple[float, int, int, float]:
    """(wall s, control steps, requests, s spent waiting for replies) of every trial; checks full marks."""
    steps = requests = 0
    waiting = 0.0
    start = time.perf_counter()
    for trial in trials:
        result = run_trial(trial, agent, derive_seed(0, trial.episode_id))
        if result.score is None or not result.score.complete:
            raise SystemExit(f"{trial.episode_id} did not complete: the benchmark's policy must succeed")
        steps += result.steps
        n = int(result.info["requests"])
        requests += n
        waiting += result.timing["remote_roundtrip_ms_mean"] * n / 1000.0
    return time.perf_counter() - start, steps, requests, waiting


class ServeProcess:
    def __init__(self) -> None:
        cmd = [sys.executable, "-m", "heedful", "serve", "--agent", "oracle", "--port", "0"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        match = re.search(r"ws://127\.0\.0\.1:\d+", line)
        if not match:
            self.proc.kill()
            raise SystemExit(f"heedful serve did not start: {line!r}")
        self.url = match.group(0)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=8, help="L0 trials, spread over the four scenes")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trials = chosen_trials(args.trials)
    local = RemoteAgent()
    direct = DirectLink(MirrorPolicy("oracle"))
    local.link = direct  # type: ignore[assignment]
    server = ServeProcess()
    remote = RemoteAgent(url=server.url, request_timeout=60.0)
    best: dict[str, tuple[float, int, int, float]] = {}
    try:
        run_all(remote, trials)  # warm up: both policies roll every trial out once and cache it
        run_all(local, trials)
        for i in range(args.rounds):
            for name, agent in (("in_process", local), ("remote", remote)):
                measured = run_all(agent, trials)
                print(f"round {i + 1} {name}: {measured[0]:.2f} s", file=sys.stderr)
                if name not in best or measured[0] < best[name][0]:
                    best[name] = measured
    finally:
        remote.close()
        server.stop()
    (wall_l, steps, requests, wait_l), (wall_r, steps_r, requests_r, wait_r) = best["in_process"], best["remote"]
    if (steps, requests) != (steps_r, requests_r):
        raise SystemExit("the two paths ran different steps or requests")
    results = {
        "trials": len(trials),
        "control_steps": steps,
        "requests": requests,
        "request_bytes": len(packb(direct.last_obs)),
        "in_process_ms_per_step": round(1000 * wall_l / steps, 3),
        "remote_ms_per_step": round(1000 * wall_r / steps, 3),
        "overhead_ms_per_step": round(1000 * (wall_r - wall_l) / steps, 3),
        "overhead_ms_per_request": round(1000 * (wall_r - wall_l) / requests, 3),
        "ratio_remote_over_in_process": round(wall_r / wall_l, 3),
        "in_process_call_ms_per_request": round(1000 * wait_l / requests, 3),
        "remote_roundtrip_ms_per_request": round(1000 * wait_r / requests, 3),
        "transport_ms_per_request": round(1000 * (wait_r - wait_l) / requests, 3),
        "transport_share_of_remote_wall": round((wait_r - wait_l) / wall_r, 3),
    }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
