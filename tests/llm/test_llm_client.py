"""The OpenAI-compatible path against test-double servers: parsing, retries, Retry-After, timeouts, failures."""

from __future__ import annotations

import threading
import time

import pytest
from llm_doubles import FakeOpenAIServer, FakeSlowServer, Reply, completion, ok, sequence

from heedful.errors import AgentInterfaceError, AgentTimeoutError, ConfigError
from heedful.llm.client import OpenAIBackend, resolve_api_key
from heedful.llm.engine import ChatEngine, TransportError, TransportTimeoutError
from heedful.llm.request import ChatRequest, Sampling
from heedful.llm.retry import RetryPolicy
from heedful.llm.server import free_port
from heedful.llm.usage import UsageMeter

REQUEST = ChatRequest(messages=(("user", "pick"),), sampling=Sampling(max_tokens=16, seed=5), schema={"type": "object"})


def engine(url: str, *, retries: int = 3, timeout: float = 10.0, sleeps: list[float] | None = None) -> ChatEngine:
    backend = OpenAIBackend(url, "fake-model", "sk-test-secret", timeout)
    record = sleeps.append if sleeps is not None else (lambda _: None)
    return ChatEngine(backend, None, UsageMeter(), RetryPolicy(retries=retries, base_s=0.01, max_s=0.05), record)


def test_a_completion_is_parsed_and_the_request_carries_everything() -> None:
    with FakeOpenAIServer(lambda _: Reply(body=completion("hi", "length", 42, 16))) as server:
        done = engine(server.url).complete(REQUEST)
    assert done.result.text == "hi" and done.result.finish_reason == "length"
    assert (done.result.prompt_tokens, done.result.completion_tokens) == (42, 16)
    assert done.usage == {
        "requests": 1,
        "cache_hits": 0,
        "model_calls": 1,
        "retries": 0,
        "prompt_tokens": 42,
        "completion_tokens": 16,
    }
    body = server.requests[0]
    assert body["model"] == "fake-model" and body["seed"] == 5 and body["max_tokens"] == 16
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0
    assert body["response_format"]["type"] == "json_schema"
    assert server.headers[0]["authorization"] == "Bearer sk-test-secret"


def test_rate_limits_are_retried_after_the_servers_retry_after() -> None:
    sleeps: list[float] = []
    script = sequence(Reply(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "2"}), ok())
    with FakeOpenAIServer(script) as server:
        done = engine(server.url, sleeps=sleeps).complete(REQUEST)
    assert done.usage["model_calls"] == 2 and done.usage["retries"] == 1
    assert len(sleeps) == 1 and sleeps[0] >= 2.0


def test_transient_server_errors_are_retried_with_backoff() -> None:
    sleeps: list[float] = []
    script = sequence(Reply(status=503, body="busy"), Reply(status=502, body="bad gateway"), ok("done"))
    with FakeOpenAIServer(script) as server:
        done = engine(server.url, sleeps=sleeps).complete(REQUEST)
    assert done.result.text == "done" and done.usage["model_calls"] == 3 and len(sleeps) == 2
    assert all(0.0 <= s <= 0.05 for s in sleeps)


def test_a_server_that_keeps_failing_is_an_interface_error_after_the_retries() -> None:
    failing = FakeOpenAIServer(lambda _: Reply(status=500, body={"error": {"message": "kaput"}}))
    with failing as server, pytest.raises(TransportError, match=r"HTTP 500 .*kaput.*after 4 tries") as caught:
        engine(server.url, retries=3).complete(REQUEST)
    assert len(server.requests) == 4
    assert caught.value.usage["model_calls"] == 4 and caught.value.usage["prompt_tokens"] == 0
    assert isinstance(caught.value, AgentInterfaceError)


def test_permanent_errors_are_not_retried() -> None:
    refusing = FakeOpenAIServer(lambda _: Reply(status=400, body={"error": {"message": "unknown model"}}))
    with refusing as server, pytest.raises(TransportError, match=r"HTTP 400 .*unknown model.*after 1 try"):
        engine(server.url).complete(REQUEST)
    assert len(server.requests) == 1


def test_an_answer_without_choices_is_an_interface_error() -> None:
    empty = FakeOpenAIServer(lambda _: Reply(body={**completion("x"), "choices": []}))
    with empty as server, pytest.raises(TransportError, match="without any choice"):
        engine(server.url).complete(REQUEST)
    assert len(server.requests) == 1


def test_a_null_content_is_an_empty_answer() -> None:
    body = completion("x")
    body["choices"][0]["message"]["content"] = None
    with FakeOpenAIServer(lambda _: Reply(body=body)) as server:
        assert engine(server.url).complete(REQUEST).result.text == ""


def test_a_slow_server_hits_the_timeout() -> None:
    with FakeSlowServer(delay_s=3.0) as server:
        start = time.monotonic()
        with pytest.raises(TransportTimeoutError, match=r"within 0.4 s \(after 2 tries\)") as caught:
            engine(server.url, retries=1, timeout=0.4).complete(REQUEST)
        elapsed = time.monotonic() - start
    assert isinstance(caught.value, AgentTimeoutError) and caught.value.usage["model_calls"] == 2
    assert elapsed < 2.5


def test_a_closed_port_is_an_interface_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(TransportError, match="cannot reach"):
        engine(url, retries=1).complete(REQUEST)


def test_api_keys_come_from_the_environment_and_remote_servers_need_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_KEY", raising=False)
    assert resolve_api_key("MY_KEY", "http://127.0.0.1:8080/v1") == "not-needed"
    assert resolve_api_key("MY_KEY", "http://localhost:8080/v1") == "not-needed"
    with pytest.raises(ConfigError, match="set the environment variable MY_KEY"):
        resolve_api_key("MY_KEY", "https://api.example.com/v1")
    monkeypatch.setenv("MY_KEY", "sk-123")
    assert resolve_api_key("MY_KEY", "https://api.example.com/v1") == "sk-123"


def test_closing_the_engine_stops_retries_at_once() -> None:
    with FakeOpenAIServer(lambda _: Reply(status=503, body="busy")) as server:
        backend = OpenAIBackend(server.url, "fake-model", "k", 10.0)
        slow_retries = ChatEngine(backend, None, UsageMeter(), RetryPolicy(retries=5, base_s=30.0, max_s=30.0))
        threading.Timer(0.5, slow_retries.close).start()
        start = time.monotonic()
        with pytest.raises(TransportError, match=r"the run stopped before try \d") as caught:
            slow_retries.complete(REQUEST)
    assert time.monotonic() - start < 5.0 and caught.value.usage["model_calls"] >= 1
