"""A pool of OpenAI-compatible servers (`--base-url` given several times): requests spread over the servers, a server
that fails leaves rotation and the request goes to the next, a refused request is the request's failure."""

from __future__ import annotations

import pytest
from llm_doubles import FakeOpenAIServer, Reply, free_port, ok

from heedful.errors import ConfigError
from heedful.llm.client import CallError
from heedful.llm.request import ChatRequest, Sampling
from heedful.llm.server_pool import ServerPoolBackend
from heedful.llm.session import LLMSession

REQUEST = ChatRequest(messages=(("user", "pick"),), sampling=Sampling(max_tokens=16, seed=5))


def _pool(*urls: str) -> ServerPoolBackend:
    return ServerPoolBackend(urls, model="m", api_key="k", timeout=5.0)


def test_requests_spread_over_idle_servers_and_a_dead_one_leaves_rotation() -> None:
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        dead = f"http://127.0.0.1:{free_port()}/v1"
        pool = _pool(dead, a.url, b.url)
        texts = [pool.send(REQUEST).text for _ in range(6)]
        assert texts == ['{"decision": "a1"}'] * 6
        assert list(pool.out_of_rotation) == [dead] and "cannot reach" in pool.out_of_rotation[dead]
        assert len(a.requests) == len(b.requests) == 3
        assert pool.describe()["answered"] == [0, len(a.requests), len(b.requests)]
        pool.close()


def test_a_server_error_moves_the_request_and_a_refused_request_is_raised_as_it_is() -> None:
    failing = FakeOpenAIServer(lambda _: Reply(status=503, body={"error": {"message": "overloaded"}}))
    refusing = FakeOpenAIServer(lambda _: Reply(status=400, body={"error": {"message": "bad schema"}}))
    with failing, refusing, FakeOpenAIServer(lambda _: ok('{"decision": "a2"}')) as good:
        pool = _pool(failing.url, good.url)
        assert pool.send(REQUEST).text == '{"decision": "a2"}'  # the 503 cost the request nothing
        assert failing.url in pool.out_of_rotation and "HTTP 503" in pool.out_of_rotation[failing.url]
        pool = _pool(refusing.url, good.url)
        with pytest.raises(CallError, match="HTTP 400") as refused:
            pool.send(REQUEST)
        assert not refused.value.transient and pool.out_of_rotation == {}  # the request's fault, not the server's


def test_with_every_server_out_the_request_fails_with_each_reason() -> None:
    urls = [f"http://127.0.0.1:{free_port()}/v1" for _ in range(2)]
    pool = _pool(*urls)
    with pytest.raises(CallError, match="every server of the pool is out of rotation") as failed:
        pool.send(REQUEST)
    assert failed.value.transient and all(url in failed.value.message for url in urls)


def test_a_session_with_several_base_urls_is_a_pool_and_bad_lists_are_refused() -> None:
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        session = LLMSession(base_url=[a.url, b.url], model="m", use_cache=False)
        assert session.describe()["base_url"] == [a.url, b.url]
        assert session.complete(REQUEST).result.text == '{"decision": "a1"}'
        assert isinstance(session.engine().backend, ServerPoolBackend)
        single = LLMSession(base_url=[a.url], model="m", use_cache=False)
        assert single.describe()["base_url"] == a.url
    for bad in ([], ["http://127.0.0.1:1/v1", "http://127.0.0.1:1/v1"], [3]):
        with pytest.raises(ConfigError, match="--base-url"):
            LLMSession(base_url=bad, model="m")
