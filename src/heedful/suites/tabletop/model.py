"""Data of the tabletop suite (RoboFollow protocol): layouts, symbolic task specs, tasks and trials.

A task is a symbolic spec (`TaskSpec`: action, source, target, relation, route, orientation, condition)
kept apart from its language (`instruction`). Objects are named by referring expressions (`Ref`), not by
ids, so the same spec grounds to different objects in a different layout: that is how L1 keeps the
instruction while the correct branch changes. `Grounded` is a spec resolved against one layout.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec

TASK_SCHEMA_VERSION: Literal["heedful-tabletop-task/1"] = "heedful-tabletop-task/1"
TRIAL_SCHEMA_VERSION: Literal["heedful-tabletop-trial/1"] = "heedful-tabletop-trial/1"

Level = Literal["L0", "L1", "L2", "L3"]
LEVELS: tuple[Level, ...] = ("L0", "L1", "L2", "L3")
SCENES: tuple[int, ...] = (1, 2, 3, 4)
Action = Literal[
    "pickup", "place_relative", "stack", "push", "place_bowl", "route_place", "place_slot", "sequence_pickups"
]
Relation = Literal["behind", "in_front_of", "left_of", "right_of", "beside"]
RefRelation = Literal["behind", "in_front_of", "left_of", "right_of"]
Direction = Literal["left", "right", "forward", "backward"]
Orientation = Literal["short_front", "long_front", "short_right", "long_right"]
ConditionKind = Literal["bowl_empty", "left_of", "slot_empty"]

# Yaw (degrees, modulo 180) of a bar's long axis for each placement mode: "short side facing front"
# points the long axis away from the robot (+y), so it equals "long side facing right".
ORIENTATION_YAW: dict[str, float] = {"short_front": 90.0, "long_right": 90.0, "long_front": 0.0, "short_right": 0.0}

_frozen = ConfigDict(frozen=True, extra="forbid")


class Ref(BaseModel):
    """A referring expression, symbolically: attribute filters, negations, a spatial relation to an anchor.

    Every field narrows the candidates; a reference grounds when exactly one object is left.
    `shape="object"` matches any graspable object; `stack="top"` is an object stacked on another,
    `stack="free"` one that is neither on nor under another; `size_cmp` keeps the larger / smaller of
    the remaining candidates; `side` keeps the leftmost / rightmost (for slots).
    """

    model_config = _frozen

    shape: str | None = None
    color: str | None = None
    size: Literal["small", "large"] | None = None
    size_cmp: Literal["larger", "smaller"] | None = None
    not_color: str | None = None
    not_shape: str | None = None
    relation: RefRelation | None = None
    anchor: Ref | None = None
    stack: Literal["top", "free"] | None = None
    side: Literal["left", "right"] | None = None


class RouteSpec(BaseModel):
    """A route constraint: pass over one of `bars` (`via`), or over none of them (`avoid`)."""

    model_config = _frozen

    mode: Literal["via", "avoid"]
    bars: tuple[Ref, ...]


class Condition(BaseModel):
    """An observable condition: the bowl is empty, `subject` is left of `other`, the slot is empty."""

    model_config = _frozen

    kind: ConditionKind
    subject: Ref
    other: Ref | None = None
    negated: bool = False


class Goal(BaseModel):
    """One branch of a task: what to do with which objects."""

    model_config = _frozen

    action: Action
    source: Ref
    second: Ref | None = Field(default=None, description="The second object of a sequence (A then B).")
    target: Ref | None = Field(default=None, description="Anchor, stack target, bowl, label or slot.")
    relation: Relation | None = None
    direction: Direction | None = None
    route: RouteSpec | None = None
    orientation: Orientation | None = None


class TaskSpec(BaseModel):
    """The symbolic task: a goal, or a conditional with a goal per branch."""

    model_config = _frozen

    goal: Goal
    condition: Condition | None = None
    otherwise: Goal | None = None

    @property
    def actions(self) -> tuple[str, ...]:
        return (self.goal.action,) if self.otherwise is None else (self.goal.action, self.otherwise.action)


class Grounded(BaseModel):
    """A task spec resolved in one layout: object ids, the branch taken, the allowed bars, the target yaw."""

    model_config = _frozen

    action: Action
    source: str
    second: str | None = None
    target: str | None = None
    relation: Relation | None = None
    direction: Direction | None = None
    allowed_bars: tuple[str, ...] = ()
    barrier: tuple[str, ...] = ()
    route_mode: Literal["via", "avoid"] | None = Field(
        default=None, description="via: pass over an allowed bar; avoid: pass anywhere but over a forbidden one."
    )
    yaw_deg: float | None = None
    branch: Literal["then", "else"] | None = None


class Layout(BaseModel):
    """A task-independent initial scene: the objects and which ones start inside a bowl.

    `inside` pairs (object, bowl). The simulator's scene spec cannot hold an object inside a bowl, so
    `scene_spec` parks such objects off to the side and the runtime moves them in before the episode.
    """

    model_config = _frozen

    layout_id: str
    scene: int
    objects: tuple[ObjectSpec, ...]
    inside: tuple[tuple[str, str], ...] = ()

    def obj(self, name: str) -> ObjectSpec:
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(f"no object {name!r} in layout {self.layout_id}")

    def contents(self, bowl: str) -> tuple[str, ...]:
        return tuple(o for o, b in self.inside if b == bowl)

    def digest(self) -> str:
        """Hash of the scene content alone (not its id): two layouts with the same objects share it."""
        body = {"objects": [o.model_dump(mode="json") for o in self.objects], "inside": list(self.inside)}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def scene_spec(self) -> SceneSpec:
        """The simulator's scene: objects inside bowls parked at the table's near corners."""
        parked = {name: PARKING[i] for i, (name, _) in enumerate(self.inside)}
        objects = tuple(
            o.model_copy(update={"x": parked[o.name][0], "y": parked[o.name][1]}) if o.name in parked else o
            for o in self.objects
        )
        return SceneSpec(objects=objects)


PARKING: tuple[tuple[float, float], ...] = ((0.40, 0.20), (-0.40, 0.20))


class TrainingTask(BaseModel):
    """One of the 75 training task labels, with its paraphrases (one is sampled per demonstration)."""

    model_config = _frozen

    label: str
    scene: int
    config: str
    spec: TaskSpec
    paraphrases: tuple[str, ...]
    grounded: Grounded
    layout: Layout


class TabletopTask(BaseModel):
    """One evaluation task of the registry (554 in all): a dataset line of `heedful generate tabletop`."""

    model_config = _frozen

    schema_version: Literal["heedful-tabletop-task/1"] = TASK_SCHEMA_VERSION
    task: str
    scene: int
    level: Level
    config: str = Field(description="Layout id of this task's initial scene.")
    base_config: str = Field(description="The training configuration this layout derives from.")
    action: Action
    instruction: str
    spec: TaskSpec
    grounded: Grounded
    layout: Layout
    horizon: int = Field(description="Control steps every trial runs (no early stop).")
    training_label: str | None = Field(default=None, description="The training label whose phrasing it keeps.")
    derived_from: str | None = Field(
        default=None,
        description="The training label this task varies: L0/L1 the same as training_label; L2/L3 the label "
        "whose spec the held-out phrasing rewrites. None in datasets written before it existed.",
    )

    @property
    def episode_id(self) -> str:
        return self.task

    def keys(self) -> dict[str, str]:
        """Grouping fields copied into every record."""
        return {
            "task": self.task,
            "scene": f"S{self.scene}",
            "level": self.level,
            "config": self.config,
            "base_config": self.base_config,
            "action": self.action,
            "branch": self.grounded.branch or "-",
        }


class TrialSwitch(BaseModel):
    """A trial's mid-episode re-instruction: the task it switches to, by which rule, and (once made) the control
    step at which the switch was made (a privileged controller is told that, so it re-plans from there)."""

    model_config = _frozen

    to: TabletopTask
    rule: str
    made_at: int | None = Field(default=None, exclude_if=lambda value: value is None)


class TabletopTrial(BaseModel):
    """One trial of one task: what the runner rolls out (10 per task in the protocol)."""

    model_config = _frozen

    schema_version: Literal["heedful-tabletop-trial/1"] = TRIAL_SCHEMA_VERSION
    episode_id: str
    trial: int
    trial_seed: int
    task: TabletopTask
    other: SkipJsonSchema[TabletopTask | None] = Field(
        default=None,
        exclude_if=lambda value: value is None,  # a trial without it serializes as before the field existed
        description="Under `--instruction other`: the task whose words the trial shows (heedful.suites.tabletop.arms).",
    )

    switch: SkipJsonSchema[TrialSwitch | None] = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Under `--reinstruct`: the task whose words the trial switches to, and when "
        "(heedful.suites.tabletop.switching).",
    )

    def keys(self) -> dict[str, str]:
        return {**self.task.keys(), "trial": str(self.trial), "trial_seed": str(self.trial_seed)}
