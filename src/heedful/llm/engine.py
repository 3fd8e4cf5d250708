"""The request engine: cache lookup, budget check, the call with retries, usage counts.

Every agent thread calls `ChatEngine.complete`. A transport failure that outlasts the retries raises
`TransportError` (recorded as `interface_error`) or `TransportTimeoutError` (recorded as `timeout`); both carry
the usage spent on the failed episode so that reports and budgets still count it.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from heedful.errors import AgentInterfaceError, AgentTimeoutError
from heedful.llm.cache import ResponseCache
from heedful.llm.client import CallError
from heedful.llm.request import ChatRequest, ChatResult, cache_key
from heedful.llm.retry import RetryPolicy
from heedful.llm.usage import UsageMeter


class ChatBackend(Protocol):
    """Sends one request; raises CallError."""

    model: str

    def identity(self) -> dict[str, Any]: ...

    def send(self, request: ChatRequest) -> ChatResult: ...

    def close(self) -> None: ...


class TransportError(AgentInterfaceError):
    """The server could not be reached or kept failing; `usage` is what the episode spent."""

    def __init__(self, message: str, usage: dict[str, int]) -> None:
        super().__init__(message)
        self.usage = usage


class TransportTimeoutError(AgentTimeoutError):
    """The server did not answer in time, retries included; `usage` is what the episode spent."""

    def __init__(self, message: str, usage: dict[str, int]) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class Completion:
    """A result and the usage of the request that produced it (`cache_hits` 1 means no model call)."""

    result: ChatResult
    usage: dict[str, int]


def _usage(cache_hits: int, model_calls: int, result: ChatResult | None) -> dict[str, int]:
    called = result is not None and cache_hits == 0
    return {
        "requests": 1,
        "cache_hits": cache_hits,
        "model_calls": model_calls,
        "retries": max(0, model_calls - 1),
        "prompt_tokens": result.prompt_tokens if called and result else 0,
        "completion_tokens": result.completion_tokens if called and result else 0,
    }


class ChatEngine:
    """Cache, budget and retries around one backend. Thread-safe.

    Args:
        backend: Where requests go.
        cache: The response cache, or None to always call the model.
        meter: Usage totals and budget, shared by every thread.
        retry: The retry policy for transient failures.
        sleep: How to wait between retries (tests pass a recorder); by default a wait that `close()` cuts short.
    """

    def __init__(
        self,
        backend: ChatBackend,
        cache: ResponseCache | None,
        meter: UsageMeter,
        retry: RetryPolicy,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.meter = meter
        self.retry = retry
        self._stopped = threading.Event()
        self._sleep = sleep or self._stopped.wait
        self._identity: dict[str, Any] | None = None
        self._rng = random.Random()  # jitter only changes when a retry happens, never an answer
        self._rng_lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        if self._identity is None:
            self._identity = self.backend.identity()
        return self._identity

    def complete(self, request: ChatRequest) -> Completion:
        """The answer to `request`, from the cache or the model.

        Raises:
            TransportError: the call failed for good (retries spent, or a permanent error).
            TransportTimeoutError: the last try timed out.
            BudgetExceededError: the run's budget allows no further model call.
        """
        key = cache_key(self.identity(), request) if self.cache is not None and request.cacheable else None
        if key is not None and self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                return Completion(cached, _usage(1, 0, cached))
        result, calls = self._call_with_retries(request)
        self.meter.add_tokens(result.prompt_tokens, result.completion_tokens)
        if key is not None and self.cache is not None:
            self.cache.put(key, self.backend.model, result)
        return Completion(result, _usage(0, calls, result))

    def _call_with_retries(self, request: ChatRequest) -> tuple[ChatResult, int]:
        calls = 0
        while True:
            if self._stopped.is_set():  # closed (the run ended or was interrupted): send nothing more
                raise TransportError(f"the run stopped before try {calls + 1} of this request", _usage(0, calls, None))
            self.meter.reserve_call()
            calls += 1
            try:
                return self.backend.send(request), calls
            except CallError as failure:
                if not failure.transient or calls > self.retry.retries:
                    raise self._final(failure, calls) from failure
                with self._rng_lock:
                    delay = self.retry.delay(calls - 1, failure.retry_after, self._rng)
            self._sleep(delay)

    def _final(self, failure: CallError, calls: int) -> Exception:
        tries = f"after {calls} {'try' if calls == 1 else 'tries'}"
        usage = _usage(0, calls, None)
        if failure.timeout:
            return TransportTimeoutError(f"{failure.message} ({tries})", usage)
        return TransportError(f"{failure.message} ({tries})", usage)

    def close(self) -> None:
        """Send no further request (threads waiting to retry give up at once), then close backend and cache."""
        self._stopped.set()
        self.backend.close()
        if self.cache is not None:
            self.cache.close()
