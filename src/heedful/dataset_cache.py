"""The on-disk cache of generated default datasets: one directory per (suite version, seed, config).

A run, replay or task listing without `--dataset` used to regenerate the suite's dataset every time (minutes, for
the largest). Now the first one generates it and writes it as
`heedful generate` would (`episodes.jsonl` + `dataset.json` with the content hash) under the cache root;
later ones load it, checking the content hash. An entry is served only when it is the one asked for: its
summary's seed and config and its index's (sealed) suite version, seed, config and content hash must be the
requested ones, and its episodes file must hash to that content hash. An entry that fails a check (edited,
truncated, another seed's files copied in) is set aside and regenerated, with a warning; an index that does not
match its seal or the bytes is rebuilt from the episodes. The key is the suite's dataset version, so a generator
change that bumps the version never reads an old cache; an entry also records a fingerprint of the generator's
source files (`generator_fingerprint`), so one written by other generator code of the same version (an upgrade
without a version bump, an edited checkout) is regenerated too, with a warning that says why. (A guard against
accidents and casual edits: someone who recomputes the seal can still fool it.)

The root is `$HEEDFUL_CACHE_DIR`, else `$XDG_CACHE_HOME/heedful`, else `~/.cache/heedful`; datasets live
in its `datasets/` folder (the language-model response cache shares the root). `HEEDFUL_DATASET_CACHE=off`
turns the dataset cache off (generate in memory every time).
Concurrent writers are safe: each stages its own directory and the first rename wins.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import json
import marshal
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from heedful.cache_home import cache_home
from heedful.errors import ConfigError, DatasetError
from heedful.staging import staged_directory
from heedful.suites.episode_files import (
    EPISODES_FILE,
    SUMMARY_FILE,
    content_hash,
    parsed_with_line,
    verify_content_hash,
    written_by_generate,
)
from heedful.suites.lazy_episodes import LazyEpisodes

if TYPE_CHECKING:
    from heedful.suites.base import Episode, Suite

M = TypeVar("M")

GENERATED = "generated:seed="
"""How a run's manifest names a default dataset (`RunSpec.dataset_source`)."""
OFF = "off"
SWITCH = "HEEDFUL_DATASET_CACHE"
"""Set to `off` to generate in memory every time (HEEDFUL_CACHE_DIR also roots the response cache, so it is no
switch)."""


def cache_root() -> Path | None:
    """Where cached datasets live, or None when the cache is turned off."""
    if os.environ.get(SWITCH, "").lower() == OFF:
        return None
    return cache_home() / "datasets"


def cache_key(suite: Suite, seed: int, config: dict[str, Any] | None) -> str:
    """`<version>-seed<seed>-<config digest>` ("default" for the default config)."""
    if config:
        text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    else:
        digest = "default"
    return f"{suite.version}-seed{seed}-{digest}"


def cached_dataset(
    suite: Suite, seed: int, config: dict[str, Any] | None = None, *, announce: bool = False
) -> tuple[Sequence[Episode], Path | None]:
    """The suite's generated episodes for (seed, config) and the cache directory holding them (None: no cache).

    A cached dataset comes back as a `LazyEpisodes` (each episode parsed when first read, see
    `heedful.suites.lazy_episodes`), a freshly generated one as a list. A generation is always announced on
    stderr, with what it does and how long it should take (the household world takes a while), with a progress
    bar when `announce` is set or stderr is a terminal.
    """
    root = cache_root()
    where = None if root is None else root / cache_key(suite, seed, config)
    identity = entry_identity(suite, seed, config)
    if where is not None and _present(where):
        try:
            _check_summary(where, identity)
            lazy = load_indexed(suite, where, identity)
            if lazy is not None:
                return lazy, where
            with written_by_generate():  # our own files, hash-checked: generation already checked each episode
                episodes = list(suite.load_dataset(where, verify=True))
            write_index(suite, episodes, where, identity)  # no index, or one that failed its checks: write it again
            return episodes, where
        except (DatasetError, OSError) as exc:  # edited, truncated, or not readable by this user
            print(
                f"heedful: the cached dataset {where} is damaged or not the one asked for ({exc}); setting it aside "
                "and regenerating it",
                file=sys.stderr,
            )
    into = f" into the cache {where}, once" if where is not None else " (the cache is off: every time)"
    print(
        f"heedful: generating the default {suite.name} dataset (seed {seed}){into}; {_how_long(suite)}",
        file=sys.stderr,
        flush=True,
    )
    bar = _GenerationBar(announce or sys.stderr.isatty(), suite.name)  # a terminal gets the bar in every command
    try:
        if "progress" in inspect.signature(suite.generate).parameters:
            episodes = list(suite.generate(seed, config, progress=bar))
        else:  # a suite whose generator reports no progress
            episodes = list(suite.generate(seed, config))
    finally:
        bar.close()
    return episodes, None if where is None else _store(suite, episodes, where, identity, config)


def _how_long(suite: Suite) -> str:
    """How long generation takes: the suite's own estimate (`Episodes.generation_cpu_s`) at this machine's load."""
    from heedful.suites.declared import DeclaredSuite

    cpu_s = suite.episodes.generation_cpu_s if isinstance(suite, DeclaredSuite) else None
    if cpu_s is None:
        return "the progress bar shows how far it is"
    try:
        load = os.getloadavg()[0]
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no load average or affinity on this platform
        return f"about {cpu_s:.0f} s on an idle machine"
    busy = max(1.0, (load + 1) / max(1, cores))  # the share of a core this process may get
    return f"about {cpu_s:.0f} s on an idle machine, {cpu_s * busy:.0f} s at this machine's load ({load:.1f})"


class _GenerationBar:
    """A progress bar for a generation, created on the first update (`bar(n, total)`; `total` may be absent)."""

    def __init__(self, enabled: bool, suite: str) -> None:
        self.enabled, self.suite = enabled, suite
        self.bar: Any = None

    def __call__(self, n: int = 1, total: int | None = None) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            tqdm = importlib.import_module("tqdm").tqdm  # by name, as heedful.runner.run: with or without stubs
            self.bar = tqdm(total=total, unit="step", desc=f"generate {self.suite}", file=sys.stderr, leave=False)
        self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


INDEX_FILE = "index.json"
"""Beside a cached dataset: its episode ids and sampling units, so that a run loads only the episodes it uses."""


def entry_identity(suite: Suite, seed: int, config: dict[str, Any] | None) -> dict[str, Any]:
    """What a cache entry must be: the suite's dataset version, the seed, the config (as JSON values) and the
    fingerprint of the code that generates it."""
    normal = json.loads(json.dumps(dict(config or {}), sort_keys=True, default=str))
    return {"suite_version": suite.version, "seed": seed, "config": normal, "generator": generator_fingerprint(suite)}


def generator_sources(suite: Suite) -> list[Path]:
    """The source files whose code can change what `suite.generate` makes: the modules of the folders that hold
    the suite's classes (the suite's package, with everything it imports from there), its simulator package
    `heedful/sims/<name>/` and heedful's seeding. Broader than the generator alone on purpose: an unneeded
    regeneration costs seconds to minutes, a stale dataset costs a wrong result."""
    from heedful.suites.declared import DeclaredSuite

    folders: set[Path] = set()
    # a declared suite's class is the generic one: its generator and episode model say where its code lives
    owners: Sequence[Callable[..., object]] = (
        (suite.episodes.generate, suite.episodes.model) if isinstance(suite, DeclaredSuite) else type(suite).__mro__
    )
    for owner in owners:
        if owner is object or owner.__module__ == "heedful.suites.base":
            continue
        with contextlib.suppress(TypeError, OSError):  # a class without a source file (built in, frozen)
            folders.add(Path(inspect.getfile(owner)).resolve().parent)
    heedful_root = Path(__file__).resolve().parent
    folders.add(heedful_root / "sims" / str(getattr(suite, "name", "")))
    files = {heedful_root / "seeding.py"}
    for folder in folders:
        if folder.is_dir():
            files.update(folder.glob("*.py"))
    return sorted(files)


def generator_fingerprint(suite: Suite) -> str:
    """A short hash of `generator_sources(suite)`, names and bytes; with an unreadable source, of heedful's
    version (an installed release changes its files only with its version)."""
    digest = hashlib.sha256()
    try:
        for file in generator_sources(suite):
            digest.update(f"{file.parent.name}/{file.name}\0".encode())
            digest.update(file.read_bytes())
    except OSError:
        from heedful.version import installed_version

        return "version:" + installed_version()
    return digest.hexdigest()[:16]


def _check_summary(where: Path, identity: dict[str, Any]) -> None:
    """Raise DatasetError when the entry's summary names another seed or config than the one asked for."""
    try:
        summary = json.loads((where / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DatasetError(f"its {SUMMARY_FILE} cannot be read ({err})") from err
    if not isinstance(summary, dict):
        raise DatasetError(f"its {SUMMARY_FILE} is not a JSON object")
    for key in ("seed", "config"):
        found = summary.get(key, {} if key == "config" else None)
        if found != identity[key]:
            raise DatasetError(f"it holds {key} {found!r}, not the requested {identity[key]!r}")
    if summary.get("generator") != identity["generator"]:
        raise DatasetError(
            f"it was generated by other generator code (fingerprint {summary.get('generator')!r}, this code's is "
            f"{identity['generator']!r}: heedful was upgraded or its source edited without a new dataset version)"
        )


def _seal(index: dict[str, Any]) -> str:
    body = {k: v for k, v in index.items() if k != "seal"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _units_fingerprint(suite: Suite) -> str:
    # the index holds `sample_units`' result: a change to that method (not to the suite version) must rebuild it
    from heedful.suites.declared import DeclaredSuite

    codes: list[CodeType | None] = [type(suite).sample_units.__code__]
    if isinstance(suite, DeclaredSuite):  # the generic method: the declared sampling is the suite's own code
        codes.append(getattr(suite.rollout.sampling.units, "__code__", None))
    return hashlib.sha256(b"".join(marshal.dumps(code) for code in codes if code is not None)).hexdigest()[:16]


def write_index(suite: Suite, episodes: Sequence[Episode], where: Path, identity: dict[str, Any]) -> None:
    """Write `INDEX_FILE` for the dataset in `where`, sealed with a hash of its body (best effort: without it the
    dataset loads whole)."""
    index: dict[str, Any] = {
        "identity": identity,
        "content_hash": content_hash(episodes_of(BaseModel, episodes, str(where))),
        "units_of": _units_fingerprint(suite),
        "episode_ids": [episode.episode_id for episode in episodes],
        "units": json.loads(json.dumps(suite.sample_units(episodes))),
    }
    index["seal"] = _seal(index)
    staged = where / f".{INDEX_FILE}.{os.getpid()}"
    try:  # renamed into place: a reader meanwhile sees no index or a whole one
        staged.write_text(json.dumps(index, separators=(",", ":")), encoding="utf-8")
        os.replace(staged, where / INDEX_FILE)
    except OSError:
        with contextlib.suppress(OSError):
            staged.unlink(missing_ok=True)


def load_indexed(suite: Suite, where: Path, identity: dict[str, Any]) -> LazyEpisodes[Episode] | None:
    """The cached dataset in `where` as a `LazyEpisodes`, or None when it has no index that matches it (its seal,
    the requested identity, the summary's content hash, this suite's `sample_units`, the file's line count).

    Raises:
        DatasetError: the episodes file does not match the content hash its summary records (damaged), or the
            sealed index names another suite version, seed or config (another entry's files).
    """
    try:
        index = json.loads((where / INDEX_FILE).read_text(encoding="utf-8"))
        recorded = json.loads((where / SUMMARY_FILE).read_text(encoding="utf-8")).get("content_hash")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(index, dict) or index.get("seal") != _seal(index):
        return None  # edited (shuffled units, another id) or written before seals: rebuilt from the bytes
    if index.get("identity") != identity:
        raise DatasetError(f"its index was written for {index.get('identity')!r}, not {identity!r}")
    if index.get("content_hash") != recorded or recorded is None:
        raise DatasetError(
            f"its index was written for the episodes {str(index.get('content_hash'))[:19]}..., not these"
        )
    if index.get("units_of") != _units_fingerprint(suite):
        return None
    file = where / EPISODES_FILE
    data = file.read_bytes()
    verify_content_hash(file, data)  # raises on edited or truncated bytes
    lines = data.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    ids, units = index.get("episode_ids"), index.get("units")
    if not isinstance(ids, list) or not isinstance(units, list) or len(ids) != len(lines):
        return None

    def parse(line: str) -> Episode:
        episode: Episode = suite.parse_episode(line)
        # only a pydantic episode keeps its line (the dataset files are written from pydantic models)
        return parsed_with_line(episode, line) if isinstance(episode, BaseModel) else episode

    return LazyEpisodes(lines, parse, episode_ids=ids, units=units, content_hash=recorded)


def _present(where: Path) -> bool:
    try:
        return (where / SUMMARY_FILE).is_file()
    except OSError:  # a directory this user may not enter: a miss
        return False


def _store(
    suite: Suite, episodes: list[Episode], where: Path, identity: dict[str, Any], config: dict[str, Any] | None
) -> Path | None:
    """Write the dataset, as the entry `identity` (`entry_identity`) names, through a staging directory renamed into
    place (replacing a damaged entry); None when the cache cannot be written."""
    try:
        with staged_directory(where, force=True, flag="the dataset cache") as staging:
            meta = {"seed": identity["seed"], "config": dict(config or {}), "generator": identity["generator"]}
            suite.save_dataset(episodes, staging, meta)
            write_index(suite, episodes, staging, identity)
    except ConfigError as exc:
        print(f"heedful: cannot write the dataset cache {where.parent} ({exc}); not caching", file=sys.stderr)
        return None
    except OSError:  # another process renamed its copy in between: use that one
        return where if _present(where) else None
    return where


def source_episodes(suite: Suite, source: str, dataset: Path | None = None, *, verify: bool = True) -> list[Episode]:
    """The episodes a run's `dataset_source` names (a dataset directory, or `generated:seed=N` from the cache;
    a ` split=...` suffix is ignored), or those of `dataset` when given (the run's dataset has moved).

    Raises:
        DatasetError: the directory is missing or does not load.
    """
    if dataset is not None:
        return list(suite.load_dataset(Path(dataset), verify=verify))
    base = source.split(" split=")[0]
    if base.startswith(GENERATED):
        return list(cached_dataset(suite, int(base.removeprefix(GENERATED)))[0])
    return list(suite.load_dataset(Path(base), verify=verify))


def episodes_of(model: type[M], episodes: Iterable[object], source: str) -> list[M]:
    """`episodes` as the `model` a caller reads (a suite's dataset lines are all of its own model).

    Raises:
        DatasetError: one is not a `model`, naming `source` (the dataset it came from).
    """
    checked: list[M] = []
    for episode in episodes:
        if not isinstance(episode, model):
            raise DatasetError(f"{source}: a {type(episode).__name__} where {model.__name__} episodes were expected")
        checked.append(episode)
    return checked
