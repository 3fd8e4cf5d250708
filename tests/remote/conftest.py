"""Fixtures of the remote-policy tests: one served oracle shared by the module's tests (its rollouts are cached)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

try:
    import openpi_client  # noqa: F401 - the remote tests speak openpi's protocol through openpi-client itself
except ImportError as exc:
    raise ImportError(
        "the remote tests need openpi-client: pip install --no-deps openpi-client (see the README's test command)"
    ) from exc

from heedful.remote.mirror import MirrorPolicy
from heedful.remote.server import PolicyServer


@pytest.fixture(scope="session")
def oracle_mirror() -> MirrorPolicy:
    return MirrorPolicy("oracle")


@pytest.fixture
def oracle_server(oracle_mirror: MirrorPolicy) -> Iterator[PolicyServer]:
    """heedful's real policy server with the served oracle, on a free port of 127.0.0.1."""
    with PolicyServer(oracle_mirror, port=0) as server:
        yield server
