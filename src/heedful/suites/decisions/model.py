"""Data model of the decisions suite: candidates, constraints, tasks and episodes (schema-versioned)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from heedful.world.objects import TabletopState

EPISODE_SCHEMA_VERSION: Literal["heedful-decisions-episode/1"] = "heedful-decisions-episode/1"

DecisionType = Literal["single", "set", "sequence"]
Role = Literal["base", "preserve", "change", "change_preserve"]
Category = Literal["inhibition", "set", "cardinality", "temporal", "multi"]
AnchorKind = Literal["object", "action"]
Split = Literal["train", "val", "test"]
RankKey = Literal["x", "y"]
PreferKey = Literal["x", "y", "distance", "size"]

IMAGE_FIELDS = ("image", "image_sha256")

ROLES: tuple[Role, ...] = ("base", "preserve", "change", "change_preserve")
ATOMIC_CATEGORIES: tuple[Category, ...] = ("inhibition", "set", "cardinality", "temporal")

_frozen = ConfigDict(frozen=True, extra="forbid")


class Candidate(BaseModel):
    """One element of the fixed candidate set A(s): an object, or an executable action over objects.

    `attrs` holds the fields constraints may test (color, shape, size of the object acted on, and for
    actions the verb); `x`, `y` place the object acted on, for spatial ranking.
    """

    model_config = _frozen

    id: str
    kind: AnchorKind
    text: str
    attrs: dict[str, str]
    x: float
    y: float
    object: str = Field(description="Name of the object selected or acted on.")
    target: str | None = Field(default=None, description="Second object (bowl or stack base), if any.")
    direction: str | None = None
    angle_deg: int | None = None


class Predicate(BaseModel):
    """Matches candidates whose `field` (an attrs key, or "id") takes one of `values`."""

    model_config = _frozen

    field: str
    values: tuple[str, ...]

    def matches(self, candidate: Candidate) -> bool:
        value = candidate.id if self.field == "id" else candidate.attrs.get(self.field)
        return value in self.values


class Scope(BaseModel):
    """Every chosen candidate matches the predicate (a group restriction or a retention)."""

    model_config = _frozen
    kind: Literal["scope"] = "scope"
    predicate: Predicate


class Exclude(BaseModel):
    """No chosen candidate matches the predicate (set exclusion)."""

    model_config = _frozen
    kind: Literal["exclude"] = "exclude"
    predicate: Predicate


class Inhibit(BaseModel):
    """One candidate is prohibited by the instruction, although it is feasible (action inhibition)."""

    model_config = _frozen
    kind: Literal["inhibit"] = "inhibit"
    candidate: str


class Exhaustive(BaseModel):
    """The decision contains every candidate the membership constraints allow ("all ... except")."""

    model_config = _frozen
    kind: Literal["exhaustive"] = "exhaustive"


class Count(BaseModel):
    """The decision has exactly `k` members (cardinality)."""

    model_config = _frozen
    kind: Literal["count"] = "count"
    k: int = Field(ge=1)


class Prefer(BaseModel):
    """Chosen candidates are the first of the allowed ones when ranked by position along `key`, (key
    "distance") by the distance of their object from the landmark object at `origin`, or (key "size") by the
    size of their object (descending: biggest first; see `sizes`)."""

    model_config = _frozen
    kind: Literal["prefer"] = "prefer"
    key: PreferKey
    descending: bool
    landmark: str | None = Field(default=None, description='Object name of the landmark (key "distance").')
    origin: tuple[float, float] | None = Field(default=None, description="The landmark's (x, y) position.")

    @model_validator(mode="after")
    def _landmark_with_distance(self) -> Prefer:
        if (self.key == "distance") != (self.origin is not None and self.landmark is not None):
            raise ValueError('key "distance" needs a landmark and its origin, and only it has them')
        return self

    @model_serializer(mode="wrap")
    def _omit_absent_landmark(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)  # positional ranks serialize as before the fields existed
        for name in ("landmark", "origin"):
            if data.get(name, "") is None:
                del data[name]
        return data


class Before(BaseModel):
    """Both candidates are in the sequence and `first` comes before `then` (temporal order)."""

    model_config = _frozen
    kind: Literal["before"] = "before"
    first: str
    then: str


class OrderBy(BaseModel):
    """The sequence is sorted by position along `key` (temporal order by a rule)."""

    model_config = _frozen
    kind: Literal["order_by"] = "order_by"
    key: RankKey
    descending: bool


Constraint = Annotated[
    Scope | Exclude | Inhibit | Exhaustive | Count | Prefer | Before | OrderBy,
    Field(discriminator="kind"),
]


class Task(BaseModel):
    """A symbolic task: the decision type and the constraint set. Gold decisions are solved from it."""

    model_config = _frozen

    decision_type: DecisionType
    constraints: tuple[Constraint, ...]


Decision = str | list[str]


class DecisionEpisode(BaseModel):
    """One instance of a task family on a physical decision anchor.

    `gold` is a candidate id (single), a sorted list of ids (set) or an ordered list (sequence).
    `task` is optional so that user datasets without symbolic constraints still load; the oracle needs it.
    """

    model_config = _frozen

    schema_version: Literal["heedful-decisions-episode/1"] = EPISODE_SCHEMA_VERSION
    episode_id: str
    family_id: str
    anchor_id: str
    anchor_kind: AnchorKind
    role: Role
    category: Category
    subtype: str
    decision_type: DecisionType
    split: Split
    visual: bool = False
    state: TabletopState
    candidates: tuple[Candidate, ...]
    instruction: str
    masked_instruction: str
    gold: Decision
    task: Task | None = None
    template_id: str | None = Field(default=None, description="Language template, for auditing coverage.")
    image: str | None = Field(
        default=None,
        description="Rendered agentview PNG of the state, relative to the dataset directory (visual subset).",
    )
    image_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of the image file, so the hash covers it."
    )

    @model_serializer(mode="wrap")
    def _omit_absent_image(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        # Episodes without an image serialize exactly as before the fields existed: their hashes stay.
        data: dict[str, object] = handler(self)
        for name in IMAGE_FIELDS:
            if data.get(name, "") is None:
                del data[name]
        return data

    def keys(self) -> dict[str, str]:
        """Grouping fields copied into every record."""
        return {
            "family_id": self.family_id,
            "anchor_id": self.anchor_id,
            "anchor_kind": self.anchor_kind,
            "role": self.role,
            "category": self.category,
            "subtype": self.subtype,
            "decision_type": self.decision_type,
            "split": self.split,
            "visual": "true" if self.visual else "false",
        }
