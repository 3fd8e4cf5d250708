"""Episodes of the household suite (schema-versioned pydantic models).

A task is <H, I, C, P_e, P_t, P_g>: the house H (with the exploration-phase arrangement P_e), the
instruction I, the human's communication C, the task-phase changes P_t (relocated objects, agent and
human start) and the goal P_g. Each episode is self-contained (it embeds its house) so that it can
cross a process boundary as JSON.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from heedful.sims.household.model import HouseSpec

EPISODE_SCHEMA_VERSION: Literal["heedful-household-episode/1"] = "heedful-household-episode/1"

TaskType = Literal["pnp", "s_obj", "s_hum"]
Split = Literal["val_seen", "val_unseen", "test_seen", "test_unseen"]
GoalKind = Literal["receptacle", "room", "human"]

TASK_TYPES: tuple[TaskType, ...] = ("pnp", "s_obj", "s_hum")
SPLITS: tuple[Split, ...] = ("val_seen", "val_unseen", "test_seen", "test_unseen")
TYPE_LABELS: dict[str, str] = {"pnp": "PnP", "s_obj": "S_obj", "s_hum": "S_hum"}

_frozen = ConfigDict(frozen=True, extra="forbid")


class PlaceSpec(BaseModel):
    """A place phrase (see `language.Place`), serialized."""

    model_config = _frozen

    kind: Literal["next_to", "next_to_three", "in_room", "in_room_with", "in_room_colour", "doing"]
    function: str | None = None
    receptacles: tuple[str, ...] = ()
    colour: str | None = None
    activity: str | None = None


class Relocation(BaseModel):
    """An object the human moved after the exploration phase, and what the human said about it."""

    model_config = _frozen

    object_id: str
    category: str
    from_receptacle: str
    to_receptacle: str
    x: float
    y: float
    place: PlaceSpec
    statement: str
    candidate_rooms: tuple[int, ...]


class Goal(BaseModel):
    """P_g: a receptacle category, a room function, or the human."""

    model_config = _frozen

    kind: GoalKind
    receptacle: str | None = None
    function: str | None = None


class HumanSpec(BaseModel):
    """The human in the task phase: standing at `start`, or walking to `destination` (S_hum). An S_obj human
    carried the object from `carried_from` to `start` just before the task phase, in the agent's view at first
    (`carry.py`)."""

    model_config = _frozen

    start: tuple[float, float]
    carried_from: tuple[float, float] | None = None
    destination: tuple[float, float] | None = None
    destination_room: int | None = None
    place: PlaceSpec | None = None
    statement: str | None = None


class Premap(BaseModel):
    """What the exploration phase mapped: the seen receptacles and objects (at their P_e positions)."""

    model_config = _frozen

    start: tuple[float, float, int]
    objects: tuple[str, ...]
    receptacles: tuple[str, ...]
    steps_needed: int
    budget: int
    coverage: float


class HouseholdEpisode(BaseModel):
    """One task of the Situated Instruction Following protocol."""

    model_config = _frozen

    schema_version: Literal["heedful-household-episode/1"] = EPISODE_SCHEMA_VERSION
    episode_id: str
    split: Split
    house_id: str
    task_type: TaskType
    ambiguous: bool | None
    instruction: str
    communication: tuple[str, ...]
    target_category: str
    goal: Goal
    candidate_rooms: tuple[int, ...]
    relocations: tuple[Relocation, ...]
    agent_start: tuple[float, float, int]
    human: HumanSpec
    premap: Premap
    cell_m: float
    oracle_steps: int
    oracle_actions: tuple[str, ...]
    house: HouseSpec

    @property
    def seen(self) -> bool:
        return self.split.endswith("_seen")

    @property
    def command(self) -> str:
        """The instruction as the human says it (S_hum adds where the human will be)."""
        if self.task_type == "s_hum" and self.human.statement:
            return f"{self.instruction} {self.human.statement}"
        return self.instruction

    def keys(self) -> dict[str, str]:
        """Grouping fields copied into every record."""
        return {
            "house_id": self.house_id,
            "split": self.split,
            "phase": self.split.split("_")[0],
            "houses": "seen" if self.seen else "unseen",
            "task_type": self.task_type,
            "ambiguous": "n/a" if self.ambiguous is None else str(self.ambiguous).lower(),
            "goal_kind": self.goal.kind,
        }
