"""Scene 1, spatial relations: three identical yellow blocks among anchors (red ball, green ball, red cylinder).

Layout (meters, seen from the robot), a checkerboard of blocks and anchors:

    y = 0.60    red ball (-0.14)   block_2 (0.00)      green ball (0.14)
    y = 0.46    block_1 (-0.14)    red cylinder (0.00) block_3 (0.14)

Training (16): pick up each block named by its relation to an anchor, and the red cylinder (4); put a
block behind (4) / in front of (3) / to the left of (3) / next to (2) an anchor. (Block 2 stands between
the two balls, already next to both, so it has no "next to" task.) L1 permutes the anchors over their
places while the instruction stays, so the referents and targets move; L2 names the blocks by other
relations ("the block to the left of the red cylinder"); L3 does both.
"""

from __future__ import annotations

from heedful.suites.tabletop.family import Family, obj, ref
from heedful.suites.tabletop.grounding import GroundingError, resolve
from heedful.suites.tabletop.language import Wording, held_out_goal_texts, realize
from heedful.suites.tabletop.model import Goal, Layout, Ref, Relation, TaskSpec

SLOTS = {"a": (-0.14, 0.60), "b": (0.0, 0.46), "c": (0.14, 0.60)}
ANCHORS = {
    "red_ball": ref("sphere", "red"),
    "green_ball": ref("sphere", "green"),
    "red_cylinder": ref("cylinder", "red"),
}
ANCHOR_SHAPES = {"red_ball": ("sphere", "red"), "green_ball": ("sphere", "green"), "red_cylinder": ("cylinder", "red")}
RELATIONS = ("behind", "in_front_of", "left_of", "right_of")


def _layout(layout_id: str, places: dict[str, str]) -> Layout:
    """Blocks at fixed places; anchors at the named slots."""
    anchors = [obj(name, shape, color, *SLOTS[places[name]]) for name, (shape, color) in ANCHOR_SHAPES.items()]
    blocks = [
        obj("block_1", "block", "yellow", -0.14, 0.46),
        obj("block_2", "block", "yellow", 0.0, 0.60),
        obj("block_3", "block", "yellow", 0.14, 0.46),
    ]
    return Layout(layout_id=layout_id, scene=1, objects=(*blocks, *anchors))


DEFAULT = _layout("s1/default", {"red_ball": "a", "red_cylinder": "b", "green_ball": "c"})
L1_LAYOUTS = [
    ("s1/default", _layout("s1/swap_balls", {"red_ball": "c", "red_cylinder": "b", "green_ball": "a"})),
    ("s1/default", _layout("s1/swap_red", {"red_ball": "b", "red_cylinder": "a", "green_ball": "c"})),
    ("s1/default", _layout("s1/swap_cyl_green", {"red_ball": "a", "red_cylinder": "c", "green_ball": "b"})),
    ("s1/default", _layout("s1/rotate_left", {"red_ball": "b", "red_cylinder": "c", "green_ball": "a"})),
    ("s1/default", _layout("s1/rotate_right", {"red_ball": "c", "red_cylinder": "a", "green_ball": "b"})),
]


def block(relation: str, anchor: str) -> Ref:
    return ref("block", relation=relation, anchor=ANCHORS[anchor])


# The training names of the blocks: each by one relation to one anchor.
B1, B2, B3 = block("in_front_of", "red_ball"), block("behind", "red_cylinder"), block("in_front_of", "green_ball")
TRAINING_REFS = (B1, B2, B3)


def _place(source: Ref, relation: Relation, anchor: str) -> TaskSpec:
    return TaskSpec(goal=Goal(action="place_relative", source=source, relation=relation, target=ANCHORS[anchor]))


def _pick(source: Ref) -> TaskSpec:
    return TaskSpec(goal=Goal(action="pickup", source=source))


TRAINING: list[tuple[str, TaskSpec]] = [
    ("s1/default", spec)
    for spec in [
        _pick(B1),
        _pick(B2),
        _pick(B3),
        _pick(ANCHORS["red_cylinder"]),
        _place(B1, "behind", "green_ball"),
        _place(B2, "behind", "green_ball"),
        _place(B2, "behind", "red_ball"),
        _place(B3, "behind", "red_ball"),
        _place(B1, "in_front_of", "red_cylinder"),
        _place(B2, "in_front_of", "red_cylinder"),
        _place(B3, "in_front_of", "red_cylinder"),
        _place(B1, "left_of", "red_ball"),
        _place(B2, "left_of", "red_ball"),
        _place(B3, "left_of", "red_ball"),
        _place(B1, "beside", "green_ball"),
        _place(B3, "beside", "green_ball"),
    ]
]


def _new_block_refs(layout: Layout) -> list[Ref]:
    """Relational names of blocks that ground in `layout` and are not training names."""
    found = []
    for anchor in ANCHORS:
        for relation in RELATIONS:
            candidate = block(relation, anchor)
            if candidate in TRAINING_REFS:
                continue
            try:
                resolve(candidate, layout)
            except GroundingError:
                continue
            found.append(candidate)
    return found


def held_out(spec: TaskSpec, layout: Layout) -> list[tuple[TaskSpec, str]]:
    """Recombinations: the task's action and target with the source named by a new relation, in a
    training sentence structure or a held-out one. (The training name in a new structure alone is no
    recombination: a string matcher finds its training task, so it is not offered.)"""
    goal = spec.goal
    # The red cylinder is the only cylinder: "the cylinder" names it too.
    alternatives = [ref("cylinder")] if goal.source.shape == "cylinder" else _new_block_refs(layout)
    out: list[tuple[TaskSpec, str]] = []
    for i, alt in enumerate(alternatives):
        new = TaskSpec(goal=goal.model_copy(update={"source": alt}))
        out.append((new, realize(new, i)))
        out += [(new, text) for text in held_out_goal_texts(new)]
    return out


FAMILY = Family(
    scene=1,
    configs={DEFAULT.layout_id: DEFAULT},
    training=TRAINING,
    l1_layouts=L1_LAYOUTS,
    held_out=held_out,
    wording=Wording(),
    counts=(16, 8, 16, 76),
)
