"""The house simulator: agent pose, objects, the human, and the low-level actions.

Actions (each one time step): forward 0.17 m, turn left / right 10 deg, grab the nearest graspable object
within 2 m, put the held object on the nearest receptacle within 2 m, give the held object to the human
within 1 m when the human is visible. Grab and put need no wall between the agent and the object or the
receptacle, not the field of view. Listeners (semantic maps, recorders) run after every step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from heedful.errors import HeedfulError
from heedful.sims.household.grid import Grid
from heedful.sims.household.human import HumanPath
from heedful.sims.household.model import HouseSpec
from heedful.sims.household.vision import HEADINGS, RANGE_M, heading_yaw, in_view, line_of_sight

STEP_M = 0.17
TURN_DEG = 10
GRAB_RANGE = 2.0
PUT_RANGE = 2.0
GIVE_RANGE = 1.0
PLACE_INSET = 0.1
MAX_STEPS = 600

Listener = Callable[["HouseSim", str, object], None]
"""Called after each step with the action name and its result (put: (object id, receptacle id) or None)."""


class StepLimitError(HeedfulError):
    """The episode's step limit is used up; the current tool ends and so does the episode."""


@dataclass
class ObjectState:
    """A graspable object: on a receptacle, held by the agent, or held by the human."""

    id: str
    category: str
    x: float
    y: float
    receptacle: str | None
    holder: str | None = None


@dataclass
class Pose:
    x: float
    y: float
    heading: int

    @property
    def yaw(self) -> float:
        return heading_yaw(self.heading)


class HouseSim:
    """One task phase in one house. `step` counts every low-level action."""

    def __init__(
        self,
        house: HouseSpec,
        grid: Grid,
        objects: list[ObjectState],
        pose: Pose,
        human: HumanPath,
        max_steps: int = MAX_STEPS,
        range_m: float = RANGE_M,
    ) -> None:
        self.house = house
        self.grid = grid
        self.objects = {o.id: o for o in objects}
        self.pose = pose
        self.human = human
        self.max_steps = max_steps
        self.range_m = range_m
        self.step = 0
        self.held: str | None = None
        self.listeners: list[Listener] = []

    # --- queries

    @property
    def human_xy(self) -> tuple[float, float]:
        return self.human.position(self.step)

    def sees(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Which points the agent sees now."""
        p = self.pose
        return in_view(self.grid, p.x, p.y, p.heading, xs, ys, self.range_m)

    def human_visible(self) -> bool:
        hx, hy = self.human_xy
        return bool(self.sees(np.array([hx]), np.array([hy]))[0])

    def free_objects(self) -> list[ObjectState]:
        """Objects resting on receptacles (not held)."""
        return [o for o in self.objects.values() if o.holder is None]

    def reachable(self, xs: np.ndarray, ys: np.ndarray, radius: float) -> np.ndarray:
        """Points within `radius` of the agent with no wall in between."""
        p = self.pose
        near = np.hypot(xs - p.x, ys - p.y) <= radius
        ok = np.zeros(xs.shape, dtype=bool)
        if near.any():
            ok[near] = line_of_sight(self.grid, p.x, p.y, xs[near], ys[near])
        return ok

    # --- actions

    def _tick(self, action: str, result: object) -> None:
        self.step += 1
        for listener in self.listeners:
            listener(self, action, result)

    def _check_budget(self) -> None:
        if self.step >= self.max_steps:
            raise StepLimitError(f"the step limit of {self.max_steps} is reached")

    def forward(self) -> bool:
        """Move 0.17 m ahead unless that collides; returns whether the agent moved."""
        self._check_budget()
        p = self.pose
        nx, ny = p.x + STEP_M * math.cos(p.yaw), p.y + STEP_M * math.sin(p.yaw)
        mx, my = (p.x + nx) / 2, (p.y + ny) / 2
        moved = self.grid.can_stand(nx, ny) and self.grid.can_stand(mx, my)
        if moved:
            self.pose = Pose(nx, ny, p.heading)
        self._tick("forward", moved)
        return moved

    def turn(self, direction: int) -> None:
        """Turn 10 deg to the left (direction +1) or to the right (-1)."""
        self._check_budget()
        self.pose = Pose(self.pose.x, self.pose.y, (self.pose.heading + (1 if direction > 0 else -1)) % HEADINGS)
        self._tick("turn_left" if direction > 0 else "turn_right", None)

    def grab(self, category: str | None = None) -> str | None:
        """Grab the nearest graspable object (of `category`, when given) within 2 m; returns its id."""
        self._check_budget()
        grabbed = None
        if self.held is None:
            cands = [o for o in self.free_objects() if category is None or o.category == category]
            if cands:
                xs, ys = np.array([o.x for o in cands]), np.array([o.y for o in cands])
                ok = self.reachable(xs, ys, GRAB_RANGE)
                if ok.any():
                    dist = np.where(ok, np.hypot(xs - self.pose.x, ys - self.pose.y), np.inf)
                    obj = cands[int(np.argmin(dist))]
                    obj.holder, obj.receptacle, self.held = "agent", None, obj.id
                    grabbed = obj.id
        self._tick("grab", grabbed)
        return grabbed

    def put(self, category: str | None = None) -> str | None:
        """Put the held object on the nearest receptacle (of `category`) within 2 m; returns its id."""
        self._check_budget()
        placed = None
        event: tuple[str, str] | None = None
        if self.held is not None:
            p = self.pose
            recs = [r for r in self.house.receptacles if category is None or r.category == category]
            spots = [
                r.rect.nearest(p.x, p.y, inset=min(PLACE_INSET, r.rect.width / 2, r.rect.height / 2)) for r in recs
            ]
            if recs:
                xs, ys = np.array([s[0] for s in spots]), np.array([s[1] for s in spots])
                dist = np.array([r.rect.distance(p.x, p.y) for r in recs])
                ok = (dist <= PUT_RANGE) & self.reachable(xs, ys, PUT_RANGE + 1.0)
                if ok.any():
                    k = int(np.argmin(np.where(ok, dist, np.inf)))
                    obj = self.objects[self.held]
                    obj.x, obj.y = round(float(xs[k]), 4), round(float(ys[k]), 4)
                    obj.holder, obj.receptacle, self.held = None, recs[k].id, None
                    placed = recs[k].id
                    event = (obj.id, placed)
        self._tick("put", event)
        return placed

    def give(self) -> bool:
        """Hand the held object to the human if the human is visible and within 1 m."""
        self._check_budget()
        given = False
        if self.held is not None:
            hx, hy = self.human_xy
            if math.hypot(hx - self.pose.x, hy - self.pose.y) <= GIVE_RANGE and self.human_visible():
                obj = self.objects[self.held]
                obj.holder, obj.receptacle, self.held = "human", None, None
                given = True
        self._tick("give", given)
        return given

    def object_xy(self, oid: str) -> tuple[float, float]:
        """Where an object is now (it moves with whoever holds it)."""
        obj = self.objects[oid]
        if obj.holder == "agent":
            return (self.pose.x, self.pose.y)
        if obj.holder == "human":
            return self.human_xy
        return (obj.x, obj.y)
