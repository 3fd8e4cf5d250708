"""Dataset files: `episodes.jsonl` (one self-contained episode per line) and `dataset.json` (summary).

The summary holds the content hash, counts per split / type / clarity, the houses with their exploration
statistics, and how many candidate tasks the filters of Appendix 0.A.1 rejected, by reason.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.errors import DatasetError
from heedful.sims.household.vocab import OBJECT_CATEGORIES
from heedful.suites.episode_files import EPISODES_FILE, SUMMARY_FILE, read_episodes
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.validity import placement_problem

DATASET_FORMAT = "heedful-household-dataset/1"
SUITE_VERSION = "household/sif-v7"
"""The benchmark's version: v2 is the world calibrated to the paper's scale (larger houses, several rooms of
one function, long human walks); v3 lets the S_obj agent watch the human carry the object away (`carry.py`);
v4 phrases ambiguous tasks so that four or more rooms fit where the room allows (`tasks.AMBIGUOUS_PREFERRED_FITS`);
v5 draws the goal room uniformly among the fitting rooms once all the agent knows at the start is fixed, so that
geometry does not predict it (`sampling.uniform_goal`, issue 40); v6 hangs the rooms off a hub in branches
(`floorplan.HUB_LAYOUT`, issue 40), so that the walks to the rooms one phrase fits part early and a wrong room
costs a way back; v7 drops an ambiguous S_obj task when the words alone leave time to look in every fitting room
(`reach.py`, issue 40), and its distractors no longer depend on the goal room. Datasets and runs of other versions
are refused
rather than mixed with this one."""


def check_version(path: Path, version: str) -> None:
    """Refuse a dataset directory whose `dataset.json` names another benchmark version.

    Raises:
        DatasetError: naming both versions and how to regenerate.
    """
    summary = path / SUMMARY_FILE if path.is_dir() else path.parent / SUMMARY_FILE
    if not summary.is_file() or not (path.is_dir() or path.name == EPISODES_FILE):
        return  # an episodes file of your own (or a directory without a summary) carries no version
    try:
        stored = json.loads(summary.read_text(encoding="utf-8")).get("version")
    except (json.JSONDecodeError, AttributeError):
        raise DatasetError(f"{summary} is not a valid dataset summary (JSON object)") from None
    if stored is not None and stored != version:
        raise DatasetError(
            f"{summary.parent} holds {stored} episodes, but this heedful runs {version} (a regenerated world: "
            f"results would not be comparable); regenerate with `heedful generate household --out DIR`, "
            "or use the heedful release that made it"
        )


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
    problem = placement_problem(ep)
    return f"episode {ep.episode_id}: {problem}" if problem else None


def load_episodes(path: Path, *, verify: bool = True) -> list[HouseholdEpisode]:
    """Load a dataset directory (or an episodes.jsonl file), validating every line."""
    return read_episodes(path, HouseholdEpisode, suite="household", check=inconsistency, verify=verify)
