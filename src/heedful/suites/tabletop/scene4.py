"""Scene 4, logic: negation, observable conditionals and sequences, in three training configurations.

- `s4/bowl` (16 tasks): blue cube, blue ball, red ball, red cube in a row, a green cylinder and a bowl
  holding an orange cylinder. Pick up an object named by negation (4); stack a cube on a target chosen
  by whether the bowl is empty (4); pick up two objects in order (8).
- `s4/stack` (7): a red cube stacked on a blue cube, a green cube, a yellow cylinder, two slots. Move the
  top cube to a slot (2), stack on the cylinder (2), a conditional on the left slot being empty, a pickup
  and a slot placement named by negation.
- `s4/spheres` (4): a red and a blue ball and a purple cylinder; conditionals on which ball is left.

L1 changes what the conditions observe (the bowl is emptied, the cylinder moved onto the left slot, the
balls swapped) or the arrangement; L2 rewrites the logic (negated condition with swapped branches,
"unless", positive names for negated ones, sequences stated backwards); L3 does both.
"""

from __future__ import annotations

from heedful.suites.tabletop.family import Family, moved, obj, ref, swapped
from heedful.suites.tabletop.grounding import GroundingError, resolve
from heedful.suites.tabletop.language import HELD_OUT_TEMPLATES, Wording, held_out, held_out_goal_texts, realize
from heedful.suites.tabletop.model import Condition, Goal, Layout, Ref, TaskSpec

BOWL = Layout(
    layout_id="s4/bowl",
    scene=4,
    objects=(
        obj("blue_cube", "cube", "blue", -0.195, 0.42),
        obj("blue_ball", "sphere", "blue", -0.065, 0.42),
        obj("red_ball", "sphere", "red", 0.065, 0.42),
        obj("red_cube", "cube", "red", 0.195, 0.42),
        obj("green_cylinder", "cylinder", "green", -0.15, 0.61, size="large"),
        obj("bowl", "bowl", "white", 0.14, 0.62),
        obj("orange_cylinder", "cylinder", "orange", 0.14, 0.62),
    ),
    inside=(("orange_cylinder", "bowl"),),
)
STACK = Layout(
    layout_id="s4/stack",
    scene=4,
    objects=(
        obj("blue_cube", "cube", "blue", -0.12, 0.44, size="large"),
        obj("red_cube", "cube", "red", -0.12, 0.44, on="blue_cube"),
        obj("green_cube", "cube", "green", 0.12, 0.44),
        obj("yellow_cylinder", "cylinder", "yellow", 0.0, 0.58, size="large"),
        obj("left_slot", "label", "gray", -0.17, 0.66, size="large"),
        obj("right_slot", "label", "gray", 0.17, 0.66, size="large"),
    ),
)
SPHERES = Layout(
    layout_id="s4/spheres",
    scene=4,
    objects=(
        obj("red_ball", "sphere", "red", -0.10, 0.48),
        obj("blue_ball", "sphere", "blue", 0.10, 0.48),
        obj("purple_cylinder", "cylinder", "purple", 0.0, 0.62),
    ),
)
_EMPTY = BOWL.model_copy(update={"layout_id": "s4/bowl_empty", "inside": (), "objects": BOWL.objects[:-1]})
L1_LAYOUTS = [
    ("s4/bowl", _EMPTY),
    ("s4/bowl", swapped(_EMPTY, "s4/bowl_empty_swap_cubes", ("blue_cube", "red_cube"))),
    ("s4/bowl", swapped(BOWL, "s4/bowl_swap_balls", ("blue_ball", "red_ball"))),
    ("s4/stack", moved(STACK, "s4/stack_cylinder_on_slot", {"yellow_cylinder": (-0.17, 0.66)})),
    ("s4/stack", moved(STACK, "s4/stack_moved", {"blue_cube": (0.12, 0.44), "green_cube": (-0.12, 0.44)})),
    ("s4/spheres", swapped(SPHERES, "s4/spheres_swapped", ("red_ball", "blue_ball"))),
    ("s4/spheres", moved(SPHERES, "s4/spheres_apart", {"red_ball": (0.16, 0.50), "blue_ball": (-0.16, 0.46)})),
]

W = Wording(label_noun="slot")
THE_BOWL = ref("bowl")
NOT_EMPTY = Condition(kind="bowl_empty", subject=THE_BOWL, negated=True)
EMPTY = Condition(kind="bowl_empty", subject=THE_BOWL)
LEFT_SLOT, RIGHT_SLOT = ref("label", side="left"), ref("label", side="right")
TOP = ref("cube", stack="top")


def named(color: str, shape: str) -> Ref:
    return ref(shape, color)


def _goal(action: str, source: Ref, target: Ref | None = None, second: Ref | None = None) -> Goal:
    return Goal.model_validate({"action": action, "source": source, "target": target, "second": second})


def _if(cond: Condition, then: Goal, otherwise: Goal) -> TaskSpec:
    return TaskSpec(goal=then, condition=cond, otherwise=otherwise)


def _stack(a: str, b: str) -> Goal:
    return _goal("stack", named(*a.split("_")), named(*b.split("_")))


_PAIRS = [
    ("red_cube", "blue_ball"),
    ("blue_ball", "red_cube"),
    ("blue_cube", "red_ball"),
    ("red_ball", "blue_cube"),
    ("red_cube", "blue_cube"),
    ("blue_cube", "red_cube"),
    ("red_ball", "blue_ball"),
    ("blue_ball", "red_ball"),
]
_SHAPE = {"cube": "cube", "ball": "sphere", "cylinder": "cylinder"}


def _named(text: str) -> Ref:
    color, noun = text.split("_")
    return named(color, _SHAPE[noun])


TRAINING: list[tuple[str, TaskSpec]] = [
    ("s4/bowl", TaskSpec(goal=_goal("pickup", ref("object", "blue", not_shape="cube")))),
    ("s4/bowl", TaskSpec(goal=_goal("pickup", ref("object", "red", not_shape="sphere")))),
    ("s4/bowl", TaskSpec(goal=_goal("pickup", ref("cube", not_color="red")))),
    ("s4/bowl", TaskSpec(goal=_goal("pickup", ref("sphere", not_color="blue")))),
    ("s4/bowl", _if(NOT_EMPTY, _stack("red_cube", "blue_cube"), _stack("blue_cube", "red_cube"))),
    ("s4/bowl", _if(EMPTY, _stack("red_cube", "green_cylinder"), _stack("blue_cube", "green_cylinder"))),
    ("s4/bowl", _if(NOT_EMPTY, _stack("blue_cube", "red_cube"), _stack("red_cube", "green_cylinder"))),
    ("s4/bowl", _if(EMPTY, _stack("blue_cube", "red_cube"), _stack("red_cube", "green_cylinder"))),
    *[("s4/bowl", TaskSpec(goal=_goal("sequence_pickups", _named(a), second=_named(b)))) for a, b in _PAIRS],
    ("s4/stack", TaskSpec(goal=_goal("place_slot", TOP, LEFT_SLOT))),
    ("s4/stack", TaskSpec(goal=_goal("place_slot", TOP, RIGHT_SLOT))),
    ("s4/stack", TaskSpec(goal=_goal("stack", named("green", "cube"), named("yellow", "cylinder")))),
    ("s4/stack", TaskSpec(goal=_goal("stack", TOP, named("yellow", "cylinder")))),
    (
        "s4/stack",
        _if(
            Condition(kind="slot_empty", subject=LEFT_SLOT),
            _goal("place_slot", named("green", "cube"), LEFT_SLOT),
            _goal("stack", named("green", "cube"), named("yellow", "cylinder")),
        ),
    ),
    ("s4/stack", TaskSpec(goal=_goal("pickup", ref("cube", stack="free")))),
    ("s4/stack", TaskSpec(goal=_goal("place_slot", ref("cube", size="small", not_color="red"), RIGHT_SLOT))),
    (
        "s4/spheres",
        _if(
            Condition(kind="left_of", subject=_named("red_ball"), other=_named("blue_ball")),
            _goal("pickup", _named("red_ball")),
            _goal("pickup", _named("blue_ball")),
        ),
    ),
    (
        "s4/spheres",
        _if(
            Condition(kind="left_of", subject=_named("blue_ball"), other=_named("red_ball")),
            _goal("pickup", _named("blue_ball")),
            _goal("pickup", _named("purple_cylinder")),
        ),
    ),
    ("s4/spheres", TaskSpec(goal=_goal("pickup", ref("sphere", not_color="red")))),
    (
        "s4/spheres",
        TaskSpec(goal=_goal("sequence_pickups", ref("object", not_shape="sphere"), second=_named("red_ball"))),
    ),
]


def alternatives(r: Ref, layout: Layout) -> list[Ref]:
    """Other names of the object `r` denotes: positive, by another negation, or by its place in the stack."""
    try:
        target = layout.obj(resolve(r, layout))
    except GroundingError:
        return []
    if target.shape == "label":
        return []
    others = [o for o in layout.objects if o.name != target.name and o.shape != "label"]
    options = [ref(target.shape, target.color)]
    options += [ref(target.shape, not_color=c) for c in sorted({o.color for o in others if o.shape == target.shape})]
    options += [
        ref("object", target.color, not_shape=s) for s in sorted({o.shape for o in others if o.color == target.color})
    ]
    options += [ref(target.shape, stack="top"), ref(target.shape, stack="free")]
    kept = []
    for option in options:
        if option == r:
            continue
        try:
            if resolve(option, layout) == target.name:
                kept.append(option)
        except GroundingError:
            continue
    return kept


def _renamed(goal: Goal, layout: Layout) -> list[Goal]:
    """The goal with its source (or, for a sequence, either object) named otherwise."""
    out = [goal.model_copy(update={"source": alt}) for alt in alternatives(goal.source, layout)]
    if goal.second is not None:
        out += [goal.model_copy(update={"second": alt}) for alt in alternatives(goal.second, layout)]
    return out


def held_out_s4(spec: TaskSpec, layout: Layout) -> list[tuple[TaskSpec, str]]:
    """Logically equivalent rewrites of a scene 4 task."""
    out: list[tuple[TaskSpec, str]] = []
    if spec.condition is not None and spec.otherwise is not None:
        flipped = TaskSpec(
            goal=spec.otherwise,
            condition=spec.condition.model_copy(update={"negated": not spec.condition.negated}),
            otherwise=spec.goal,
        )
        out += [(flipped, realize(flipped, 0, W)), (flipped, realize(flipped, 1, W))]
        out += [(spec, held_out(spec, t, W)) for t in HELD_OUT_TEMPLATES["conditional"]]
        return out
    goal = spec.goal
    if goal.action == "sequence_pickups":
        out += [(spec, held_out(spec, t, W)) for t in HELD_OUT_TEMPLATES["sequence_pickups"]]
    for i, new_goal in enumerate(_renamed(goal, layout)):
        new = TaskSpec(goal=new_goal)
        out.append((new, realize(new, i, W)))
        out += [(new, text) for text in held_out_goal_texts(new, W)]
    return out


FAMILY = Family(
    scene=4,
    configs={layout.layout_id: layout for layout in (BOWL, STACK, SPHERES)},
    training=TRAINING,
    l1_layouts=L1_LAYOUTS,
    held_out=held_out_s4,
    wording=W,
    counts=(27, 14, 25, 24),
)
