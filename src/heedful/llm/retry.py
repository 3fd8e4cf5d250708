"""Retries: exponential backoff with full jitter, honouring the server's Retry-After.

Failures of a request are sorted into transient ones (rate limits, timeouts, dropped connections, 5xx),
which are retried, and permanent ones (a bad request, a wrong model name, a rejected key), which are not.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

from heedful.errors import ConfigError

RETRY_AFTER_CAP_S = 120.0
"""A Retry-After longer than this is cut to it: a run should fail visibly rather than sleep for an hour."""

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a transient failure.

    Attempt `i` (0-based) waits a uniform draw from [0, min(max_s, base_s * 2**i)] ("full jitter"), or
    the server's Retry-After if that is longer.
    """

    retries: int = 4
    base_s: float = 0.5
    max_s: float = 20.0

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise ConfigError(f"retries must be at least 0, got {self.retries}")
        if not (self.base_s >= 0 and self.max_s >= self.base_s):
            raise ConfigError(f"backoff needs 0 <= base_s <= max_s, got base_s={self.base_s}, max_s={self.max_s}")

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number `attempt` (0-based)."""
        backoff = rng.uniform(0.0, min(self.max_s, self.base_s * 2**attempt))
        if retry_after is None:
            return backoff
        return max(backoff, min(max(retry_after, 0.0), RETRY_AFTER_CAP_S))


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: `retry-after-ms`, or `Retry-After` as seconds or an HTTP date."""
    if not headers:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return float(millis) / 1000.0
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - (time.time() if now is None else now)
