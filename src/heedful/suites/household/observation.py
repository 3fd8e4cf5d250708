"""What a planner sees at each decision: structured fields (the maps, the human, the history, the actions).

The language-model agents turn these fields into the paper's prompts (Appendix 0.B) with their template
files (`heedful.agents.household_text`). Rooms are named by number and wall colour, never by function:
the planner must infer functions from what the rooms hold. `privileged` is the live episode state: the
rollout fills it only for agents that declare `privileged = True` (the oracle); every other agent gets None.
`memory` is a per-episode scratch dict the rollout hands to the agent at every call (empty at the episode's
start, never shared between episodes): open-loop planners keep their plan there, language-model agents their
call count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from heedful.seeding import episode_token
from heedful.sims.household.fields import sample
from heedful.sims.household.semantic_map import MappedObject
from heedful.suites.household.executors import entry_fields
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.runtime import TaskEnv, ToolOutcome, premap, room_of
from heedful.suites.household.tools import available_actions
from heedful.suites.household.towards import heading_for, walking_towards


@dataclass(frozen=True)
class RoomView:
    """One room of the map: its number, wall colour, furniture and the objects on it."""

    index: int
    wall_colour: str
    receptacles: tuple[str, ...]
    objects: tuple[tuple[str, str | None], ...]
    human: bool = False

    def listing(self) -> str:
        parts: list[str] = []
        for rec in self.receptacles:
            parts.append(rec)
            parts += [f"{obj} on a {rec}" for obj, on in self.objects if on == rec]
        parts += [f"{obj} on some receptacle" for obj, on in self.objects if on is None or on not in self.receptacles]
        if self.human:
            parts.append("human")
        return f"Room {self.index} ({self.wall_colour} walls) has: {', '.join(parts) if parts else 'nothing seen'}"


@dataclass(frozen=True)
class HumanView:
    """The human as observed: the room where first and last seen, and where it seems to walk. `last_step` is
    negative when the agent has seen the human only before the task phase (S_obj's carry walk)."""

    first_room: int | None
    last_room: int | None
    last_step: int | None
    walking_towards: tuple[int, ...]
    heading_for: tuple[int, ...] = ()
    """Rooms the observed walk went straight towards on the map (`towards.heading_for`), sorted."""


@dataclass(frozen=True)
class HouseholdObservation:
    episode_id: str
    seed: int
    step: int
    steps_left: int
    command: str
    communication: tuple[str, ...]
    current_room: int
    holding: str | None
    premap_rooms: tuple[RoomView, ...]
    rooms: tuple[RoomView, ...]
    human: HumanView
    room_distances: tuple[float, ...]
    """Path length in meters from the agent to each room (the house is fully premapped)."""
    seen_now: tuple[tuple[str, int], ...]
    """(category, room) of the objects on the map that the agent saw during this task phase."""
    history: tuple[ToolOutcome, ...]
    available_actions: tuple[str, ...]
    privileged: Any = field(default=None, repr=False, compare=False)
    human_walks: bool = False
    """Whether the human started walking when it spoke (S_hum): the agent saw it leave."""
    human_carrying: str | None = None
    """The object the agent saw the human carry away just before the task phase (S_obj), by category; the
    sightings are in `human` with negative time steps (`carry.py`)."""
    memory: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def _room_views(
    env: TaskEnv, objects: Iterable[MappedObject], receptacles: Iterable[str], human_room: int | None
) -> tuple[RoomView, ...]:
    house = env.episode.house
    recs_by_room: dict[int, list[str]] = {}
    for rid in sorted(receptacles, key=lambda r: int(r[1:])):
        rec = house.receptacle(rid)
        if rec.category not in recs_by_room.setdefault(rec.room, []):
            recs_by_room[rec.room].append(rec.category)
    objs_by_room: dict[int, list[tuple[str, str | None]]] = {}
    for m in sorted(objects, key=lambda m: int(m.id[1:])):
        on = house.receptacle(m.receptacle).category if m.receptacle else None
        objs_by_room.setdefault(m.room, []).append((m.category, on))
    return tuple(
        RoomView(
            index=room.index,
            wall_colour=room.wall_colour,
            receptacles=tuple(recs_by_room.get(room.index, [])),
            objects=tuple(sorted(set(objs_by_room.get(room.index, [])), key=lambda p: (p[1] or "", p[0]))),
            human=human_room == room.index,
        )
        for room in house.rooms
    )


def human_view(env: TaskEnv) -> HumanView:
    track = env.map.human_track
    if not track:
        return HumanView(None, None, None, ())
    house = env.episode.house
    first, last = track[0], track[-1]
    towards = walking_towards(env.grid, track, len(house.rooms))
    # path distances to every room on the premapped floor plan (the agent's own map; cached per house)
    heading = heading_for(env.grid, track, entry_fields(env.grid, house))
    # a human seen in a doorway is in the nearest room, as the agent is (never "room -1")
    return HumanView(room_of(house, first[1], first[2]), room_of(house, last[1], last[2]), last[0], towards, heading)


def room_distances(env: TaskEnv) -> tuple[float, ...]:
    p = env.sim.pose
    x, y = np.array([p.x]), np.array([p.y])
    return tuple(
        round(float(sample(env.grid, field, x, y)[0]), 3) for field in entry_fields(env.grid, env.episode.house)
    )


def build_observation(
    env: TaskEnv,
    seed: int,
    *,
    privileged: bool = False,
    memory: dict[str, Any] | None = None,
    scene: HouseholdEpisode | None = None,
) -> HouseholdObservation:
    """The planner's view of the episode now; the live state only with `privileged=True`. `scene`: the episode
    whose situation this is when `env` runs with other words (`heedful.suites.household.arms`): what the human
    carries is the scene's."""
    episode = env.episode
    scene = episode if scene is None else scene
    premap_rooms = env.scratch.get("premap_rooms")
    if not isinstance(premap_rooms, tuple):
        premap_rooms = _room_views(
            env, premap(episode, env.map.detector).objects.values(), episode.premap.receptacles, None
        )
        env.scratch["premap_rooms"] = premap_rooms
    human = human_view(env)
    rooms = _room_views(env, env.map.objects.values(), env.map.receptacles, human.last_room)
    return HouseholdObservation(
        episode_id=episode_token(seed),  # opaque: the dataset's id names the family and role
        seed=seed,
        step=env.sim.step,
        steps_left=env.sim.max_steps - env.sim.step,
        command=episode.command,
        communication=episode.communication,
        current_room=env.current_room(),
        holding=env.holding,
        premap_rooms=premap_rooms,
        rooms=rooms,
        human=human,
        room_distances=room_distances(env),
        seen_now=tuple(sorted({(m.category, m.room) for m in env.map.objects.values() if m.step >= 0})),
        history=tuple(env.history),
        available_actions=tuple(available_actions(env)),
        privileged=env if privileged else None,
        human_walks=episode.task_type == "s_hum",
        human_carrying=scene.target_category if scene.human.carried_from is not None else None,
        memory={} if memory is None else memory,
    )
