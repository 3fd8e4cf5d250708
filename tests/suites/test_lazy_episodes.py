"""A cached dataset loads lazily: a `--limit` run parses only the episodes it runs, with the same records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heedful.dataset_cache import INDEX_FILE, cached_dataset
from heedful.runner import RunSpec, run
from heedful.runner.store import load_run
from heedful.suites.decisions.suite import SUITE
from heedful.suites.lazy_episodes import LazyEpisodes

CONFIG = SUITE.check_config


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "datasets"


def _lines(episodes: Any) -> list[str]:
    return [episode.model_dump_json() for episode in episodes]


def test_a_cached_load_is_lazy_and_equals_the_generated_dataset(cache: Path) -> None:
    suite = SUITE
    generated, _ = cached_dataset(suite, 0, CONFIG)
    lazy, _ = cached_dataset(suite, 0, CONFIG)
    assert isinstance(lazy, LazyEpisodes) and not isinstance(generated, LazyEpisodes)
    assert lazy.parsed_count == 0
    assert list(lazy.episode_ids) == [episode.episode_id for episode in generated]
    assert lazy.units == suite.sample_units(generated)
    assert suite.dataset_hash(lazy) == suite.dataset_hash(generated)
    assert lazy[3].episode_id == generated[3].episode_id and lazy.parsed_count == 1
    assert lazy[3] is lazy[3]  # parsed once, kept
    assert _lines(lazy) == _lines(generated) and lazy.parsed_count == len(generated)
    assert _lines(lazy[2:5]) == _lines(generated[2:5])


def _limited_run(episodes: Any, out: Path) -> list[dict[str, Any]]:
    suite = SUITE
    spec = RunSpec(
        suite="decisions",
        suite_version=suite.version,
        dataset_hash=suite.dataset_hash(episodes),
        dataset_source="test",
        agent="oracle",
        seed=0,
        limit=6,
    )
    run(spec, episodes, out, progress=False)
    _, records = load_run(out)
    return [record.deterministic_dict() for record in records]


def test_a_limited_run_parses_only_the_episodes_it_runs_and_records_the_same(cache: Path, tmp_path: Path) -> None:
    suite = SUITE
    generated, _ = cached_dataset(suite, 0, CONFIG)
    lazy, _ = cached_dataset(suite, 0, CONFIG)
    assert isinstance(lazy, LazyEpisodes)
    from_lazy = _limited_run(lazy, tmp_path / "lazy")
    assert len(from_lazy) == 6 and lazy.parsed_count == 6  # of the dataset's episodes
    assert len(lazy) == 36  # the check config
    assert from_lazy == _limited_run(list(generated), tmp_path / "eager")


def test_an_index_that_does_not_match_is_ignored_and_written_again(cache: Path) -> None:
    suite = SUITE
    generated, where = cached_dataset(suite, 0, CONFIG)
    assert where is not None
    index_file = where / INDEX_FILE
    for edit in ({"units_of": "another sample_units"}, {"content_hash": "sha256:" + "0" * 64}, {"episode_ids": []}):
        index = json.loads(index_file.read_text())
        index_file.write_text(json.dumps({**index, **edit}))
        eager, _ = cached_dataset(suite, 0, CONFIG)
        assert not isinstance(eager, LazyEpisodes) and _lines(eager) == _lines(generated)
        assert isinstance(cached_dataset(suite, 0, CONFIG)[0], LazyEpisodes)  # the whole load wrote it again
    index_file.unlink()  # a cache written before indexes existed
    assert not isinstance(cached_dataset(suite, 0, CONFIG)[0], LazyEpisodes)
    again, _ = cached_dataset(suite, 0, CONFIG)
    assert isinstance(again, LazyEpisodes) and list(again.episode_ids) == [e.episode_id for e in generated]


def test_a_damaged_file_under_a_good_index_is_regenerated(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = SUITE
    generated, where = cached_dataset(suite, 0, CONFIG)
    assert where is not None and (where / INDEX_FILE).is_file()
    text = (where / "episodes.jsonl").read_text()
    (where / "episodes.jsonl").write_text(text.replace('"train"', '"test"', 1))  # same length, other bytes
    repaired, _ = cached_dataset(suite, 0, CONFIG)
    assert "is damaged" in capsys.readouterr().err
    assert _lines(repaired) == _lines(generated)
