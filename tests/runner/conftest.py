"""Fixtures of the runner tests: the toy suite and agent registered under test names."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import runner_toy

from heedful.agents.registry import AGENTS
from heedful.suites.registry import SUITES

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Register the toy suite and agent, make them importable by spawned workers, clear every fault."""
    # Registry has no unregister; patching its table undoes the registration after the test.
    monkeypatch.setitem(SUITES._targets, runner_toy.SUITE_NAME, runner_toy.SUITE_TARGET)
    monkeypatch.setitem(AGENTS._targets, runner_toy.AGENT_NAME, runner_toy.AGENT_TARGET)
    paths = [str(SRC), str(HERE), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    for name in runner_toy.FAULT_VARS:
        monkeypatch.delenv(name, raising=False)
    yield
