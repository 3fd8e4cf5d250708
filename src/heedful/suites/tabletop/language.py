"""Language of the tabletop suite: referring expressions, action templates and paraphrases.

Training phrasings use `TEMPLATES` (three paraphrases per action) and the default `Wording`; routes are
worded as in RoboFollow ("pass over X", "avoid passing over X"). Held-out phrasings (levels L2 and L3)
come from other referring expressions of the same objects, logically equivalent rewrites (negated
condition with swapped branches, "unless", sequences stated backwards, routes stated by their
complement or as "cross the barrier ...") and sentence structures never used in training
(`HELD_OUT_TEMPLATES`, `HELD_OUT_ACTION_TEMPLATES`); `phrasing.py` keeps them far enough from training.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from heedful.suites.tabletop.model import Condition, Goal, Ref, RouteSpec, TaskSpec

NOUNS = {
    "cube": "cube",
    "block": "block",
    "cylinder": "cylinder",
    "sphere": "ball",
    "bar": "bar",
    "bowl": "bowl",
    "label": "label",
    "object": "object",
}
REL_PHRASES = {
    "behind": "behind",
    "in_front_of": "in front of",
    "left_of": "to the left of",
    "right_of": "to the right of",
    "beside": "next to",
}
DIR_PHRASES = {"left": "to the left", "right": "to the right", "forward": "away from you", "backward": "toward you"}
ORIENT_PHRASES = {
    "short_front": "its short side facing the front",
    "long_front": "its long side facing the front",
    "short_right": "its short side facing right",
    "long_right": "its long side facing right",
}
# The other placement mode with the same final yaw (a logically equivalent rewrite).
EQUIVALENT_ORIENTATION = {
    "short_front": "long_right",
    "long_right": "short_front",
    "long_front": "short_right",
    "short_right": "long_front",
}

TEMPLATES: dict[str, tuple[str, ...]] = {
    "pickup": ("pick up {src}", "grab {src}", "lift {src}"),
    "place_relative": ("put {src} {rel} {tgt}", "place {src} {rel} {tgt}", "move {src} {rel} {tgt}"),
    "stack": ("stack {src} on {tgt}", "put {src} on top of {tgt}", "place {src} onto {tgt}"),
    "push": ("push {src} {dir}", "slide {src} {dir}", "shove {src} {dir}"),
    "place_bowl": ("put {src} in {tgt}", "place {src} into {tgt}", "drop {src} into {tgt}"),
    "route_place": (
        "place {src} on {tgt} and {route}, with {orient}",
        "move {src} onto {tgt}; {route} and leave it with {orient}",
        "carry {src} to {tgt}, {route}, and finish with {orient}",
    ),
    "place_slot": ("move {src} to {tgt}", "put {src} on {tgt}", "place {src} in {tgt}"),
    "sequence_pickups": (
        "first pick up {src}, then pick up {second}",
        "pick up {src} and then {second}",
        "pick up {src} first and {second} second",
    ),
}
CONDITIONAL_TEMPLATES = ("if {cond}, {then}; otherwise, {other}", "if {cond}, {then}, else {other}")
HELD_OUT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "sequence_pickups": (
        "pick up {second} after picking up {src}",
        "before picking up {second}, pick up {src}",
    ),
    "conditional": ("unless {cond}, {other}; otherwise, {then}",),
}
# Sentence structures of plain goals that no training phrasing uses (levels L2 and L3).
HELD_OUT_ACTION_TEMPLATES: dict[str, tuple[str, ...]] = {
    "pickup": ("take hold of {src} and raise it off the table", "{src} is the one to pick up: lift it"),
    "place_relative": ("take {src} and set it down {rel} {tgt}", "{src} belongs {rel} {tgt}: move it there"),
    "stack": ("take {src} and set it down on top of {tgt}", "{tgt} is the base: stack {src} on it"),
    "push": ("push {src} along the table {dir}", "without lifting it, push {src} {dir}"),
    "place_bowl": ("take {src} and drop it inside {tgt}", "{tgt} is where {src} goes: put it in"),
    "place_slot": ("take {src} and set it down on {tgt}", "{tgt} is where {src} goes: move it there"),
    "route_place": (
        "take {src} to {tgt}; on the way, {route}; it must end with {orient}",
        "{route} while you carry {src} to {tgt}, and set it down with {orient}",
    ),
    "sequence_pickups": (),
}


@dataclass(frozen=True)
class Wording:
    """Word choices that do not change meaning: size words, comparatives and the noun for labels."""

    small: str = "small"
    large: str = "large"
    larger: str = "larger"
    smaller: str = "smaller"
    label_noun: str = "label"


SYNONYMS = Wording(small="little", large="big", larger="bigger", smaller="smaller")


def ref_text(ref: Ref, w: Wording = Wording()) -> str:
    """A referring expression, e.g. 'the small red cube', 'the blue object that is not a cube'."""
    noun = w.label_noun if ref.shape == "label" else NOUNS.get(ref.shape or "object", ref.shape or "object")
    words: list[str] = []
    if ref.side is not None:
        words.append(ref.side)
    if ref.size_cmp is not None:
        words.append(w.larger if ref.size_cmp == "larger" else w.smaller)
    if ref.size is not None:
        words.append(w.small if ref.size == "small" else w.large)
    if ref.color is not None:
        words.append(ref.color)
    text = "the " + " ".join([*words, noun])
    if ref.not_shape is not None:
        text += f" that is not a {NOUNS.get(ref.not_shape, ref.not_shape)}"
    if ref.not_color is not None:
        text += f" that is not {ref.not_color}"
    if ref.stack == "top":
        text += " on top of the stack"
    elif ref.stack == "free":
        text += " that is not in the stack"
    if ref.relation is not None and ref.anchor is not None:
        text += f" {REL_PHRASES[ref.relation]} {ref_text(ref.anchor, w)}"
    return text


def _join(items: list[str], conj: str) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {conj} " + items[-1]


def route_text(route: RouteSpec, w: Wording = Wording(), variant: int = 0) -> str:
    """The route as an imperative clause.

    Variant 0 (the training wording, RoboFollow's): 'pass over the red bar', 'avoid passing over the green
    and the yellow bar'. Variant 1 (held out): 'cross the barrier over the red or the green bar',
    'cross the barrier anywhere but over the red bar'.
    """
    bars = [ref_text(b, w) for b in route.bars]
    if variant == 1:
        if route.mode == "via":
            return "cross the barrier over " + _join(bars, "or")
        return "cross the barrier anywhere but over " + _join(bars, "or")
    if route.mode == "via":
        return "pass over " + _join(bars, "or")
    return "avoid passing over " + _join(bars, "and")


def condition_text(cond: Condition, w: Wording = Wording()) -> str:
    subject = ref_text(cond.subject, w)
    neg = " not" if cond.negated else ""
    if cond.kind == "bowl_empty":
        return f"{subject} is{neg} empty"
    if cond.kind == "slot_empty":
        return f"{subject} is{neg} empty"
    other = ref_text(cond.other, w) if cond.other is not None else "the other one"
    return f"{subject} is{neg} to the left of {other}"


def goal_text(goal: Goal, template: str, w: Wording = Wording(), route_variant: int = 0) -> str:
    """Fill an action template with the goal's phrases."""
    return template.format(
        src=ref_text(goal.source, w),
        second=ref_text(goal.second, w) if goal.second is not None else "",
        tgt=ref_text(goal.target, w) if goal.target is not None else "",
        rel=REL_PHRASES.get(goal.relation or "", ""),
        dir=DIR_PHRASES.get(goal.direction or "", ""),
        route=route_text(goal.route, w, route_variant) if goal.route is not None else "",
        orient=ORIENT_PHRASES.get(goal.orientation or "", ""),
    )


def sentence(text: str) -> str:
    """Capitalize and end with a period."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def realize(spec: TaskSpec, variant: int = 0, w: Wording = Wording(), route_variant: int = 0) -> str:
    """The instruction for `spec` in training template number `variant` (conditionals wrap two goals)."""
    if spec.condition is None or spec.otherwise is None:
        return sentence(goal_text(spec.goal, TEMPLATES[spec.goal.action][variant % 3], w, route_variant))
    then = goal_text(spec.goal, TEMPLATES[spec.goal.action][0], w)
    other = goal_text(spec.otherwise, TEMPLATES[spec.otherwise.action][0], w)
    frame = CONDITIONAL_TEMPLATES[variant % len(CONDITIONAL_TEMPLATES)]
    return sentence(frame.format(cond=condition_text(spec.condition, w), then=then, other=other))


def paraphrases(spec: TaskSpec, w: Wording = Wording()) -> tuple[str, ...]:
    """The training paraphrases of a task (three for plain goals, two frames x one order for conditionals)."""
    if spec.condition is None:
        return tuple(realize(spec, i, w) for i in range(3))
    base = tuple(realize(spec, i, w) for i in range(len(CONDITIONAL_TEMPLATES)))
    then = goal_text(spec.goal, TEMPLATES[spec.goal.action][1], w)
    other = goal_text(spec.otherwise or spec.goal, TEMPLATES[(spec.otherwise or spec.goal).action][1], w)
    cond = condition_text(spec.condition, w) if spec.condition is not None else ""
    return (*base, sentence(f"if {cond}, {then}; if not, {other}"))


def held_out(spec: TaskSpec, template: str, w: Wording = Wording()) -> str:
    """A held-out frame: for sequences `template` is an action frame, for conditionals a conditional frame."""
    if spec.condition is not None and spec.otherwise is not None:
        then = goal_text(spec.goal, TEMPLATES[spec.goal.action][0], w)
        other = goal_text(spec.otherwise, TEMPLATES[spec.otherwise.action][0], w)
        return sentence(template.format(cond=condition_text(spec.condition, w), then=then, other=other))
    return sentence(goal_text(spec.goal, template, w))


def held_out_goal_texts(spec: TaskSpec, w: Wording = Wording(), route_variant: int = 0) -> list[str]:
    """A plain goal in every held-out sentence structure of its action (none for conditionals)."""
    if spec.condition is not None:
        return []
    frames = HELD_OUT_ACTION_TEMPLATES[spec.goal.action]
    return [sentence(goal_text(spec.goal, frame, w, route_variant)) for frame in frames]


@lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Lower case without punctuation or repeated spaces: what the leakage checks compare."""
    kept = "".join(ch.lower() if ch.isalnum() or ch.isspace() else " " for ch in text)
    return " ".join(kept.split())
