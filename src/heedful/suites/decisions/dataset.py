"""Dataset files: `episodes.jsonl` (one episode per line) and `dataset.json` (counts and content hash).

The line format is documented by the shipped JSON Schema `episode.schema.json`. User datasets in that
schema load with the suite's `load_dataset`, which names the file, line and field of the first problem it finds
(`inconsistency` per line, `check_roles` over the whole dataset).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from heedful.errors import DatasetError
from heedful.suites.decisions.images import image_problem
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.solver import solve

DATASET_FORMAT = "heedful-decisions-dataset/1"


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
        "images": len({ep.image for ep in episodes if ep.image is not None}),
        "anchors": dict(sorted(Counter(ep.anchor_kind for ep in {e.anchor_id: e for e in episodes}.values()).items())),
        "by_category": count("category"),
        "by_subtype": dict(sorted(Counter(f"{ep.category}/{ep.subtype}" for ep in episodes).items())),
        "by_split": count("split"),
        "by_role": count("role"),
        "by_decision_type": count("decision_type"),
        "by_anchor_kind": count("anchor_kind"),
    }


def check_roles(episodes: Sequence[DecisionEpisode], path: Path) -> None:
    """Raise DatasetError when two lines of one family have the same role (no single line shows it)."""
    roles: dict[str, set[str]] = {}
    for ep in episodes:
        family_roles = roles.setdefault(ep.family_id, set())
        if ep.role in family_roles:
            raise DatasetError(f"{path}: family {ep.family_id!r} has two {ep.role!r} instances")
        family_roles.add(ep.role)


def inconsistency(ep: DecisionEpisode) -> str | None:
    """Why one line contradicts itself (a gold its constraint set does not give), or None."""
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
    if ep.task is not None:  # the gold must be what its constraint set solves to, exactly and uniquely
        if ep.task.decision_type != ep.decision_type:
            return f"episode {ep.episode_id}: task.decision_type {ep.task.decision_type!r} is not {ep.decision_type!r}"
        solutions = solve(ep.candidates, ep.task)
        if len(solutions) != 1:
            return f"episode {ep.episode_id}: its constraint set has {len(solutions)} solutions, not exactly one"
        if solutions[0] != ep.gold:
            return f"episode {ep.episode_id}: gold {ep.gold!r} but its constraint set solves to {solutions[0]!r}"
    return image_problem(ep)


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
