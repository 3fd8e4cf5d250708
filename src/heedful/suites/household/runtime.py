"""The live state of one episode's task phase: simulator, semantic map, human, history."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from heedful.sims.household.grid import Grid, grid_for
from heedful.sims.household.human import HumanPath, plan_walk, standing
from heedful.sims.household.model import HouseSpec
from heedful.sims.household.perception import Detector
from heedful.sims.household.semantic_map import MappedObject, SemanticMap
from heedful.sims.household.sim import MAX_STEPS, HouseSim, ObjectState, Pose
from heedful.sims.household.vision import RANGE_M
from heedful.suites.household.carry import carry_sighting, carry_walk
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.payload import ToolEntry

ToolOutcome = ToolEntry
"""One executed tool call: when it started, how many low-level steps it took, how it ended (with a failure
code), and the room the agent was in afterwards. It is the record's stored form as it is (`ToolEntry`)."""


def room_of(house: HouseSpec, x: float, y: float) -> int:
    """The room a point lies in; the nearest room for a point in a doorway (between rooms)."""
    room = house.room_at(x, y)
    if room >= 0:
        return room
    return min(house.rooms, key=lambda r: (r.rect.distance(x, y), r.index)).index


def task_objects(episode: HouseholdEpisode) -> list[ObjectState]:
    """The objects at the start of the task phase (P_e with the relocations applied)."""
    moved = {r.object_id: r for r in episode.relocations}
    objects = []
    for o in episode.house.objects:
        r = moved.get(o.id)
        if r is None:
            objects.append(ObjectState(o.id, o.category, o.x, o.y, o.receptacle))
        else:
            objects.append(ObjectState(o.id, o.category, r.x, r.y, r.to_receptacle))
    return objects


def human_path(episode: HouseholdEpisode, grid: Grid) -> HumanPath:
    spec = episode.human
    if spec.destination is None:
        return standing(*spec.start)
    return plan_walk(grid, spec.start, spec.destination)


def premap(episode: HouseholdEpisode, detector: Detector | None = None) -> SemanticMap:
    """The agent's map at the start of the task phase: what exploration saw, at P_e positions (through the
    simulated noisy `detector` when given: its misses, confusions and the phantoms on premapped receptacles)."""
    house = episode.house
    semantic = SemanticMap(house, detector=detector)
    by_id = {o.id: o for o in house.objects}
    premapped = [by_id[oid] for oid in episode.premap.objects]
    seen = [ObjectState(o.id, o.category, o.x, o.y, o.receptacle) for o in premapped]
    if detector is not None:
        seen = detector.detectable(seen, episode.premap.receptacles)
    for o in seen:
        semantic.objects[o.id] = MappedObject(o.id, o.category, o.x, o.y, o.receptacle, house.room_at(o.x, o.y), -1)
    semantic.receptacles.update(episode.premap.receptacles)
    return semantic


@dataclass
class TaskEnv:
    """Everything a tool or an agent may act on during one episode."""

    episode: HouseholdEpisode
    grid: Grid
    sim: HouseSim
    map: SemanticMap
    followed_steps: int = 0
    history: list[ToolOutcome] = field(default_factory=list)
    done: bool = False
    scratch: dict[str, Any] = field(default_factory=dict)
    """Per-episode memo for privileged helpers (the oracle's plan)."""

    @classmethod
    def start(
        cls,
        episode: HouseholdEpisode,
        cell: float | None = None,
        max_steps: int = MAX_STEPS,
        range_m: float = RANGE_M,
        detector: Detector | None = None,
    ) -> TaskEnv:
        """The task phase at its start; `detector` None is oracle perception."""
        grid = grid_for(episode.house, cell or episode.cell_m)
        x, y, heading = episode.agent_start
        sim = HouseSim(
            episode.house,
            grid,
            task_objects(episode),
            Pose(x, y, heading),
            human_path(episode, grid),
            max_steps,
            range_m,
        )
        semantic = premap(episode, detector)
        walk = carry_walk(grid, episode.human)
        if walk is not None:  # S_obj: what the agent saw of the human carrying the object away
            semantic.human_track.extend(carry_sighting(grid, walk, (x, y, heading), range_m))
        semantic.attach(sim)
        return cls(episode=episode, grid=grid, sim=sim, map=semantic)

    def current_room(self) -> int:
        """The room the agent stands in (the nearest room when it stands in a doorway)."""
        p = self.sim.pose
        return room_of(self.episode.house, p.x, p.y)

    @property
    def holding(self) -> str | None:
        held = self.sim.held
        return None if held is None else self.sim.objects[held].category
