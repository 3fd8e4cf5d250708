"""The SQLite response cache: round trip, persistence, threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from heedful.llm.cache import ResponseCache, default_cache_path
from heedful.llm.request import ChatResult


def result(i: int) -> ChatResult:
    return ChatResult(text=f'{{"decision": "a{i}"}}', finish_reason="stop", prompt_tokens=i, completion_tokens=1)


def test_results_persist_across_cache_objects(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.sqlite"
    with ResponseCache(path) as cache:
        assert cache.get("k") is None
        cache.put("k", "m", result(1))
        cache.put("k", "m", result(2))  # the first answer is kept
    with ResponseCache(path) as cache:
        assert cache.get("k") == result(1) and len(cache) == 1


def test_many_threads_share_one_cache(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")

    def work(i: int) -> ChatResult | None:
        cache.put(f"k{i}", "m", result(i))
        return cache.get(f"k{i}")

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(work, range(200)))
    assert got == [result(i) for i in range(200)] and len(cache) == 200
    cache.close()


def test_the_default_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "h"))
    assert default_cache_path() == tmp_path / "h" / "llm-cache.sqlite"
    monkeypatch.delenv("HEEDFUL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_path() == tmp_path / "x" / "heedful" / "llm-cache.sqlite"
