"""House and task statistics of a household dataset, beside the paper's own figures.

`world_statistics(episodes)` measures what decides whether ignoring the human costs anything: how many
rooms a house has and how large it is, how many rooms fit an ambiguous task's words, how long the oracle's
path is against the 600-step limit, how far the S_hum human walks and whether it is still walking when
the oracle delivers, and what the S_obj agent saw of the carry walk. `render_statistics` prints them with
the paper's figures beside them (see `PAPER_FIGURES`); `python -m heedful.suites.household.world_stats
[DATASET]` does both (the default benchmark without a dataset).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from heedful.sims.household.fields import disk, distance_field, sample
from heedful.sims.household.grid import grid_for
from heedful.sims.household.house import room_viewpoint
from heedful.sims.household.human import HUMAN_SPEED
from heedful.sims.household.model import HouseSpec
from heedful.sims.household.sim import MAX_STEPS, STEP_M
from heedful.suites.household.carry import carry_sighting, carry_walk, seen_span
from heedful.suites.household.executors import entry_fields
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.runtime import human_path
from heedful.suites.household.towards import heading_for, walking_towards

PAPER_FIGURES: dict[str, str] = {
    "rooms per house": "5-9 rooms in the prompt examples (Listings 1-5: Rooms 0-4, 0-5, 0-7, 0-8)",
    "rooms of one function": "3 toilets (rooms 5, 6, 7, Listing 2); 3 beds (rooms 1, 3, 4, Listing 4)",
    "fitting rooms, ambiguous": "'several', 'multiple bathrooms' (Sec. 3.1); 5 rooms 'walking towards' (Listing 2)",
    "room-to-room leg": "Listing 1: room 2 -> room 0 and its scan, t = 24 -> 125 (101 steps)",
    "human walk": "Listing 2: still walking at t = 102 after 100 steps followed (>= 8 m at 0.08 m/step)",
    "carry walk": "the human 'took the cup and moved it with me' (Sec. 3.1); relocated before the task (Sec. 3.2)",
    "agent / human speed": "0.17 m / 0.08 m per step (Sec. 3.2, 3.3): the agent is 2.1x faster",
    "step limit": "600 steps (Sec. 5)",
    "oracle SR": "95-100 (Table D.4)",
}
"""What the paper says about each measured quantity (its houses are HSSD scenes in Habitat 3.0)."""


def _summary(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    arr = np.asarray(values, dtype=np.float64)
    return {
        "n": int(arr.size),
        "mean": round(float(arr.mean()), 1),
        "p10": round(float(np.percentile(arr, 10)), 1),
        "p50": round(float(np.percentile(arr, 50)), 1),
        "p90": round(float(np.percentile(arr, 90)), 1),
        "min": round(float(arr.min()), 1),
        "max": round(float(arr.max()), 1),
    }


def room_legs(house: HouseSpec, cell: float) -> list[float]:
    """Geodesic distances (m) between the viewpoints (central free points) of every pair of rooms."""
    grid = grid_for(house, cell)
    points = [room_viewpoint(grid, house, room.index) for room in house.rooms]
    legs = []
    for i, (x, y) in enumerate(points[:-1]):
        field = distance_field(grid, disk(grid, x, y, grid.cell))
        others = np.array(points[i + 1 :])
        legs += [float(v) for v in sample(grid, field, others[:, 0], others[:, 1]) if np.isfinite(v)]
    return legs


def house_statistics(episodes: Sequence[HouseholdEpisode]) -> dict[str, Any]:
    """Rooms, repeated functions, footprints and room-to-room distances of the distinct houses."""
    houses = {ep.house_id: ep.house for ep in episodes}
    cells = {ep.house_id: ep.cell_m for ep in episodes}
    legs = [leg for house_id, house in houses.items() for leg in room_legs(house, cells[house_id])]
    rooms = [len(h.rooms) for h in houses.values()]
    repeats = []
    for house in houses.values():
        counts = Counter(room.function for room in house.rooms)
        repeats.append(max(counts.values()))
    return {
        "houses": len(houses),
        "rooms": _summary(rooms),
        "most_rooms_of_one_function": _summary(repeats),
        "width_m": _summary([h.width for h in houses.values()]),
        "depth_m": _summary([h.depth for h in houses.values()]),
        "area_m2": _summary([round(h.width * h.depth, 1) for h in houses.values()]),
        "room_to_room_m": _summary(legs),
        "room_to_room_forward_steps": _summary([leg / STEP_M for leg in legs]),
    }


def fitting_room_counts(episodes: Sequence[HouseholdEpisode], ambiguous: bool) -> dict[str, int]:
    """How many S_obj / S_hum tasks of that clarity have 1, 2, 3 or 4+ rooms fitting the words."""
    counts: Counter[str] = Counter()
    for ep in episodes:
        if ep.ambiguous is ambiguous:
            n = len(ep.candidate_rooms)
            counts[str(n) if n < 4 else "4+"] += 1
    return dict(sorted(counts.items()))


def human_statistics(episodes: Sequence[HouseholdEpisode]) -> dict[str, Any]:
    """The S_hum human's walk (meters and steps) and how often it still walks when the oracle delivers."""
    lengths, arrivals, still = [], [], 0
    s_hum = [ep for ep in episodes if ep.task_type == "s_hum"]
    for ep in s_hum:
        path = human_path(ep, grid_for(ep.house, ep.cell_m))
        lengths.append(path.length)
        arrivals.append(path.arrival_step)
        still += path.arrival_step > ep.oracle_steps
    return {
        "walk_m": _summary(lengths),
        "walk_steps": _summary(arrivals),
        "still_walking_when_oracle_delivers": round(still / len(s_hum), 3) if s_hum else None,
    }


def carry_statistics(episodes: Sequence[HouseholdEpisode]) -> dict[str, Any]:
    """S_obj's carry walk: its length, how many steps of it the agent saw, and how often the rooms it then
    seemed to walk towards hold the object's room (among the rooms the words fit, for ambiguous tasks), and the
    same for the rooms it headed for on the map (`towards.heading_for`)."""
    lengths, seen, hits, narrowed, headed, narrowed_heading = [], [], 0, [], 0, []
    s_obj = [ep for ep in episodes if ep.task_type == "s_obj"]
    for ep in s_obj:
        grid = grid_for(ep.house, ep.cell_m)
        walk = carry_walk(grid, ep.human)
        if walk is None:
            continue
        sighting = carry_sighting(grid, walk, ep.agent_start)
        towards = walking_towards(grid, sighting, len(ep.house.rooms))
        heading = heading_for(grid, sighting, entry_fields(grid, ep.house))
        target = next(r for r in ep.relocations if r.category == ep.target_category)
        room = ep.house.receptacle(target.to_receptacle).room
        lengths.append(walk.length)
        seen.append(seen_span(sighting))
        hits += room in towards
        headed += room in heading
        if ep.ambiguous:
            narrowed.append(len(set(ep.candidate_rooms) & set(towards)))
            narrowed_heading.append(len(set(ep.candidate_rooms) & set(heading)))
    return {
        "walk_m": _summary(lengths),
        "seen_steps": _summary(seen),
        "object_room_walked_towards": round(hits / len(lengths), 3) if lengths else None,
        "ambiguous_fitting_rooms_walked_towards": _summary(narrowed),
        "object_room_headed_for": round(headed / len(lengths), 3) if lengths else None,
        "ambiguous_fitting_rooms_headed_for": _summary(narrowed_heading),
    }


def oracle_statistics(episodes: Sequence[HouseholdEpisode]) -> dict[str, Any]:
    """L_oracle (steps) per task type and clarity, and how much of the step limit it uses."""
    groups: dict[str, list[float]] = {}
    for ep in episodes:
        key = ep.task_type if ep.ambiguous is None else f"{ep.task_type}/{'ambiguous' if ep.ambiguous else 'clear'}"
        groups.setdefault(key, []).append(ep.oracle_steps)
        groups.setdefault("all", []).append(ep.oracle_steps)
    mean = float(np.mean(groups["all"])) if groups else 0.0
    return {
        "steps": {key: _summary(values) for key, values in sorted(groups.items())},
        "limit_over_mean": round(MAX_STEPS / mean, 2) if mean else None,
    }


def world_statistics(episodes: Sequence[HouseholdEpisode]) -> dict[str, Any]:
    """Every statistic above in one JSON-ready dict."""
    return {
        "episodes": len(episodes),
        "house": house_statistics(episodes),
        "fitting_rooms": {
            "ambiguous": fitting_room_counts(episodes, True),
            "clear": fitting_room_counts(episodes, False),
        },
        "oracle": oracle_statistics(episodes),
        "human": human_statistics(episodes),
        "carry": carry_statistics(episodes),
        "speeds_m_per_step": {"agent": STEP_M, "human": HUMAN_SPEED},
    }


def _line(summary: dict[str, float], unit: str = "") -> str:
    if not summary.get("n"):
        return "-"
    return (
        f"mean {summary['mean']:g}{unit}, p10 {summary['p10']:g}, p50 {summary['p50']:g}, "
        f"p90 {summary['p90']:g}, range {summary['min']:g}-{summary['max']:g}"
    )


def render_statistics(stats: dict[str, Any]) -> str:
    """A plain-text table: each measured quantity, then what the paper says about it."""
    house, oracle, human = stats["house"], stats["oracle"], stats["human"]
    ambiguous = stats["fitting_rooms"]["ambiguous"]
    n_amb = sum(ambiguous.values())
    three_plus = sum(v for k, v in ambiguous.items() if k in ("3", "4+"))
    rows = [
        ("rooms per house", f"{house['houses']} houses; {_line(house['rooms'])}", "rooms per house"),
        ("rooms of one function", _line(house["most_rooms_of_one_function"]), "rooms of one function"),
        ("footprint", f"{_line(house['width_m'], ' m')} x {_line(house['depth_m'], ' m')}", None),
        ("area", _line(house["area_m2"], " m2"), None),
        ("room to room (geodesic)", _line(house["room_to_room_m"], " m"), None),
        ("room to room (forward steps)", _line(house["room_to_room_forward_steps"]), "room-to-room leg"),
        (
            "fitting rooms, ambiguous",
            f"{ambiguous} ({three_plus}/{n_amb} with >= 3)",
            "fitting rooms, ambiguous",
        ),
        ("fitting rooms, clear", str(stats["fitting_rooms"]["clear"]), None),
        ("oracle path (steps)", f"{_line(oracle['steps']['all'])}; limit / mean {oracle['limit_over_mean']}", None),
    ]
    rows += [(f"  oracle {key}", _line(value), None) for key, value in oracle["steps"].items() if key != "all"]
    rows += [
        ("human walk (S_hum)", f"{_line(human['walk_m'], ' m')}", "human walk"),
        ("human walk (steps)", _line(human["walk_steps"]), None),
        ("human still walking at L_oracle", f"{human['still_walking_when_oracle_delivers']}", None),
        ("agent / human speed", f"{STEP_M} / {HUMAN_SPEED} m per step", "agent / human speed"),
    ]
    carry = stats.get("carry", {})
    if carry.get("walk_m", {}).get("n"):
        rows += [
            ("carry walk (S_obj)", _line(carry["walk_m"], " m"), "carry walk"),
            ("  steps of it seen", _line(carry["seen_steps"]), None),
            ("  object's room walked towards", str(carry["object_room_walked_towards"]), None),
            ("  ambiguous: fitting rooms left", _line(carry["ambiguous_fitting_rooms_walked_towards"]), None),
            ("  object's room headed for", str(carry["object_room_headed_for"]), None),
            ("  ambiguous: fitting rooms headed for", _line(carry["ambiguous_fitting_rooms_headed_for"]), None),
        ]
    width = max(len(name) for name, _, _ in rows)
    lines = [f"household world statistics ({stats['episodes']} episodes)"]
    for name, value, paper in rows:
        lines.append(f"{name:<{width}}  {value}")
        if paper is not None:
            lines.append(f"{'':<{width}}  paper: {PAPER_FIGURES[paper]}")
    lines.append(f"{'step limit':<{width}}  {MAX_STEPS}; paper: {PAPER_FIGURES['step limit']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the statistics of a dataset directory (or of the default benchmark for --seed)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("dataset", nargs="?", type=Path, help="dataset directory (default: generate)")
    parser.add_argument("--seed", type=int, default=0, help="generation seed without a dataset")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    from heedful.suites.household.dataset import load_episodes
    from heedful.suites.household.suite import SUITE

    episodes = load_episodes(args.dataset) if args.dataset else SUITE.generate(args.seed)
    stats = world_statistics(episodes)
    if args.json:
        import json

        print(json.dumps(stats, indent=2))
    else:
        print(render_statistics(stats))


if __name__ == "__main__":
    main()
