"""Data model of a house: rooms, doors, receptacles and graspable objects, all in meters.

Geometry lives in continuous coordinates (x to the east, y to the north) so one house can be rasterized
at any grid resolution. The house footprint spans [margin, margin + width] x [margin, margin + depth].
"""

from __future__ import annotations

import hashlib
import math
from typing import Literal

from pydantic import BaseModel, ConfigDict

HOUSE_SCHEMA_VERSION: Literal["heedful-house/1"] = "heedful-house/1"

_frozen = ConfigDict(frozen=True, extra="forbid")


class Rect(BaseModel):
    """An axis-aligned rectangle [x0, x1] x [y0, y1]."""

    model_config = _frozen

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def contains(self, x: float, y: float, inset: float = 0.0) -> bool:
        """Whether (x, y) lies inside the rectangle shrunk by `inset` on every side."""
        return self.x0 + inset <= x <= self.x1 - inset and self.y0 + inset <= y <= self.y1 - inset

    def distance(self, x: float, y: float) -> float:
        """Euclidean distance from (x, y) to the rectangle (0 inside)."""
        dx = max(self.x0 - x, 0.0, x - self.x1)
        dy = max(self.y0 - y, 0.0, y - self.y1)
        return math.hypot(dx, dy)

    def nearest(self, x: float, y: float, inset: float = 0.0) -> tuple[float, float]:
        """The point of the rectangle shrunk by `inset` nearest to (x, y)."""
        cx = min(max(x, self.x0 + inset), self.x1 - inset)
        cy = min(max(y, self.y0 + inset), self.y1 - inset)
        return (cx, cy)

    def overlaps(self, other: Rect, gap: float = 0.0) -> bool:
        """Whether the two rectangles come closer than `gap`."""
        return not (
            self.x1 + gap <= other.x0
            or other.x1 + gap <= self.x0
            or self.y1 + gap <= other.y0
            or other.y1 + gap <= self.y0
        )


class RoomSpec(BaseModel):
    """One room: its rectangle (wall centre lines), function and grounding detail."""

    model_config = _frozen

    index: int
    rect: Rect
    function: str
    wall_colour: str


class DoorSpec(BaseModel):
    """A gap in the wall between two rooms; `rect` covers the gap through the wall's thickness."""

    model_config = _frozen

    rooms: tuple[int, int]
    rect: Rect


class ReceptacleSpec(BaseModel):
    """A piece of furniture objects can be put on. It blocks motion, not sight."""

    model_config = _frozen

    id: str
    category: str
    room: int
    rect: Rect


class ObjectSpec(BaseModel):
    """A graspable object resting on a receptacle at (x, y)."""

    model_config = _frozen

    id: str
    category: str
    receptacle: str
    x: float
    y: float


class HouseSpec(BaseModel):
    """A whole house. `objects` is the arrangement of the exploration phase (P_e)."""

    model_config = _frozen

    schema_version: Literal["heedful-house/1"] = HOUSE_SCHEMA_VERSION
    house_id: str
    seed: int
    margin: float
    width: float
    depth: float
    wall_thickness: float
    door_width: float
    rooms: tuple[RoomSpec, ...]
    doors: tuple[DoorSpec, ...]
    receptacles: tuple[ReceptacleSpec, ...]
    objects: tuple[ObjectSpec, ...]

    @property
    def extent(self) -> tuple[float, float]:
        """Size of the area to rasterize (footprint plus margin on every side)."""
        return (self.width + 2 * self.margin, self.depth + 2 * self.margin)

    def digest(self) -> str:
        """A content hash, used to cache rasterized grids and distance fields."""
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()[:16]

    def receptacle(self, rid: str) -> ReceptacleSpec:
        for rec in self.receptacles:
            if rec.id == rid:
                return rec
        raise KeyError(rid)

    def room_at(self, x: float, y: float) -> int:
        """Index of the room whose rectangle holds (x, y), or -1 (walls, doorways, outside)."""
        half = self.wall_thickness / 2
        for room in self.rooms:
            if room.rect.contains(x, y, inset=half):
                return room.index
        return -1

    def rooms_of(self, function: str) -> list[int]:
        return [room.index for room in self.rooms if room.function == function]

    def receptacles_in(self, room: int) -> list[ReceptacleSpec]:
        return [rec for rec in self.receptacles if rec.room == room]
