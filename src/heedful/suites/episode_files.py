"""Dataset files shared by every suite: `episodes.jsonl` (one episode per line) and `dataset.json`.

A suite supplies its pydantic episode model, a summary of counts and a per-episode consistency check; this
module writes the files byte-identically for a seed and loads them line by line, naming the file, line and
field of the first problem.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from heedful.errors import DatasetError
from heedful.suites.lazy_episodes import LazyEpisodes

EPISODES_FILE = "episodes.jsonl"
SUMMARY_FILE = "dataset.json"

E = TypeVar("E", bound=BaseModel)
_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict"}


_LINES: dict[int, tuple[weakref.ref[BaseModel], str]] = {}
"""The JSON line of each live frozen episode, by id: a run hashes the dataset it was given again (to check its
spec), which cost a third of a cheap suite's harness time. An entry dies with its episode."""


_WRITTEN_BY_GENERATE: ContextVar[bool] = ContextVar("heedful_written_by_generate", default=False)


@contextmanager
def written_by_generate() -> Iterator[None]:
    """Within it, a dataset whose bytes match the content hash beside them is taken as `generate` wrote it:
    its episodes are validated (pydantic) but the suite's per-episode consistency check, which generation
    already ran (re-solving every decisions gold: half of a cached load), is skipped, and each line is kept
    as its episode's serialization. For heedful's own dataset cache only (its key names the suite version)."""
    token = _WRITTEN_BY_GENERATE.set(True)
    try:
        yield
    finally:
        _WRITTEN_BY_GENERATE.reset(token)


def _frozen(episode: BaseModel) -> bool:
    return bool(episode.model_config.get("frozen"))


def _remember_line(episode: BaseModel, line: str) -> None:
    """Keep `line` as `episode`'s serialization, if the episode is frozen (a mutable one may change)."""
    if not _frozen(episode):
        return
    key = id(episode)
    _LINES[key] = (weakref.ref(episode, lambda _, key=key: _LINES.pop(key, None)), line)  # type: ignore[misc]


def parsed_with_line(episode: E, line: str) -> E:
    """`episode`, remembering `line` (the text it was parsed from, equal to its serialization) as its line."""
    _remember_line(episode, line)
    return episode


def episode_line(episode: BaseModel) -> str:
    """`episode.model_dump_json()`, computed once per frozen episode (frozen models cannot change after
    construction; changing one of their lists or dicts in place is not supported, as for any dataset)."""
    key = id(episode)
    hit = _LINES.get(key)
    if hit is not None and hit[0]() is episode:
        return hit[1]
    line = episode.model_dump_json()
    _remember_line(episode, line)
    return line


def _encoded_lines(episodes: Sequence[BaseModel]) -> Iterator[bytes]:
    """The lines of `episodes.jsonl`, one per episode, each ending in a newline."""
    return ((episode_line(ep) + "\n").encode("utf-8") for ep in episodes)


def episodes_bytes(episodes: Sequence[BaseModel]) -> bytes:
    return b"".join(_encoded_lines(episodes))


def content_hash(episodes: Sequence[BaseModel]) -> str:
    """sha256 of `episodes_bytes(episodes)`, hashed line by line: a large dataset is never held as one string
    and its bytes (at ten times the decisions default, a run's peak memory was 245 MB higher that way)."""
    if isinstance(episodes, LazyEpisodes):
        return episodes.content_hash  # checked against its file when loaded
    digest = hashlib.sha256()
    for line in _encoded_lines(episodes):
        digest.update(line)
    return "sha256:" + digest.hexdigest()


def content_hash_without(episodes: Sequence[BaseModel], *run_fields: str) -> str:
    """`content_hash` of the dataset lines: `run_fields` (run-only fields, such as an `--instruction other` arm's
    substitute) are left out where set. A lazily loaded dataset is dataset lines already: nothing is parsed."""
    if isinstance(episodes, LazyEpisodes):
        return episodes.content_hash
    if any(getattr(ep, name, None) is not None for ep in episodes for name in run_fields):
        episodes = [ep.model_copy(update=dict.fromkeys(run_fields)) for ep in episodes]
    return content_hash(episodes)


def write_dataset(
    episodes: Sequence[BaseModel], out: Path, *, dataset_format: str, meta: dict[str, Any], counts: dict[str, Any]
) -> dict[str, Any]:
    """Write both files into `out` and return the summary (format, meta, content hash, counts)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = episodes_bytes(episodes)
    (out / EPISODES_FILE).write_bytes(data)
    summary = {
        "format": dataset_format,
        **meta,
        "content_hash": "sha256:" + hashlib.sha256(data).hexdigest(),
        "counts": counts,
    }
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def verify_content_hash(file: Path, data: bytes) -> bool:
    """Refuse episodes whose bytes differ from what the `dataset.json` beside them records (if it does); True
    when a recorded hash was there and matched."""
    summary = file.parent / SUMMARY_FILE
    if file.name != EPISODES_FILE or not summary.is_file():
        return False  # an episodes file of your own carries no recorded hash
    try:
        recorded = json.loads(summary.read_text(encoding="utf-8")).get("content_hash")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        raise DatasetError(f"{summary} is not a valid dataset summary (a JSON object)") from None
    if recorded is None:
        return False
    found = "sha256:" + hashlib.sha256(data).hexdigest()
    if found != recorded:
        raise DatasetError(
            f"{file} does not match the content hash its {SUMMARY_FILE} records ({str(recorded)[:19]}..., found "
            f"{found[:19]}...): it was edited or damaged after `heedful generate`; generate it again, or pass "
            "--no-verify to load a deliberate edit (every episode is still validated)"
        )
    return True


def first_error(exc: ValidationError) -> str:
    """The first problem as 'field X (got V): message', without pydantic's union-member tags in the path."""
    err = exc.errors()[0]
    path = [str(p) for p in err["loc"] if not (str(p) in _TYPE_TAGS or "[" in str(p))]
    where = ".".join(path) or "episode"
    got = repr(err.get("input"))[:60]
    more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    return f"field {where!r} (got {got}): {err['msg']}{more}"


def read_episodes(
    path: Path,
    model: type[E],
    *,
    suite: str,
    check: Callable[[E], str | None] = lambda _: None,
    verify: bool = True,
) -> list[E]:
    """Load a dataset directory (or an episodes.jsonl file), validating every line and its consistency.

    With `verify`, a directory's `episodes.jsonl` must hash to the `content_hash` its `dataset.json` records
    (what `heedful generate` wrote): an edited or damaged file is refused before anything is parsed.

    Raises:
        DatasetError: naming the file and line of the first malformed, inconsistent or repeated episode (bad
            bytes included), or the hash mismatch.
    """
    path = Path(path)
    file = path / EPISODES_FILE if path.is_dir() else path
    if not file.is_file():
        raise DatasetError(f"no {EPISODES_FILE} in {path}; generate one with `heedful generate {suite} --out DIR`")
    try:
        data = file.read_bytes()
    except OSError as err:
        raise DatasetError(f"cannot read {file}: {err.strerror}") from None
    generated = verify and verify_content_hash(file, data) and _WRITTEN_BY_GENERATE.get()
    episodes: list[E] = []
    seen: set[str] = set()
    for lineno, raw_line in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw_line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetError(
                f"{file}:{lineno}: not UTF-8 text (byte 0x{raw_line[exc.start]:02x} at column {exc.start + 1})"
            ) from None
        if not line.strip():
            continue
        episode = _parse_line(file, lineno, line, model, suite)
        if generated and _frozen(episode):  # generation checked it; a mutable episode is checked again
            _remember_line(episode, line)
        else:
            problem = check(episode)
            if problem:
                raise DatasetError(f"{file}:{lineno}: {problem}")
        episode_id = str(getattr(episode, "episode_id", lineno))
        if episode_id in seen:
            raise DatasetError(f"{file}:{lineno}: episode id {episode_id!r} appears twice")
        seen.add(episode_id)
        episodes.append(episode)
    if not episodes:
        raise DatasetError(f"{file} holds no episodes")
    return episodes


def _parse_line(file: Path, lineno: int, line: str, model: type[E], suite: str) -> E:
    try:
        return model.model_validate_json(line)  # the fast path; a bad line is parsed again below to name its problem
    except ValidationError:
        pass
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{file}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        hint = f"; see the schema with `heedful schema {suite}`"
        raise DatasetError(f"{file}:{lineno}: {first_error(exc)}{hint}") from None
