"""Shared fixtures. The default decisions dataset is generated once per test session."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path

import pytest

import process_registry

os.environ.setdefault("MUJOCO_GL", "egl")
# pytest started in the background by a non-interactive shell inherits an ignored SIGINT, and so would every process
# a test starts (an ignored signal survives exec); the Ctrl-C tests need the default a terminal gives. A handler is
# reset to the default on exec, so the processes the tests start get it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# Default datasets are cached (heedful.dataset_cache): one fresh cache per test session, never the user's.
# Set here, before xdist starts its workers, so they inherit and share it.
os.environ.setdefault("HEEDFUL_CACHE_DIR", tempfile.mkdtemp(prefix="heedful-test-cache-"))


@pytest.fixture(scope="session")
def default_episodes():  # type: ignore[no-untyped-def]
    from heedful.suites.decisions.suite import SUITE

    return SUITE.generate(0)


TESTS = Path(__file__).parent
# The heaviest files (seconds on 2 cores, `--durations`, 2026-12-03), scheduled first: with `-n 2 --dist loadfile`
# a file that starts last runs alone while the other core idles, and by default xdist orders files by their
# number of tests, which put the household default (about 380 s, few tests) near the end.
HEAVY_FIRST = (
    "suites/household/test_household_default.py",  # about 95 s since issue 40 (377 s before)
    "llm/test_household_llm_runs.py",  # 233 s
    "llm/test_llm_model.py",  # 160 s
    "suites/tabletop/test_tabletop_suite_expert.py",  # 143 s
    "sims/tabletop/test_tabletop_skills.py",  # 122 s
    "learning/test_trainer.py",  # 74 s (one worker alone)
    "agents/test_tabletop_lerobot.py",  # 80 s (ACT trained by lerobot's own script)
    "cli/test_cli.py",  # 72 s
    "benchmarks/test_run_all.py",  # 60 s
    "agents/test_tabletop_planner.py",  # 55 s
    "runner/test_runner_ray.py",  # 40 s
    "runner/test_runner_ray_cluster.py",  # 25 s
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest files first; the rest keep their order (the sort is stable)."""
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}

    def weight(item: pytest.Item) -> int:
        try:
            return rank.get(item.path.relative_to(TESTS).as_posix(), len(rank))
        except ValueError:  # a test outside tests/
            return len(rank)

    items.sort(key=weight)


# Every heedful process a test starts is recorded by PID (tests/process_registry.py); whatever is still running
# when the session ends (a test failed before its own cleanup, or Ctrl-C) is killed, and named on stderr.
process_registry.install()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Runs at the end of every session, a failed or interrupted one included."""
    killed = process_registry.kill_leftovers()
    if killed:
        print(f"\nconftest: killed {len(killed)} process(es) tests left running: PIDs {killed}", file=sys.stderr)
