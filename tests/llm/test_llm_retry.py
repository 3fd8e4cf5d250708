"""Backoff with full jitter, capped, never shorter than the server's Retry-After."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.errors import ConfigError
from heedful.llm.retry import RETRY_AFTER_CAP_S, RetryPolicy, parse_retry_after


@given(st.integers(0, 20), st.one_of(st.none(), st.floats(-5, 1000)), st.integers(0, 2**32))
def test_delays_stay_within_the_backoff_window_or_honour_retry_after(
    attempt: int, retry_after: float | None, seed: int
) -> None:
    policy = RetryPolicy(retries=5, base_s=0.5, max_s=8.0)
    delay = policy.delay(attempt, retry_after, random.Random(seed))
    window = min(8.0, 0.5 * 2**attempt)
    if retry_after is None:
        assert 0.0 <= delay <= window
    else:
        assert min(max(retry_after, 0.0), RETRY_AFTER_CAP_S) <= delay <= max(window, RETRY_AFTER_CAP_S)


def test_jitter_spreads_the_delays() -> None:
    rng = random.Random(0)
    delays = {round(RetryPolicy().delay(3, None, rng), 6) for _ in range(50)}
    assert len(delays) > 40


def test_retry_after_is_read_as_seconds_milliseconds_or_an_http_date() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = datetime(2026, 1, 1, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=now.timestamp()) == pytest.approx(30.0)
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


def test_bad_policies_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        RetryPolicy(retries=-1)
    with pytest.raises(ConfigError):
        RetryPolicy(base_s=2.0, max_s=1.0)
