"""Shared fixtures. The default decisions dataset is generated once per test session."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture(scope="session")
def default_episodes():  # type: ignore[no-untyped-def]
    from heedful.suites.decisions.suite import DecisionsSuite

    return DecisionsSuite().generate(0)
