"""The default-dataset cache: generated once per (version, seed, config), loaded hash-checked, repaired, optional."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from heedful.dataset_cache import cache_key, cached_dataset
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.suite import SUITE, generate
from heedful.suites.declared import DeclaredSuite
from heedful.suites.parts import Progress


class Generations:
    """The real decisions generator (on the small check config by default), counting its calls."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, seed: int, config: Mapping[str, object], progress: Progress | None) -> list[DecisionEpisode]:
        self.count += 1
        return generate(seed, config or SUITE.check_config, progress)


class CountingSuite(DeclaredSuite[DecisionEpisode, DecisionEpisode]):
    """The real decisions suite, counting its generations (a spy, not a double: it generates for real)."""

    def __init__(self) -> None:
        parts = {f.name: getattr(SUITE, f.name) for f in dataclasses.fields(SUITE)}
        super().__init__(**{**parts, "episodes": dataclasses.replace(SUITE.episodes, generate=Generations())})

    @property
    def generated(self) -> int:
        spy = self.episodes.generate
        assert isinstance(spy, Generations)
        return spy.count


def _dumps(episodes: list[Any]) -> list[str]:
    return [e.model_dump_json() for e in episodes]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "datasets"


def test_the_first_call_generates_and_the_next_loads_the_same_episodes(cache: Path) -> None:
    suite = CountingSuite()
    first, where = cached_dataset(suite, 3)
    second, again = cached_dataset(suite, 3)
    assert suite.generated == 1 and where == again == cache / cache_key(suite, 3, None)
    assert _dumps(first) == _dumps(second) == _dumps(suite.generate(3))
    assert json.loads((where / "dataset.json").read_text())["content_hash"] == suite.dataset_hash(first)
    cached_dataset(suite, 4)
    assert suite.generated == 3 and len(list(cache.iterdir())) == 2  # another seed, another entry


def test_a_damaged_cache_is_regenerated_with_a_warning(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = CountingSuite()
    good, where = cached_dataset(suite, 0)
    assert where is not None
    lines = (where / "episodes.jsonl").read_text().splitlines()
    (where / "episodes.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # a truncated file
    repaired, _ = cached_dataset(suite, 0)
    assert suite.generated == 2 and _dumps(repaired) == _dumps(good)
    assert "is damaged" in capsys.readouterr().err
    cached_dataset(suite, 0)
    assert suite.generated == 2  # the repaired copy is used again


def test_the_key_names_version_seed_and_config() -> None:
    suite = SUITE
    assert cache_key(suite, 0, None) == f"{suite.version}-seed0-default"
    assert cache_key(suite, 0, {"a": 1, "b": 2}) == cache_key(suite, 0, {"b": 2, "a": 1}) != cache_key(suite, 0, None)


def test_off_and_an_unwritable_root_generate_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = CountingSuite()
    monkeypatch.setenv("HEEDFUL_DATASET_CACHE", "off")
    episodes, where = cached_dataset(suite, 0, announce=True)
    assert where is None and episodes and "the cache is off" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.delenv("HEEDFUL_DATASET_CACHE")
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(blocker))
    episodes, where = cached_dataset(suite, 0)
    assert where is None and episodes and "not caching" in capsys.readouterr().err


def test_a_cache_entry_is_readable_by_others_as_the_umask_allows(cache: Path) -> None:
    import os
    import stat

    _, where = cached_dataset(CountingSuite(), 0)
    assert where is not None
    old = os.umask(0o022)
    os.umask(old)
    mode = stat.S_IMODE(where.stat().st_mode)
    assert mode == 0o777 & ~old  # not mkdtemp's private 0700


def test_a_cached_load_keeps_each_line_as_its_episodes_serialization(cache: Path) -> None:
    # a cached load skips re-serializing for the run's hash check: the kept lines must be the real dumps
    import hashlib

    suite = CountingSuite()
    cached_dataset(suite, 0)
    loaded, _ = cached_dataset(suite, 0)
    fresh = "".join(e.model_dump_json() + "\n" for e in loaded).encode()
    assert suite.dataset_hash(loaded) == "sha256:" + hashlib.sha256(fresh).hexdigest()


def test_an_entry_is_served_only_as_the_version_seed_and_config_asked_for(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    suite = CountingSuite()
    seed0, where0 = cached_dataset(suite, 0)
    seed1, where1 = cached_dataset(suite, 1)
    assert where0 is not None and where1 is not None and _dumps(seed0) != _dumps(seed1)
    for name in ("episodes.jsonl", "dataset.json", "index.json"):  # seed 1's files copied into seed 0's entry
        shutil.copy(where1 / name, where0 / name)
    served, _ = cached_dataset(suite, 0)
    assert _dumps(served) == _dumps(seed0) and "holds seed 1, not the requested 0" in capsys.readouterr().err
    summary = json.loads((where0 / "dataset.json").read_text())
    (where0 / "dataset.json").write_text(json.dumps({**summary, "seed": 7}))  # an edited seed
    served, _ = cached_dataset(suite, 0)
    assert _dumps(served) == _dumps(seed0) and "holds seed 7" in capsys.readouterr().err
    for name in ("episodes.jsonl", "dataset.json"):  # seed 1's data relabelled as seed 0, under seed 1's index
        shutil.copy(where1 / name, where0 / name)
    summary = json.loads((where0 / "dataset.json").read_text())
    (where0 / "dataset.json").write_text(json.dumps({**summary, "seed": 0}))
    served, _ = cached_dataset(suite, 0)
    assert _dumps(served) == _dumps(seed0) and "its index was written for the episodes" in capsys.readouterr().err


def test_an_index_with_shuffled_units_or_of_the_wrong_type_is_rebuilt_from_the_bytes(cache: Path) -> None:
    from heedful.sampling import sample_positions
    from heedful.suites.lazy_episodes import LazyEpisodes, sample_units

    suite = CountingSuite()
    episodes, where = cached_dataset(suite, 0)
    assert where is not None
    honest = sample_positions(sample_units(suite, episodes), 10, 0)
    index = json.loads((where / "index.json").read_text())
    index["units"] = list(reversed(index["units"]))  # the seal no longer matches
    (where / "index.json").write_text(json.dumps(index))
    eager, _ = cached_dataset(suite, 0)
    assert not isinstance(eager, LazyEpisodes) and sample_positions(sample_units(suite, eager), 10, 0) == honest
    lazy, _ = cached_dataset(suite, 0)
    assert isinstance(lazy, LazyEpisodes) and sample_positions(sample_units(suite, lazy), 10, 0) == honest
    (where / "index.json").write_text("[1, 2]")
    assert _dumps(cached_dataset(suite, 0)[0]) == _dumps(episodes) and suite.generated == 1


def test_a_first_use_says_what_it_does_how_long_it_takes_and_shows_its_progress(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from heedful import dataset_cache
    from heedful.suites.household.suite import SUITE

    updates: list[tuple[int, int | None]] = []
    monkeypatch.setattr(
        dataset_cache._GenerationBar, "__call__", lambda self, n=1, total=None: updates.append((n, total))
    )
    small = {"houses": 2, "seen_houses": 1, "per_split_type": 1}
    episodes, _ = cached_dataset(SUITE, 0, small, announce=True)
    err = capsys.readouterr().err
    assert "generating the default household dataset (seed 0) into the cache" in err
    assert f"about {SUITE.episodes.generation_cpu_s:.0f} s on an idle machine" in err
    assert len(updates) == 2 + len(episodes) and {total for _, total in updates} == {len(updates)}
    cached_dataset(SUITE, 0, small, announce=True)  # the second use loads it, silently
    assert capsys.readouterr().err == ""


def _suite_from_file(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A module file under `folder` (so its sources can be edited) that declares the decisions suite with its own
    counting generator: `EDITED`, whose generations `generated` counts."""
    import importlib.util

    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "edited_suite.py"
    source.write_text(
        "from dataclasses import replace\n\n"
        "from heedful.suites.decisions import suite\n\n"
        "generated = 0\n\n\n"
        "def generate(seed, config, progress):\n"
        "    global generated\n"
        "    generated += 1\n"
        "    return suite.generate(seed, config or suite.SUITE.check_config, progress)\n\n\n"
        "EDITED = replace(suite.SUITE, episodes=replace(suite.SUITE.episodes, generate=generate))\n"
    )
    spec = importlib.util.spec_from_file_location("edited_suite", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "edited_suite", module)  # as a plugin is imported: inspect looks there
    spec.loader.exec_module(module)
    return module


def test_an_entry_made_by_other_generator_code_of_the_same_version_is_regenerated(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from heedful.dataset_cache import generator_fingerprint, generator_sources

    plugin = _suite_from_file(tmp_path / "plugin", monkeypatch)
    suite = plugin.EDITED
    assert tmp_path / "plugin" / "edited_suite.py" in generator_sources(suite)
    assert any(f.name == "seeding.py" for f in generator_sources(suite))
    assert any(f.parent.name == "decisions" for f in generator_sources(suite))  # the package it inherits from
    first, where = cached_dataset(suite, 0)
    before = generator_fingerprint(suite)
    assert json.loads((where / "dataset.json").read_text())["generator"] == before
    cached_dataset(suite, 0)
    assert plugin.generated == 1  # same code: served from the cache
    with (tmp_path / "plugin" / "edited_suite.py").open("a") as f:
        f.write("# the generator changed, the suite version did not\n")
    assert generator_fingerprint(suite) != before
    again, _ = cached_dataset(suite, 0)
    err = capsys.readouterr().err
    assert plugin.generated == 2 and "generated by other generator code" in err and before in err
    assert _dumps(again) == _dumps(first)
    cached_dataset(suite, 0)
    assert plugin.generated == 2  # the regenerated entry is served again


def test_a_declared_suite_is_fingerprinted_by_its_own_code(cache: Path) -> None:
    from dataclasses import replace

    from heedful.dataset_cache import generator_sources
    from heedful.suites.lazy_episodes import LazyEpisodes
    from heedful.suites.parts import Sampling
    from heedful.suites.tabletop.suite import SUITE

    sources = generator_sources(SUITE)  # its class is the generic DeclaredSuite: its parts name its package
    assert any(f.parts[-3:] == ("suites", "tabletop", "registry.py") for f in sources)
    assert not any(f.name == "declared.py" for f in sources)
    cached_dataset(SUITE, 0)
    assert isinstance(cached_dataset(SUITE, 0)[0], LazyEpisodes)
    resampled = replace(SUITE, rollout=replace(SUITE.rollout, sampling=Sampling(lambda trials: [], "none")))
    assert not isinstance(cached_dataset(resampled, 0)[0], LazyEpisodes)  # an index of other sampling code: unread
