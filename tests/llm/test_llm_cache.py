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


def test_swapped_entries_are_never_served_for_each_other(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    path = tmp_path / "cache.sqlite"
    with ResponseCache(path) as cache:
        cache.put("ka", "m", result(1))
        cache.put("kb", "m", result(2))
    with sqlite3.connect(path) as conn:  # swap the two answers by hand
        (a,), (b,) = conn.execute("SELECT result FROM responses ORDER BY key").fetchall()
        conn.execute("UPDATE responses SET result = ? WHERE key = 'ka'", (b,))
        conn.execute("UPDATE responses SET result = ? WHERE key = 'kb'", (a,))
    with ResponseCache(path) as cache:
        assert cache.get("ka") is None and cache.get("kb") is None  # asked again, never another prompt's answer
        assert "does not verify (it answers request kb" in capsys.readouterr().err and len(cache) == 0


@pytest.mark.parametrize("stored", ["{not json", "[1]", '{"text": 5}', '{"text": "x", "request_sha256": "k"}'])
def test_a_garbage_or_wrong_schema_entry_is_deleted_and_missed(
    tmp_path: Path, stored: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    path = tmp_path / "cache.sqlite"
    with ResponseCache(path) as cache:
        cache.put("k", "m", result(1))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE responses SET result = ?", (stored,))
    with ResponseCache(path) as cache:
        assert cache.get("k") is None and len(cache) == 0
        cache.put("k", "m", result(3))
        assert cache.get("k") == result(3)
    assert "does not verify" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_a_damaged_cache_file_is_set_aside_and_a_new_one_started(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cache.sqlite"
    with ResponseCache(path) as cache:
        for i in range(50):
            cache.put(f"k{i}", "m", result(i))
    data = path.read_bytes()
    path.write_bytes(data[:1000] if damage == "truncate" else b"garbage " * 200)
    with ResponseCache(path) as cache:
        assert cache.get("k1") is None
        cache.put("k1", "m", result(1))
        assert cache.get("k1") == result(1)
    assert "is damaged" in capsys.readouterr().err
    assert [p.name.split(".damaged-")[0] for p in tmp_path.glob("*.damaged-*")] == ["cache.sqlite"]
