"""Symbolic tabletop vocabulary shared by suites: attributes, objects and the table frame.

Table frame (meters, seen from the robot): x grows to the robot's right, y grows away from the robot.
The same frame places objects when the tabletop simulator renders a decision state.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Color = Literal["red", "green", "blue", "yellow", "purple", "orange"]
Shape = Literal["cube", "block", "cylinder", "sphere", "bar", "bowl"]
Size = Literal["small", "large"]

COLORS: tuple[Color, ...] = ("red", "green", "blue", "yellow", "purple", "orange")
SHAPES: tuple[Shape, ...] = ("cube", "block", "cylinder", "sphere", "bar", "bowl")
SIZES: tuple[Size, ...] = ("small", "large")

# The reachable area of the table (meters). Objects keep MIN_SEPARATION between centers so that they
# neither overlap physically nor tie in a spatial ranking.
TABLE_X = (-0.30, 0.30)
TABLE_Y = (0.30, 0.70)
MIN_SEPARATION = 0.07

GRASPABLE: frozenset[str] = frozenset({"cube", "block", "cylinder", "sphere", "bar"})
FLAT_TOPPED: frozenset[str] = frozenset({"cube", "block", "cylinder"})
ROTATABLE: frozenset[str] = frozenset({"block", "bar"})

NOUNS: dict[str, tuple[str, str]] = {
    # shape -> (singular, plural)
    "cube": ("cube", "cubes"),
    "block": ("block", "blocks"),
    "cylinder": ("cylinder", "cylinders"),
    "sphere": ("ball", "balls"),
    "bar": ("bar", "bars"),
    "bowl": ("bowl", "bowls"),
}


class TableObject(BaseModel):
    """One object on the table. `name` is a stable id inside its state (not shown as a candidate id)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    color: Color
    shape: Shape
    size: Size
    x: float
    y: float
    yaw_deg: float = 0.0

    @property
    def graspable(self) -> bool:
        return self.shape in GRASPABLE

    def describe(self) -> str:
        """The full attribute description, e.g. 'small red cube'."""
        return f"{self.size} {self.color} {NOUNS[self.shape][0]}"


class TabletopState(BaseModel):
    """A physical decision state: the objects on the table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    objects: tuple[TableObject, ...]

    def by_name(self, name: str) -> TableObject:
        for obj in self.objects:
            if obj.name == name:
                return obj
        raise KeyError(name)
