"""The measures `run_all.py` runs, each a ratio against a reference measured in the same process and run.

Each measure takes the sizes (quick or full) and returns rows; `run_all.py` runs every measure in its own
child process, so the peak memory it reports is that measure's alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Sizes:
    quick: bool
    rounds: int  # alternating rounds; the best of each side is kept (the machine is shared)

    def pick(self, quick: Any, full: Any) -> Any:
        return quick if self.quick else full


@dataclass(frozen=True)
class Row:
    measure: str
    value: str  # what was measured, with its unit
    reference: str  # the reference it is divided by, measured in the same run
    ratio: float
    target: str  # "<= 1.2" or ">= 0.92" or "" (reported, no target)
    note: str = ""

    @property
    def met(self) -> bool | None:
        if not self.target:
            return None
        op, bound = self.target.split()
        return self.ratio <= float(bound) if op == "<=" else self.ratio >= float(bound)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "met": self.met}


def best_of_alternating(
    rounds: int, measured: Callable[[], float], reference: Callable[[], float]
) -> tuple[float, float]:
    """The smallest seconds of each of two timed callables, run in alternation `rounds` times."""
    a, b = float("inf"), float("inf")
    for _ in range(rounds):
        b = min(b, reference())
        a = min(a, measured())
    return a, b


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# --- runner vs a bare rollout loop -------------------------------------------------------------------


def _runner_vs_bare(suite_name: str, episodes: Sequence[Any], options: dict[str, Any], rounds: int, target: str) -> Row:
    """The oracle through `heedful.runner.run` against the same rollouts in a bare `suite.rollout` loop."""
    from heedful.agents.registry import make_agent
    from heedful.runner import RunSpec, run
    from heedful.seeding import derive_seed
    from heedful.suites.base import RolloutContext
    from heedful.suites.registry import get_suite

    suite = get_suite(suite_name)
    episodes = suite.episodes_for_run(episodes, options)  # tabletop: the tasks' trials
    spec = RunSpec(
        suite=suite_name,
        suite_version=suite.version,
        dataset_hash=suite.dataset_hash(episodes),
        dataset_source="benchmark",
        agent="oracle",
        seed=0,
        options=options,
    )

    def through_runner() -> float:
        with tempfile.TemporaryDirectory() as tmp:
            return timed(lambda: run(spec, episodes, Path(tmp) / "run", progress=False))

    def bare_loop() -> float:
        bare_agent = make_agent("oracle", suite=suite_name)
        start = time.perf_counter()
        for index, episode in enumerate(episodes):
            context = RolloutContext(seed=derive_seed(0, episode.episode_id), index=index, options=dict(options))
            suite.rollout_episode(episode, bare_agent, context)
        return time.perf_counter() - start

    runner, bare = best_of_alternating(rounds, through_runner, bare_loop)
    return Row(
        f"{suite_name} oracle: runner / bare loop",
        f"{runner:.3f} s for {len(episodes)} episodes",
        f"{bare:.3f} s bare `suite.rollout` loop",
        runner / bare,
        target,
    )


def decisions_runner(sizes: Sizes) -> list[Row]:
    from heedful.suites.decisions.suite import SUITE

    config = sizes.pick({"atomic_families": 100, "multi_families": 4, "visual_families": 0}, None)
    return [_runner_vs_bare("decisions", SUITE.generate(0, config), {}, sizes.rounds, "<= 1.2")]


def household_runner(sizes: Sizes) -> list[Row]:
    from heedful.dataset_cache import cached_dataset
    from heedful.suites.household.suite import SUITE

    suite = SUITE
    if sizes.quick:
        episodes = suite.generate(0, {"houses": 2, "seen_houses": 1, "per_split_type": 1})
    else:
        episodes = cached_dataset(suite, 0)[0][::10]
    return [_runner_vs_bare("household", episodes, {}, sizes.rounds, "<= 1.1")]


def tabletop_runner(sizes: Sizes) -> list[Row]:
    from heedful.dataset_cache import cached_dataset
    from heedful.suites.tabletop.suite import SUITE

    tasks = cached_dataset(SUITE, 0)[0]
    chosen = tasks[:: len(tasks) // sizes.pick(3, 20)]
    return [_runner_vs_bare("tabletop", chosen, {"trials": 1}, max(1, sizes.rounds - 1), "<= 1.1")]


# --- command-line start-up ---------------------------------------------------------------------------


def _command_s(args: list[str], env: dict[str, str] | None = None, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def _heedful() -> list[str]:
    # `python -m heedful` rather than the console script: it runs the heedful on PYTHONPATH, so the same
    # benchmark measures an older checkout too (`PYTHONPATH=OLD/src python benchmarks/run_all.py`)
    return [sys.executable, "-m", "heedful"]


def cli_startup(sizes: Sizes) -> list[Row]:
    rounds = sizes.pick(3, 9)
    bare = _command_s([sys.executable, "-c", "pass"], rounds=rounds)
    help_s = _command_s([*_heedful(), "--help"], rounds=rounds)
    rows = [
        Row("`heedful --help` / `python -c pass`", f"{help_s:.3f} s", f"{bare:.3f} s", help_s / bare, "<= 4"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        # quick (the test suite's smoke test) shares the session's dataset cache; full sizes start from none
        cache = os.environ.get("HEEDFUL_CACHE_DIR") if sizes.quick else None
        env = {**os.environ, "HEEDFUL_CACHE_DIR": cache or str(Path(tmp) / "cache")}
        count = iter(range(10_000))

        def run_limit(n: int) -> list[str]:
            out = Path(tmp) / f"run{next(count)}"
            return [
                *_heedful(),
                "run",
                "decisions",
                "--agent",
                "oracle",
                "--limit",
                str(n),
                "--out",
                str(out),
                "--no-progress",
            ]

        subprocess.run(run_limit(2), check=True, capture_output=True, env=env)  # fills the dataset cache
        small = min(
            timed(lambda: subprocess.run(run_limit(2), check=True, capture_output=True, env=env)) for _ in range(rounds)
        )
        large_n = sizes.pick(200, 2000)
        large = min(
            timed(lambda: subprocess.run(run_limit(large_n), check=True, capture_output=True, env=env))
            for _ in range(max(1, rounds // 3))
        )
    rows.append(
        Row(
            "`heedful run decisions --agent oracle --limit 2` / `heedful --help`",
            f"{small:.2f} s (dataset cached)",
            f"{help_s:.3f} s",
            small / help_s,
            "<= 4",
            note="the issue's reference `--help` took 0.27 s then; it takes the time on the left now",
        )
    )
    rows.append(
        Row(
            f"same with --limit {large_n} / --limit 2",
            f"{large:.2f} s",
            f"{small:.2f} s",
            large / small,
            "",
            note="work grows with --limit above the fixed start-up",
        )
    )
    return rows


# --- tabletop simulator ------------------------------------------------------------------------------


def tabletop_env(sizes: Sizes) -> list[Row]:
    sys.path.insert(0, str(BENCHMARKS))
    from tabletop_sim import bench_heedful, bench_raw

    steps = sizes.pick(60, 600)
    rows = []
    for cameras, target in ((False, ">= 0.92"), (True, ">= 0.95")):
        env_rate, raw_rate = 0.0, 0.0
        for _ in range(sizes.rounds):
            rate, start, ctrls = bench_heedful(steps, cameras)
            env_rate = max(env_rate, rate)
            raw_rate = max(raw_rate, bench_raw(start, ctrls, cameras))
        what = "two 224x224 cameras" if cameras else "no cameras"
        rows.append(
            Row(
                f"tabletop env / raw MuJoCo ({what})",
                f"{env_rate:.0f} control steps/s",
                f"{raw_rate:.0f} steps/s raw mj_step" + (" + mujoco.Renderer" if cameras else ""),
                env_rate / raw_rate,
                target,
            )
        )
    return rows


# --- the RoboFollow protocol and the demonstrations --------------------------------------------------


BARE_TRIALS = """
import sys, time
from heedful.agents.registry import make_agent
from heedful.dataset_cache import cached_dataset
from heedful.seeding import derive_seed
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.suite import SUITE as suite
tasks = cached_dataset(suite, 0)[0]
trials = suite.episodes_for_run(tasks[:: len(tasks) // int(sys.argv[1])], {"trials": 1})
agent = make_agent("oracle", suite="tabletop")
start = time.perf_counter()
for i, t in enumerate(trials):
    suite.rollout_episode(t, agent, RolloutContext(seed=derive_seed(0, t.episode_id), index=i, options={"trials": 1}))
print(time.perf_counter() - start)
"""


def machine_ceiling(trials: int) -> float:
    """Throughput of two bare trial loops in two processes at once over one alone: what two cores give."""
    args = [sys.executable, "-c", BARE_TRIALS, str(trials)]
    alone = float(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    pair = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    together = max(float(p.communicate()[0]) for p in pair)
    return 2 * alone / together


def tabletop_protocol(sizes: Sizes) -> list[Row]:
    from heedful.api import evaluate
    from heedful.runner import load_run

    limit = sizes.pick(4, None)  # full: every evaluation task once (554 trials)
    walls: dict[int, float] = {}
    simulated = 0.0
    trials = 0
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            out = Path(tmp) / f"w{workers}"
            start = time.perf_counter()
            evaluate(
                suite="tabletop",
                agent="oracle",
                out=out,
                options={"trials": 1},
                limit=limit,
                workers=workers,
                progress=False,
            )
            walls[workers] = time.perf_counter() - start
            if workers == 2:
                _, records = load_run(out)
                simulated = sum(r.timing["wall_s"] for r in records)
                trials = len(records)
    ceiling = machine_ceiling(sizes.pick(2, 60))
    return [
        Row(
            "tabletop protocol, 2 workers: wall x workers / summed trial time",
            f"{walls[2]:.1f} s wall for {trials} trials",
            f"{simulated:.1f} s summed rollout time",
            walls[2] * 2 / simulated,
            "<= 1.15",
        ),
        Row(
            "tabletop protocol: 2 workers / 1 worker throughput",
            f"{trials / walls[2]:.2f} trials/s",
            f"{trials / walls[1]:.2f} trials/s",
            walls[1] / walls[2],
            ">= 1.8",
            note=f"two bare trial loops in two processes at once reach {ceiling:.2f}x one alone on this machine",
        ),
    ]


def lerobot_export(sizes: Sizes) -> list[Row]:
    from heedful.api import demos
    from heedful.suites.tabletop.registry import training_tasks

    labels = [t.label for t in training_tasks()][:: sizes.pick(40, 8)][: sizes.pick(1, 8)]
    n = len(labels)
    with tempfile.TemporaryDirectory() as tmp:
        hdf5 = timed(lambda: demos(Path(tmp) / "h", per_task=1, cameras=True, tasks=labels, format="hdf5"))

        def export(workers: int) -> float:
            out = Path(tmp) / f"l{workers}"
            more = {"workers": workers} if workers > 1 else {}
            return timed(lambda: demos(out, per_task=1, cameras=True, tasks=labels, format="lerobot", **more))

        import inspect

        parallel = "workers" in inspect.signature(demos).parameters  # an older checkout records serially
        walls = {workers: export(workers) for workers in ((1, 2) if parallel else (1,))}
    rows = [
        Row(
            f"LeRobot export, two 224x224 cameras, {workers} recording worker(s): demos/s per core",
            f"{n / wall:.2f} demos/s ({n} demos)",
            "1 demo/s per core (the issue's aim)",
            n / wall / max(1, min(workers, os.cpu_count() or 1)),
            ">= 1",
            note=f"HDF5 export of the same demos, one process: {n / hdf5:.2f} demos/s",
        )
        for workers, wall in walls.items()
    ]
    return rows


MEASURES: dict[str, Callable[[Sizes], list[Row]]] = {
    "decisions_runner": decisions_runner,
    "household_runner": household_runner,
    "tabletop_runner": tabletop_runner,
    "cli_startup": cli_startup,
    "tabletop_env": tabletop_env,
    "tabletop_protocol": tabletop_protocol,
    "lerobot_export": lerobot_export,
}
