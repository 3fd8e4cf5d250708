"""Small real runs of every suite with scripted agents, for the report-format and plot tests: made once per test
process (both test files share them) in a temporary directory removed at exit."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest

from heedful.api import evaluate

TINY_HOUSEHOLD = {"houses": 2, "seen_houses": 1, "per_split_type": 1}
"""One episode per split x task type: 12 episodes, every group of the household figure."""


@cache
def _root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="heedful-report-runs-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


@cache
def decisions_runs() -> dict[str, Path]:
    """Decisions runs of the oracle and of the majority baseline on the same 40-instance sample."""
    for agent in ("oracle", "majority"):
        evaluate(suite="decisions", agent=agent, out=_root() / agent, limit=40, progress=False)
    return {"oracle": _root() / "oracle", "majority": _root() / "majority"}


@cache
def household_run() -> Path:
    """The household oracle on a tiny generated dataset (12 episodes)."""
    from heedful.suites.household.suite import SUITE

    suite = SUITE
    data = _root() / "household-data"
    suite.save_dataset(suite.generate(5, TINY_HOUSEHOLD), data, {"seed": 5})
    out = _root() / "household-oracle"
    evaluate(suite="household", agent="oracle", out=out, dataset=data, limit=12, progress=False)
    return out


@cache
def _tabletop_run() -> Path:
    out = _root() / "tabletop-oracle"
    evaluate(suite="tabletop", agent="oracle", out=out, limit=4, options={"trials": 1}, progress=False)
    return out


def tabletop_run() -> Path:
    """The tabletop oracle on 4 tasks, one trial each (skips the test without MuJoCo)."""
    pytest.importorskip("mujoco")
    return _tabletop_run()


def all_runs() -> dict[str, Path]:
    """One run of each suite, by suite name."""
    return {"decisions": decisions_runs()["majority"], "household": household_run(), "tabletop": tabletop_run()}
