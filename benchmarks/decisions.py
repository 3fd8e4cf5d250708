"""Decisions suite pipeline benchmark: generate + oracle run + report on the full default set.

Every target is a ratio against a reference measured in the same run, because these machines are noisy:

- harness overhead: the oracle through the runner (SQLite store, manifest, records) vs. the same
  rollouts in a bare Python loop;
- bootstrap speed-up: the vectorized family bootstrap (10,000 resamples) vs. a naive loop that resamples
  families with `rng.choice` one replicate at a time (measured on 500 replicates and scaled).

Absolute wall times are printed too, with the aims from the issue (pipeline well under 30 s on 2 cores,
bootstrap under 1 s).

    python benchmarks/decisions.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from heedful.agents.registry import make_agent
from heedful.api import report
from heedful.metrics.stats import cluster_bootstrap_ratios
from heedful.runner import RunSpec, run
from heedful.seeding import derive_seed
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.metrics import family_table
from heedful.suites.decisions.suite import SUITE

RESAMPLES = 10_000


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def naive_bootstrap(num: np.ndarray, den: np.ndarray, resamples: int, seed: int = 0) -> list[tuple[float, float]]:
    rng = np.random.default_rng(seed)
    n = num.shape[0]
    reps = []
    for _ in range(resamples):
        idx = rng.choice(n, size=n, replace=True)
        reps.append(num[idx].sum(axis=0) / np.maximum(den[idx].sum(axis=0), 1e-12))
    arr = np.array(reps)
    return [(float(np.percentile(arr[:, j], 2.5)), float(np.percentile(arr[:, j], 97.5))) for j in range(arr.shape[1])]


def main() -> None:
    suite = SUITE
    episodes, t_generate = timed(lambda: suite.generate(0))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "oracle"
        spec = RunSpec(
            suite="decisions",
            suite_version=suite.version,
            dataset_hash=suite.dataset_hash(episodes),
            dataset_source="generated:seed=0",
            agent="oracle",
            seed=0,
        )
        _, t_run = timed(lambda: run(spec, episodes, out, progress=False))
        (rows, _), t_report = timed(lambda: report(out, resamples=RESAMPLES))
        from heedful.runner import load_run

        _, records = load_run(out)

    agent = make_agent("oracle", suite="decisions")

    def bare_loop() -> None:
        for i, ep in enumerate(episodes):
            suite.rollout_episode(ep, agent, RolloutContext(seed=derive_seed(0, ep.episode_id), index=i))

    _, t_bare = timed(bare_loop)

    num, den = family_table(records).cluster_sums("all", "family")
    _, t_boot = timed(lambda: cluster_bootstrap_ratios(num, den, resamples=RESAMPLES, rng=np.random.default_rng(0)))
    naive_reps = 500
    _, t_naive = timed(lambda: naive_bootstrap(num, den, naive_reps))
    t_naive_full = t_naive * RESAMPLES / naive_reps

    # the whole pipeline as a user runs it: generate in memory, run the oracle, report
    with tempfile.TemporaryDirectory() as tmp:
        from heedful.api import evaluate

        _, t_pipeline = timed(lambda: evaluate(suite="decisions", agent="oracle", out=Path(tmp) / "r", progress=False))
        _, t_pipeline_report = timed(lambda: report(Path(tmp) / "r", resamples=RESAMPLES))
    total = t_pipeline + t_pipeline_report
    print(f"episodes {len(episodes)}, families {num.shape[0]}, report rows {len(rows)}")
    print(f"generate            {t_generate:7.2f} s")
    print(
        f"oracle run (runner) {t_run:7.2f} s   bare rollout loop {t_bare:6.2f} s   "
        f"harness overhead x{t_run / t_bare:.2f}"
    )
    print(f"report ({RESAMPLES} res.) {t_report:7.2f} s")
    print(f"pipeline end to end {total:7.2f} s   (evaluate + report, as the CLI does; aim: well under 30 s)")
    print(
        f"bootstrap alone     {t_boot:7.3f} s   naive loop (scaled from {naive_reps}) {t_naive_full:6.2f} s   "
        f"speed-up x{t_naive_full / t_boot:.1f}   (aim: under 1 s)"
    )


if __name__ == "__main__":
    main()
