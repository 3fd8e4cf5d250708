"""Scene 2, attributes and action selection: a large red cylinder, a small red cube, a large blue cube,
a small blue cylinder, a green bowl and a yellow bowl.

    y = 0.65    green bowl (-0.17)                                   yellow bowl (0.17)
    y = 0.45    red cylinder (-0.195)  red cube (-0.065)  blue cube (0.065)  blue cylinder (0.195)

Training (16): pick up, stack, push and put in a bowl, four tasks each, every object named by its full
description ("the small red cube"). L1 swaps the positions of two objects; L2 names the same objects
otherwise ("the red cube", "the larger cylinder", "the cube that is not blue") in training or new
sentence structures; L3 combines both.
"""

from __future__ import annotations

from heedful.suites.tabletop.family import Family, obj, ref, swapped
from heedful.suites.tabletop.grounding import GroundingError, resolve
from heedful.suites.tabletop.language import Wording, held_out_goal_texts, realize
from heedful.suites.tabletop.model import Goal, Layout, Ref, TaskSpec

DEFAULT = Layout(
    layout_id="s2/default",
    scene=2,
    objects=(
        obj("red_cylinder", "cylinder", "red", -0.195, 0.45, size="large"),
        obj("red_cube", "cube", "red", -0.065, 0.45, size="small"),
        obj("blue_cube", "cube", "blue", 0.065, 0.45, size="large"),
        obj("blue_cylinder", "cylinder", "blue", 0.195, 0.45, size="small"),
        obj("green_bowl", "bowl", "green", -0.17, 0.65),
        obj("yellow_bowl", "bowl", "yellow", 0.17, 0.65),
    ),
)
L1_LAYOUTS = [
    ("s2/default", swapped(DEFAULT, "s2/swap_cubes", ("red_cube", "blue_cube"))),
    ("s2/default", swapped(DEFAULT, "s2/swap_cylinders", ("red_cylinder", "blue_cylinder"))),
    ("s2/default", swapped(DEFAULT, "s2/swap_bowls", ("green_bowl", "yellow_bowl"))),
    ("s2/default", swapped(DEFAULT, "s2/swap_small", ("red_cube", "blue_cylinder"))),
    ("s2/default", swapped(DEFAULT, "s2/swap_large", ("red_cylinder", "blue_cube"))),
    ("s2/default", swapped(DEFAULT, "s2/swap_reds", ("red_cylinder", "red_cube"))),
]

LRC = ref("cylinder", "red", size="large")
SRC = ref("cube", "red", size="small")
LBC = ref("cube", "blue", size="large")
SBC = ref("cylinder", "blue", size="small")
GREEN, YELLOW = ref("bowl", "green"), ref("bowl", "yellow")


def _goal(action: str, source: Ref, target: Ref | None = None, direction: str | None = None) -> TaskSpec:
    return TaskSpec(
        goal=Goal.model_validate({"action": action, "source": source, "target": target, "direction": direction})
    )


TRAINING: list[tuple[str, TaskSpec]] = [
    ("s2/default", spec)
    for spec in [
        _goal("pickup", LRC),
        _goal("pickup", SRC),
        _goal("pickup", LBC),
        _goal("pickup", SBC),
        _goal("stack", SRC, LBC),
        _goal("stack", SBC, LRC),
        _goal("stack", SRC, LRC),
        _goal("stack", SBC, LBC),
        _goal("push", LRC, direction="left"),
        _goal("push", SRC, direction="forward"),
        _goal("push", LBC, direction="backward"),
        _goal("push", SBC, direction="right"),
        _goal("place_bowl", SRC, GREEN),
        _goal("place_bowl", SBC, YELLOW),
        _goal("place_bowl", LBC, YELLOW),
        _goal("place_bowl", LRC, GREEN),
    ]
]


def alternatives(r: Ref, layout: Layout) -> list[Ref]:
    """Other references to the object `r` denotes: colour + shape, size + shape, comparative + shape,
    size + colour + 'object', and by the attribute it lacks ('the cube that is not blue', 'the red object
    that is not a cube'). Only those that still pick out that one object are kept."""
    if r.shape not in ("cube", "cylinder"):
        return []
    target = resolve(r, layout)
    other_color = {"red": "blue", "blue": "red"}.get(r.color or "", "")
    other_shape = "cube" if r.shape == "cylinder" else "cylinder"
    options = [
        ref(r.shape, r.color),
        ref(r.shape, size=r.size),
        ref(r.shape, size_cmp="larger" if r.size == "large" else "smaller"),
        ref("object", r.color, size=r.size),
        ref(r.shape, not_color=other_color),
        ref("object", r.color, not_shape=other_shape),
        ref("object", r.color, size_cmp="larger" if r.size == "large" else "smaller"),
    ]
    kept = []
    for option in options:
        try:
            if resolve(option, layout) == target:
                kept.append(option)
        except GroundingError:
            continue
    return kept


def held_out(spec: TaskSpec, layout: Layout) -> list[tuple[TaskSpec, str]]:
    """The same task with the source and / or target named otherwise, in a training sentence structure
    or a held-out one. (Synonyms alone, "little" for "small", make no new phrasing: see `phrasing.py`.)"""
    goal = spec.goal
    sources = [goal.source, *alternatives(goal.source, layout)]
    targets = [goal.target] if goal.target is None else [goal.target, *alternatives(goal.target, layout)]
    out: list[tuple[TaskSpec, str]] = []
    seen = {realize(spec, i) for i in range(3)}
    for i, source in enumerate(sources):
        for j, target in enumerate(targets):
            if i == j == 0:
                continue  # the training names: a new structure alone would leave them string-matchable
            new = TaskSpec(goal=goal.model_copy(update={"source": source, "target": target}))
            for text in (realize(new, i + j), *held_out_goal_texts(new)):
                if text not in seen:
                    seen.add(text)
                    out.append((new, text))
    return out


FAMILY = Family(
    scene=2,
    configs={DEFAULT.layout_id: DEFAULT},
    training=TRAINING,
    l1_layouts=L1_LAYOUTS,
    held_out=held_out,
    wording=Wording(),
    counts=(16, 24, 68, 24),
)
