"""Shared fixtures. The default decisions dataset is generated once per test session."""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("MUJOCO_GL", "egl")
# Default datasets are cached (heedful.dataset_cache): one fresh cache per test session, never the user's.
# Set here, before xdist starts its workers, so they inherit and share it.
os.environ.setdefault("HEEDFUL_CACHE_DIR", tempfile.mkdtemp(prefix="heedful-test-cache-"))


@pytest.fixture(scope="session")
def default_episodes():  # type: ignore[no-untyped-def]
    from heedful.suites.decisions.suite import DecisionsSuite

    return DecisionsSuite().generate(0)
