"""Requests: every sampling parameter is sent, and the cache key covers the whole request and backend."""

from __future__ import annotations

import dataclasses

import pytest

from heedful.errors import ConfigError
from heedful.llm.request import ChatRequest, ChatResult, Sampling, cache_key

IDENTITY = {"kind": "openai", "base_url": "http://127.0.0.1:8080/v1", "model": "m"}
SCHEMA = {"type": "object", "properties": {"decision": {"type": "string", "enum": ["a1", "a2"]}}}


def request(**changes: object) -> ChatRequest:
    base = ChatRequest(
        messages=(("system", "be brief"), ("user", "pick one")),
        sampling=Sampling(temperature=0.0, top_p=1.0, max_tokens=32, seed=7),
        schema=SCHEMA,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_every_sampling_parameter_and_the_schema_are_sent_explicitly() -> None:
    body = request().body("m")
    assert body["temperature"] == 0.0 and body["top_p"] == 1.0 and body["max_tokens"] == 32 and body["seed"] == 7
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "pick one"}]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    unconstrained = request(schema=None).body("m")
    assert "response_format" not in unconstrained and unconstrained["temperature"] == 0.0
    assert "seed" not in request(sampling=Sampling(seed=None)).body("m")


def test_the_cache_key_changes_with_every_part_of_the_request_and_the_backend() -> None:
    keys = {
        cache_key(IDENTITY, request()),
        cache_key({**IDENTITY, "base_url": "http://127.0.0.1:9090/v1"}, request()),
        cache_key({**IDENTITY, "model": "other"}, request()),
        cache_key({**IDENTITY, "kind": "embedded"}, request()),
        cache_key({"kind": "embedded", "model": "m", "gguf_sha256": "b" * 64}, request()),
        cache_key({"kind": "embedded", "model": "m", "gguf_sha256": "c" * 64}, request()),
        cache_key(IDENTITY, request(messages=(("system", "be brief"), ("user", "pick two")))),
        cache_key(IDENTITY, request(messages=(("user", "be brief"), ("user", "pick one")))),
        cache_key(IDENTITY, request(schema=None)),
        cache_key(IDENTITY, request(schema={**SCHEMA, "required": ["decision"]})),
        cache_key(IDENTITY, request(schema_name="other")),
        cache_key(IDENTITY, request(sampling=Sampling(temperature=0.5, top_p=1.0, max_tokens=32, seed=7))),
        cache_key(IDENTITY, request(sampling=Sampling(temperature=0.0, top_p=0.9, max_tokens=32, seed=7))),
        cache_key(IDENTITY, request(sampling=Sampling(temperature=0.0, top_p=1.0, max_tokens=33, seed=7))),
        cache_key(IDENTITY, request(sampling=Sampling(temperature=0.0, top_p=1.0, max_tokens=32, seed=8))),
        cache_key(IDENTITY, request(sampling=Sampling(temperature=0.0, top_p=1.0, max_tokens=32, seed=None))),
    }
    assert len(keys) == 16
    assert cache_key(dict(reversed(IDENTITY.items())), request()) == cache_key(IDENTITY, request())


def test_sampled_requests_without_a_seed_are_not_cacheable() -> None:
    assert request(sampling=Sampling(temperature=0.0, seed=None)).cacheable
    assert request(sampling=Sampling(temperature=0.7, seed=3)).cacheable
    assert not request(sampling=Sampling(temperature=0.7, seed=None)).cacheable


@pytest.mark.parametrize(
    ("field", "value"),
    [("temperature", -0.1), ("temperature", float("nan")), ("top_p", 0.0), ("max_tokens", 0), ("seed", 2**31)],
)
def test_bad_sampling_values_are_config_errors(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=field):
        Sampling(**{field: value})  # type: ignore[arg-type]


def test_results_round_trip_through_json() -> None:
    result = ChatResult(text='{"decision": "ä"}', finish_reason="length", prompt_tokens=3, completion_tokens=2)
    assert ChatResult.from_json(result.to_json()) == result
