"""Scene entropy H(T | S): how much of the task a policy cannot read off the initial scene.

Tasks are grouped by their task-independent scene spec (everything in the initial scene except the
language, the goal and the object of interest). With tasks uniform within a group,
H(T | S) = sum_g p_g log2 n_g, where n_g is the number of task labels in group g and p_g = n_g / N.
A benchmark whose every scene admits one task scores 0 bits: the scene alone tells the policy what to do.

`LIBERO_GROUPS` is LIBERO's grouping (from its BDDL task files): in LIBERO-Spatial and LIBERO-Object each
task has its own initial layout, the ten LIBERO-Goal tasks share one scene, and LIBERO-10 (Long) tasks
are named after their scene, two of them sharing LIVING_ROOM_SCENE2.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from heedful.errors import ConfigError


def scene_entropy(group_sizes: Sequence[int]) -> float:
    """H(T | S) in bits for groups of `group_sizes` task labels each (tasks uniform within a group).

    Raises:
        ConfigError: a group is empty or there is no task.
    """
    if not group_sizes or any(n < 1 for n in group_sizes):
        raise ConfigError(f"scene entropy needs non-empty groups, got sizes {list(group_sizes)}")
    total = sum(group_sizes)
    return float(sum((n / total) * math.log2(n) for n in group_sizes))


def scene_key(scene: Any) -> str:
    """A stable key of a scene spec (any JSON value): equal specs share it, whatever their key order."""
    text = json.dumps(scene, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def entropy_report(tasks: Iterable[tuple[str, Any]], names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """`{"bits", "tasks", "groups"}` for (task label, scene spec) pairs.

    Args:
        tasks: Task labels with their task-independent scene specs (duplicate labels count once).
        names: Optional readable names of groups by scene key.
    """
    groups: dict[str, list[str]] = {}
    for label, scene in tasks:
        members = groups.setdefault(scene_key(scene), [])
        if label not in members:
            members.append(label)
    if not groups:
        raise ConfigError("no tasks to compute a scene entropy of")
    sizes = [len(m) for m in groups.values()]
    return {
        "bits": scene_entropy(sizes),
        "tasks": sum(sizes),
        "groups": [
            {"scene": (names or {}).get(key, key), "key": key, "tasks": len(members), "labels": members}
            for key, members in groups.items()
        ],
    }


def _prefix(task: str) -> str:
    return task.split("_SCENE")[0] + "_SCENE" + task.split("_SCENE")[1].split("_")[0]


LIBERO_10 = (
    "KITCHEN_SCENE3_turn_on_the_stove_and_put_the_moka_pot_on_it",
    "KITCHEN_SCENE4_put_the_black_bowl_in_the_bottom_drawer_of_the_cabinet_and_close_it",
    "KITCHEN_SCENE6_put_the_yellow_and_white_mug_in_the_microwave_and_close_it",
    "KITCHEN_SCENE8_put_both_moka_pots_on_the_stove",
    "LIVING_ROOM_SCENE1_put_both_the_alphabet_soup_and_the_cream_cheese_box_in_the_basket",
    "LIVING_ROOM_SCENE2_put_both_the_alphabet_soup_and_the_tomato_sauce_in_the_basket",
    "LIVING_ROOM_SCENE2_put_both_the_cream_cheese_box_and_the_butter_in_the_basket",
    "LIVING_ROOM_SCENE5_put_the_white_mug_on_the_left_plate_and_put_the_yellow_and_white_mug_on_the_right_plate",
    "LIVING_ROOM_SCENE6_put_the_white_mug_on_the_plate_and_put_the_chocolate_pudding_to_the_right_of_the_plate",
    "STUDY_SCENE1_pick_up_the_book_and_place_it_in_the_back_compartment_of_the_caddy",
)
LIBERO_GOAL = (
    "open_the_middle_drawer_of_the_cabinet",
    "open_the_top_drawer_and_put_the_bowl_inside",
    "push_the_plate_to_the_front_of_the_stove",
    "put_the_bowl_on_the_plate",
    "put_the_bowl_on_the_stove",
    "put_the_bowl_on_top_of_the_cabinet",
    "put_the_cream_cheese_in_the_bowl",
    "put_the_wine_bottle_on_the_rack",
    "put_the_wine_bottle_on_top_of_the_cabinet",
    "turn_on_the_stove",
)
LIBERO_SPATIAL = tuple(
    f"pick_up_the_black_bowl_{where}_and_place_it_on_the_plate"
    for where in (
        "between_the_plate_and_the_ramekin",
        "from_table_center",
        "in_the_top_drawer_of_the_wooden_cabinet",
        "next_to_the_cookie_box",
        "next_to_the_plate",
        "next_to_the_ramekin",
        "on_the_cookie_box",
        "on_the_ramekin",
        "on_the_stove",
        "on_the_wooden_cabinet",
    )
)
LIBERO_OBJECT = tuple(
    f"pick_up_the_{item}_and_place_it_in_the_basket"
    for item in (
        "alphabet_soup",
        "bbq_sauce",
        "butter",
        "chocolate_pudding",
        "cream_cheese",
        "ketchup",
        "milk",
        "orange_juice",
        "salad_dressing",
        "tomato_sauce",
    )
)
# task -> its initial-scene group, per suite
LIBERO_GROUPS: dict[str, dict[str, str]] = {
    "libero_spatial": {t: t for t in LIBERO_SPATIAL},
    "libero_object": {t: t for t in LIBERO_OBJECT},
    "libero_goal": {t: "libero_goal_kitchen" for t in LIBERO_GOAL},
    "libero_10": {t: _prefix(t) for t in LIBERO_10},
}


def libero_entropies() -> dict[str, float]:
    """H(T | S) of each LIBERO suite from its grouping, and their equal-weight mean."""
    out = {suite: entropy_report(groups.items())["bits"] for suite, groups in LIBERO_GROUPS.items()}
    out["mean"] = sum(out.values()) / len(LIBERO_GROUPS)
    return out
