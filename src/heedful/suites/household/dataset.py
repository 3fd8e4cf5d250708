"""Dataset files: `episodes.jsonl` (one self-contained episode per line) and `dataset.json` (summary).

The summary holds the content hash, counts per split / type / clarity, the houses with their exploration
statistics, and how many candidate tasks the filters of Appendix 0.A.1 rejected, by reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.sims.household.vocab import OBJECT_CATEGORIES
from heedful.suites.episode_files import read_episodes, write_dataset
from heedful.suites.household.model import HouseholdEpisode

DATASET_FORMAT = "heedful-household-dataset/1"


def summarize(episodes: Sequence[HouseholdEpisode]) -> dict[str, Any]:
    """Counts per split, type, split x type, clarity and house."""

    def count(values: Sequence[str]) -> dict[str, int]:
        return dict(sorted(Counter(values).items()))

    return {
        "instances": len(episodes),
        "houses": len({ep.house_id for ep in episodes}),
        "by_split": count([ep.split for ep in episodes]),
        "by_task_type": count([ep.task_type for ep in episodes]),
        "by_split_type": count([f"{ep.split}/{ep.task_type}" for ep in episodes]),
        "by_type_clarity": count([f"{ep.task_type}/{ep.keys()['ambiguous']}" for ep in episodes]),
        "by_house": count([ep.house_id for ep in episodes]),
        "by_goal_kind": count([ep.goal.kind for ep in episodes]),
    }


def save(episodes: Sequence[HouseholdEpisode], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Write both files into `out` and return the summary."""
    return write_dataset(episodes, out, dataset_format=DATASET_FORMAT, meta=meta, counts=summarize(episodes))


def inconsistency(ep: HouseholdEpisode) -> str | None:
    """The first way the episode contradicts itself, or None."""
    rooms = {room.index for room in ep.house.rooms}
    if ep.house.house_id != ep.house_id:
        return f"episode {ep.episode_id}: house_id {ep.house_id!r} but the embedded house is {ep.house.house_id!r}"
    if ep.target_category not in OBJECT_CATEGORIES:
        return f"episode {ep.episode_id}: unknown target category {ep.target_category!r}"
    if not set(ep.candidate_rooms) <= rooms:
        return f"episode {ep.episode_id}: candidate rooms {ep.candidate_rooms} name rooms the house lacks"
    if (ep.task_type == "pnp") != (ep.ambiguous is None):
        return f"episode {ep.episode_id}: ambiguous must be null exactly for pnp tasks"
    if (ep.goal.kind == "human") != (ep.task_type == "s_hum"):
        return f"episode {ep.episode_id}: a human goal belongs to s_hum tasks only"
    if ep.oracle_steps < 0 or ep.oracle_steps > 600:
        return f"episode {ep.episode_id}: oracle_steps {ep.oracle_steps} outside 0-600"
    ids = {o.id for o in ep.house.objects}
    if any(r.object_id not in ids for r in ep.relocations):
        return f"episode {ep.episode_id}: a relocation moves an object the house lacks"
    return None


def load_episodes(path: Path) -> list[HouseholdEpisode]:
    """Load a dataset directory (or an episodes.jsonl file), validating every line."""
    return read_episodes(path, HouseholdEpisode, suite="household", check=inconsistency)
