"""Skill calls: the high-level actions a planner chooses, their strict parsing and their execution.

A planner answers one call as JSON, `{"skill": "pick", "args": {"object": "red_cube"}}`, or
`{"skill": "done"}` to stop (the robot then holds still until the horizon). Anything that does not parse,
names an unknown skill or object, or has malformed arguments is rejected with a reason: it is never
repaired or replaced by a guess. `skill_call_schema` gives the JSON Schema for structured output.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from heedful.sims.tabletop.motion import SkillResult
from heedful.sims.tabletop.skillset import Skills

DIRECTIONS = ("left", "right", "forward", "backward")
RELATIONS = ("left_of", "right_of", "behind", "in_front_of")
MAX_WAYPOINTS = 10

# skill -> argument name -> (kind, required); kinds: object, number, relation, direction, waypoints, bool
SKILLS: dict[str, dict[str, tuple[str, bool]]] = {
    "pick": {"object": ("object", True)},
    "place_at": {"x": ("number", True), "y": ("number", True), "yaw_deg": ("number", False)},
    "place_on": {"target": ("object", True)},
    "place_in": {"bowl": ("object", True)},
    "place_relative": {"anchor": ("object", True), "relation": ("relation", True), "distance": ("number", False)},
    "push": {"object": ("object", True), "direction": ("direction", True), "distance": ("number", True)},
    "carry": {"waypoints": ("waypoints", True)},
    "rotate_to": {"yaw_deg": ("number", True)},
    "go_home": {"open_gripper": ("bool", False)},
    "done": {},
}
DESCRIPTIONS = {
    "pick": "grasp an object from above and lift it",
    "place_at": "put the held object down with its center at (x, y) meters, optionally turned to yaw_deg",
    "place_on": "stack the held object on top of another object",
    "place_in": "drop the held object into a bowl",
    "place_relative": "put the held object down next to an anchor: left_of, right_of, behind or in_front_of",
    "push": "push an object along the table: left, right, forward (away from you) or backward, by a distance in m",
    "carry": "move the held object through waypoints [[x, y], ...] above the table",
    "rotate_to": "turn the held object to a yaw in degrees",
    "go_home": "return the gripper to its home pose (opening it unless open_gripper is false)",
    "done": "stop: the robot holds still until the episode ends",
}


class SkillCall(BaseModel):
    """One validated call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str
    args: dict[str, Any] = Field(default_factory=dict)

    def text(self) -> str:
        """Canonical JSON (what an agent may send back)."""
        return json.dumps({"skill": self.skill, "args": self.args}, sort_keys=True)


class SkillCallError(ValueError):
    """An answer that is not a valid skill call; the message says why."""


def parse_call(text: str, objects: tuple[str, ...]) -> SkillCall:
    """Parse and validate one skill call.

    Raises:
        SkillCallError: the text is not JSON, names an unknown skill or object, or has bad arguments.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SkillCallError(f"the answer is not JSON: {exc.msg} at position {exc.pos}") from None
    except RecursionError:  # a hostile reply nested deeper than the parser recurses
        raise SkillCallError("the answer is not a skill call: JSON nested too deeply to read") from None
    if not isinstance(data, dict) or not isinstance(data.get("skill"), str):
        raise SkillCallError('the answer must be a JSON object with a "skill" string')
    skill = data["skill"]
    if skill not in SKILLS:
        raise SkillCallError(f"unknown skill {skill!r}; choose one of {', '.join(SKILLS)}")
    args = data.get("args", {})
    if not isinstance(args, dict):
        raise SkillCallError('"args" must be a JSON object')
    spec = SKILLS[skill]
    unknown = set(args) - set(spec)
    if unknown:
        raise SkillCallError(f"{skill} takes no argument {sorted(unknown)[0]!r}; it takes {sorted(spec) or 'none'}")
    for name, (kind, required) in spec.items():
        if name not in args:
            if required:
                raise SkillCallError(f"{skill} needs the argument {name!r}")
            continue
        _check(skill, name, kind, args[name], objects)
    return SkillCall(skill=skill, args=args)


def _check(skill: str, name: str, kind: str, value: Any, objects: tuple[str, ...]) -> None:
    where = f"{skill}.{name}"
    if kind == "object" and value not in objects:
        raise SkillCallError(f"{where}: no object {value!r}; objects are {', '.join(objects)}")
    if kind == "number" and not _finite(value):
        raise SkillCallError(f"{where} must be a finite number, got {value!r}")
    if kind == "relation" and value not in RELATIONS:
        raise SkillCallError(f"{where} must be one of {', '.join(RELATIONS)}, got {value!r}")
    if kind == "direction" and value not in DIRECTIONS:
        raise SkillCallError(f"{where} must be one of {', '.join(DIRECTIONS)}, got {value!r}")
    if kind == "bool" and not isinstance(value, bool):
        raise SkillCallError(f"{where} must be true or false, got {value!r}")
    if kind == "waypoints" and not (
        isinstance(value, list)
        and 1 <= len(value) <= MAX_WAYPOINTS
        and all(isinstance(p, list) and len(p) in (2, 3) and all(_finite(v) for v in p) for p in value)
    ):
        raise SkillCallError(f"{where} must be 1-{MAX_WAYPOINTS} points [x, y] or [x, y, z] of finite numbers")


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def execute(call: SkillCall, skills: Skills) -> SkillResult:
    """Run a validated call with the simulator's skills (HorizonReachedError from the step function propagates)."""
    a = call.args
    if call.skill == "pick":
        return skills.pick(a["object"])
    if call.skill == "place_at":
        return skills.place_at(float(a["x"]), float(a["y"]), a.get("yaw_deg"))
    if call.skill == "place_on":
        return skills.place_on(a["target"])
    if call.skill == "place_in":
        return skills.place_in(a["bowl"])
    if call.skill == "place_relative":
        return skills.place_relative(a["anchor"], a["relation"], float(a.get("distance", 0.10)))
    if call.skill == "push":
        return skills.push(a["object"], a["direction"], float(a["distance"]))
    if call.skill == "carry":
        return skills.carry([[float(v) for v in p] for p in a["waypoints"]])
    if call.skill == "rotate_to":
        return skills.rotate_to(float(a["yaw_deg"]))
    if call.skill == "go_home":
        return skills.go_home(bool(a.get("open_gripper", True)))
    raise SkillCallError(f"{call.skill!r} is not an executable skill")


_KIND_SCHEMA: dict[str, dict[str, Any]] = {
    "number": {"type": "number"},
    "relation": {"enum": list(RELATIONS)},
    "direction": {"enum": list(DIRECTIONS)},
    "bool": {"type": "boolean"},
    "waypoints": {
        "type": "array",
        "minItems": 1,
        "maxItems": MAX_WAYPOINTS,
        "items": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3},
    },
}


def skill_call_schema(objects: tuple[str, ...]) -> dict[str, Any]:
    """JSON Schema of one skill call for the objects of a scene (for structured output)."""
    variants = []
    for skill, spec in SKILLS.items():
        props = {
            name: ({"enum": list(objects)} if kind == "object" else _KIND_SCHEMA[kind])
            for name, (kind, _) in spec.items()
        }
        required = [name for name, (_, req) in spec.items() if req]
        args = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
        variants.append(
            {
                "type": "object",
                "properties": {"skill": {"const": skill}, "args": args},
                "required": ["skill", "args"] if required else ["skill"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": variants}
