"""Scene 3, trajectory and orientation: carry a blue bar over a barrier of three bars onto a label.

    y = 0.65    purple label (-0.17)                     orange label (0.17)
    y = 0.50    red bar (-0.18)       green bar (0.00)    yellow bar (0.18)      <- the barrier
    y = 0.36                          blue bar (0.00)                            <- the bar to move

Any path from the blue bar to a label passes over the barrier, so a route names the bar to pass over
(`via`) or the bars to keep away from (`avoid`). Training (16): 2 labels x 2 route modes (pass over / avoid passing over
the bar nearest the label) x 4 placement modes (short or long side facing the front or the right; a
short side facing the front is the same final yaw as a long side facing right). L1 permutes the bar
colours or swaps the labels; L2 states the route by its complement ("pass over the red bar" ==
"avoid passing over the green and the yellow bar") and the placement by its equivalent; L3 combines both.
"""

from __future__ import annotations

from typing import Literal

from heedful.suites.tabletop.family import Family, moved, obj, ref, swapped
from heedful.suites.tabletop.language import EQUIVALENT_ORIENTATION, Wording, held_out_goal_texts, realize
from heedful.suites.tabletop.model import Goal, Layout, Orientation, RouteSpec, TaskSpec

BARRIER_DIMS = (0.075, 0.015, 0.01)
DEFAULT = Layout(
    layout_id="s3/default",
    scene=3,
    objects=(
        obj("blue_bar", "bar", "blue", 0.0, 0.36),
        obj("red_bar", "bar", "red", -0.18, 0.50, dims=BARRIER_DIMS),
        obj("green_bar", "bar", "green", 0.0, 0.50, dims=BARRIER_DIMS),
        obj("yellow_bar", "bar", "yellow", 0.18, 0.50, dims=BARRIER_DIMS),
        obj("purple_label", "label", "purple", -0.17, 0.65, size="large"),
        obj("orange_label", "label", "orange", 0.17, 0.65, size="large"),
    ),
)
L1_LAYOUTS = [
    ("s3/default", swapped(DEFAULT, "s3/swap_labels", ("purple_label", "orange_label"))),
    ("s3/default", swapped(DEFAULT, "s3/swap_red_yellow", ("red_bar", "yellow_bar"))),
    ("s3/default", swapped(DEFAULT, "s3/swap_red_green", ("red_bar", "green_bar"))),
    ("s3/default", swapped(DEFAULT, "s3/swap_green_yellow", ("green_bar", "yellow_bar"))),
    (
        "s3/default",
        moved(DEFAULT, "s3/rotate_bars", {"red_bar": (0.0, 0.5), "green_bar": (0.18, 0.5), "yellow_bar": (-0.18, 0.5)}),
    ),
    ("s3/default", swapped(DEFAULT, "s3/swap_all", ("red_bar", "yellow_bar"), ("purple_label", "orange_label"))),
]
BAR = ref("bar", "blue")
BARS = {color: ref("bar", color) for color in ("red", "green", "yellow")}
LABELS = {"purple": ref("label", "purple"), "orange": ref("label", "orange")}
NEAREST = {"purple": "red", "orange": "yellow"}  # the barrier bar nearest each label in the default layout
ORIENTATIONS: tuple[Orientation, ...] = ("short_front", "long_front", "short_right", "long_right")
MODES: tuple[Literal["via", "avoid"], ...] = ("via", "avoid")


def _task(label: str, mode: Literal["via", "avoid"], orientation: Orientation) -> TaskSpec:
    route = RouteSpec(mode=mode, bars=(BARS[NEAREST[label]],))
    return TaskSpec(
        goal=Goal(action="route_place", source=BAR, target=LABELS[label], route=route, orientation=orientation)
    )


TRAINING: list[tuple[str, TaskSpec]] = [
    ("s3/default", _task(label, mode, orientation))
    for label in ("purple", "orange")
    for mode in MODES
    for orientation in ORIENTATIONS
]


def _others(layout: Layout, named: str) -> tuple[str, ...]:
    """The barrier colours other than `named`, left to right in `layout`."""
    bars = sorted((o for o in layout.objects if o.shape == "bar" and o.name != "blue_bar"), key=lambda o: o.x)
    return tuple(o.color for o in bars if o.color != named)


def held_out(spec: TaskSpec, layout: Layout) -> list[tuple[TaskSpec, str]]:
    """Equivalent rewrites: the route by its complement ("pass over the red bar" == "avoid passing over
    the green and the yellow bar", or "cross the barrier anywhere but over the green or the yellow bar"),
    the placement as given or by its equivalent mode, in the training sentence structures and the
    held-out ones. (The training route in new words alone would stay string-matchable: not offered.)"""
    goal = spec.goal
    if goal.route is None or goal.orientation is None:
        return []
    named = goal.route.bars[0].color or ""
    others = tuple(BARS[c] for c in _others(layout, named))
    complement = RouteSpec(mode="avoid" if goal.route.mode == "via" else "via", bars=others)
    routes = [(complement, 0), (complement, 1)]
    out = []
    for k, (route, variant) in enumerate(routes):
        for orientation in (goal.orientation, EQUIVALENT_ORIENTATION[goal.orientation]):
            new = TaskSpec(goal=goal.model_copy(update={"route": route, "orientation": orientation}))
            out.append((new, realize(new, k + (orientation != goal.orientation), route_variant=variant)))
            out += [(new, text) for text in held_out_goal_texts(new, route_variant=variant)]
    return out


FAMILY = Family(
    scene=3,
    configs={DEFAULT.layout_id: DEFAULT},
    training=TRAINING,
    l1_layouts=L1_LAYOUTS,
    held_out=held_out,
    wording=Wording(),
    counts=(16, 40, 64, 96),
)
