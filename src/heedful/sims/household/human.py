"""The human: walks 0.08 m per step along a shortest path to a destination, deterministically.

The path is the geodesic descent path from the start to the destination, pulled taut inside the space the
planner uses, and the human's position at step t is the point at arc length 0.08 t along it (the
destination once it is reached). A human with no destination stands still.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heedful.errors import GenerationError
from heedful.sims.household.fields import cached_field, disk, shortest_polyline
from heedful.sims.household.grid import Grid

HUMAN_SPEED = 0.08
"""Meters per time step."""

GOAL_RADIUS = 0.15


@dataclass(frozen=True)
class HumanPath:
    """A polyline walked at constant speed from its first point to its last."""

    points: tuple[tuple[float, float], ...]
    speed: float = HUMAN_SPEED

    def __post_init__(self) -> None:
        if not self.points:
            raise GenerationError("a human path needs at least one point")

    @property
    def length(self) -> float:
        return sum(math.dist(a, b) for a, b in itertools.pairwise(self.points))

    @property
    def arrival_step(self) -> int:
        """First step at which the human stands at the destination."""
        return math.ceil(self.length / self.speed - 1e-9)

    @property
    def destination(self) -> tuple[float, float]:
        return self.points[-1]

    def position(self, step: int) -> tuple[float, float]:
        """Where the human is after `step` steps of the task phase."""
        remaining = max(step, 0) * self.speed
        for a, b in itertools.pairwise(self.points):
            seg = math.dist(a, b)
            if remaining <= seg:
                t = remaining / seg if seg > 0 else 0.0
                return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
            remaining -= seg
        return self.points[-1]

    def positions(self, steps: Sequence[int]) -> np.ndarray:
        return np.array([self.position(s) for s in steps], dtype=np.float64)


def standing(x: float, y: float) -> HumanPath:
    """A human who does not move."""
    return HumanPath(points=((x, y),))


def plan_walk(grid: Grid, start: tuple[float, float], goal: tuple[float, float]) -> HumanPath:
    """The human's walk from `start` to `goal` along a shortest path.

    Raises:
        GenerationError: The goal cannot be reached from the start.
    """
    key = ("point", round(goal[0], 3), round(goal[1], 3), GOAL_RADIUS)
    field = cached_field(grid, key, lambda: disk(grid, goal[0], goal[1], GOAL_RADIUS))
    polyline = shortest_polyline(grid, field, start[0], start[1])
    if not polyline:
        raise GenerationError(f"the human cannot walk from {start} to {goal}")
    polyline[-1] = goal
    return HumanPath(points=tuple((round(x, 4), round(y, 4)) for x, y in polyline))
