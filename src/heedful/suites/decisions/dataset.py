"""Dataset files: `episodes.jsonl` (one episode per line) and `dataset.json` (counts and content hash).

The line format is documented by the shipped JSON Schema `episode.schema.json`. User datasets in that
schema load with `load_episodes`, which names the file, line and field of the first problem it finds.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from heedful.errors import DatasetError
from heedful.suites.decisions.model import DecisionEpisode

EPISODES_FILE = "episodes.jsonl"
SUMMARY_FILE = "dataset.json"
DATASET_FORMAT = "heedful-decisions-dataset/1"


def episodes_bytes(episodes: Sequence[DecisionEpisode]) -> bytes:
    return "".join(ep.model_dump_json() + "\n" for ep in episodes).encode("utf-8")


def content_hash(episodes: Sequence[DecisionEpisode]) -> str:
    return "sha256:" + hashlib.sha256(episodes_bytes(episodes)).hexdigest()


def summarize(episodes: Sequence[DecisionEpisode]) -> dict[str, Any]:
    """Counts per category, split, role, decision type and anchor kind, plus family and anchor totals."""

    def count(field: str) -> dict[str, int]:
        return dict(sorted(Counter(str(getattr(ep, field)) for ep in episodes).items()))

    families = {ep.family_id: ep for ep in episodes}
    return {
        "instances": len(episodes),
        "families": len(families),
        "atomic_families": sum(1 for ep in families.values() if ep.category != "multi"),
        "multi_families": sum(1 for ep in families.values() if ep.category == "multi"),
        "visual_families": sum(1 for ep in families.values() if ep.visual),
        "anchors": dict(sorted(Counter(ep.anchor_kind for ep in {e.anchor_id: e for e in episodes}.values()).items())),
        "by_category": count("category"),
        "by_subtype": dict(sorted(Counter(f"{ep.category}/{ep.subtype}" for ep in episodes).items())),
        "by_split": count("split"),
        "by_role": count("role"),
        "by_decision_type": count("decision_type"),
        "by_anchor_kind": count("anchor_kind"),
    }


def save(episodes: Sequence[DecisionEpisode], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Write both files into `out` and return the summary."""
    out.mkdir(parents=True, exist_ok=True)
    data = episodes_bytes(episodes)
    (out / EPISODES_FILE).write_bytes(data)
    summary = {
        "format": DATASET_FORMAT,
        **meta,
        "content_hash": "sha256:" + hashlib.sha256(data).hexdigest(),
        "counts": summarize(episodes),
    }
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return summary


_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict"}


def _first_error(exc: ValidationError) -> str:
    """The first problem as 'field X (got V): message', without pydantic's union-member tags in the path."""
    err = exc.errors()[0]
    path = [str(p) for p in err["loc"] if not (str(p) in _TYPE_TAGS or "[" in str(p))]
    where = ".".join(path) or "episode"
    got = repr(err.get("input"))[:60]
    more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    return f"field {where!r} (got {got}): {err['msg']}{more}"


def load_episodes(path: Path) -> list[DecisionEpisode]:
    """Load a dataset directory (or an episodes.jsonl file) and validate every line and its consistency."""
    file = path / EPISODES_FILE if path.is_dir() else path
    if not file.exists():
        raise DatasetError(f"no {EPISODES_FILE} in {path}; generate one with `heedful generate decisions --out DIR`")
    episodes: list[DecisionEpisode] = []
    with file.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{file}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            try:
                episodes.append(DecisionEpisode.model_validate(raw))
            except ValidationError as exc:
                raise DatasetError(
                    f"{file}:{lineno}: {_first_error(exc)}; see the schema with `heedful schema decisions`"
                ) from None
            problem = _inconsistency(episodes[-1])
            if problem:
                raise DatasetError(f"{file}:{lineno}: {problem}")
    _check_collection(episodes, file)
    return episodes


def _inconsistency(ep: DecisionEpisode) -> str | None:
    ids = [c.id for c in ep.candidates]
    if len(set(ids)) != len(ids):
        return f"episode {ep.episode_id}: duplicate candidate ids"
    gold = [ep.gold] if isinstance(ep.gold, str) else ep.gold
    if (ep.decision_type == "single") != isinstance(ep.gold, str):
        return f"episode {ep.episode_id}: gold {ep.gold!r} does not fit decision_type {ep.decision_type!r}"
    unknown = [g for g in gold if g not in ids]
    if unknown or not gold or len(set(gold)) != len(gold):
        return f"episode {ep.episode_id}: gold must name distinct candidate ids, got {ep.gold!r}"
    if ep.decision_type == "set" and list(gold) != sorted(gold):
        return f"episode {ep.episode_id}: a set gold must be sorted, got {ep.gold!r}"
    return None


def _check_collection(episodes: list[DecisionEpisode], file: Path) -> None:
    if not episodes:
        raise DatasetError(f"{file} holds no episodes")
    seen: set[str] = set()
    roles: dict[str, set[str]] = {}
    for ep in episodes:
        if ep.episode_id in seen:
            raise DatasetError(f"{file}: episode id {ep.episode_id!r} appears twice")
        seen.add(ep.episode_id)
        family_roles = roles.setdefault(ep.family_id, set())
        if ep.role in family_roles:
            raise DatasetError(f"{file}: family {ep.family_id!r} has two {ep.role!r} instances")
        family_roles.add(ep.role)


def schema_text() -> str:
    """The shipped JSON Schema of one episode line."""
    return resources.files("heedful.suites.decisions").joinpath("episode.schema.json").read_text(encoding="utf-8")


def generated_schema() -> dict[str, Any]:
    """The JSON Schema built from the model; the shipped file must equal it (a test checks)."""
    schema = DecisionEpisode.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "heedful-decisions-episode/1"
    return schema


def render_schema() -> str:
    return json.dumps(generated_schema(), indent=2, sort_keys=True) + "\n"
