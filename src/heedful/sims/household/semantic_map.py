"""The agent's semantic map: what it has seen, refreshed on every observation and on grab / put.

- An object in view is mapped at its current position; a mapped object whose remembered position is in
  view but which is no longer there is removed (its entry was stale).
- Grab removes the grabbed object from the map; put maps it where it was put.
- Receptacles are static: once seen they stay mapped.
- The human's last position and its whole observed track (step, x, y) are kept.

Objects enter through the perception condition: read from the simulator (oracle perception, `detector`
None) or through a simulated noisy detector (`perception.Detector`) that misses, confuses and invents.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from heedful.sims.household.model import HouseSpec
from heedful.sims.household.perception import Detector
from heedful.sims.household.sim import HouseSim

RECEPTACLE_PROBE_INSET = 0.15


@dataclass(frozen=True)
class MappedObject:
    id: str
    category: str
    x: float
    y: float
    receptacle: str | None
    room: int
    step: int


@dataclass
class SemanticMap:
    """Objects, receptacles and the human as the agent believes them to be."""

    house: HouseSpec
    objects: dict[str, MappedObject] = field(default_factory=dict)
    receptacles: set[str] = field(default_factory=set)
    human_track: list[tuple[int, float, float]] = field(default_factory=list)
    detector: Detector | None = None
    """None: oracle perception; else the simulated noisy detector objects pass through."""
    _probes: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for rec in self.house.receptacles:
            r, k = rec.rect, RECEPTACLE_PROBE_INSET
            self._probes[rec.id] = np.array(
                [r.center, (r.x0 + k, r.y0 + k), (r.x1 - k, r.y0 + k), (r.x0 + k, r.y1 - k), (r.x1 - k, r.y1 - k)]
            )

    def attach(self, sim: HouseSim) -> None:
        """Update the map after every step of `sim`, and observe once now."""
        sim.listeners.append(self.on_step)
        self.observe(sim)

    def on_step(self, sim: HouseSim, action: str, result: object) -> None:
        if action == "grab" and isinstance(result, str):
            self.objects.pop(result, None)
        elif action == "put" and isinstance(result, tuple):
            put = sim.objects[result[0]]
            obj = put if self.detector is None else self.detector.perceive(put)
            if obj is not None:  # a missed object stays off the map
                room = self.house.room_at(obj.x, obj.y)
                self.objects[obj.id] = MappedObject(obj.id, obj.category, obj.x, obj.y, obj.receptacle, room, sim.step)
        self.observe(sim)

    def observe(self, sim: HouseSim) -> None:
        """Refresh everything in the agent's current view."""
        free = sim.free_objects() if self.detector is None else self.detector.detectable(sim.free_objects())
        stale = list(self.objects.values())
        unseen = [rid for rid in self._probes if rid not in self.receptacles]
        probes = [self._probes[rid] for rid in unseen]
        hx, hy = sim.human_xy
        xs = np.concatenate([[o.x for o in free], [m.x for m in stale], *[p[:, 0] for p in probes], [hx]]).astype(
            np.float64
        )
        ys = np.concatenate([[o.y for o in free], [m.y for m in stale], *[p[:, 1] for p in probes], [hy]]).astype(
            np.float64
        )
        seen = sim.sees(xs, ys)
        n_free, n_stale = len(free), len(stale)
        seen_ids = set()
        for obj, ok in zip(free, seen[:n_free], strict=True):
            if ok:
                seen_ids.add(obj.id)
                room = self.house.room_at(obj.x, obj.y)
                self.objects[obj.id] = MappedObject(obj.id, obj.category, obj.x, obj.y, obj.receptacle, room, sim.step)
        for entry, ok in zip(stale, seen[n_free : n_free + n_stale], strict=True):
            if ok and entry.id not in seen_ids:
                self.objects.pop(entry.id, None)
        offset = n_free + n_stale
        for k, rid in enumerate(unseen):
            if seen[offset + 5 * k : offset + 5 * k + 5].any():
                self.receptacles.add(rid)
        if seen[-1]:
            self.human_track.append((sim.step, hx, hy))

    @property
    def human_last(self) -> tuple[int, float, float] | None:
        return self.human_track[-1] if self.human_track else None

    def objects_in(self, room: int, category: str | None = None) -> list[MappedObject]:
        return [m for m in self.objects.values() if m.room == room and (category is None or m.category == category)]

    def receptacles_in(self, room: int, category: str | None = None) -> list[str]:
        return sorted(
            rid
            for rid in self.receptacles
            if (rec := self.house.receptacle(rid)).room == room and (category is None or rec.category == category)
        )
