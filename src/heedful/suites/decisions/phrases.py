"""How the decisions suite puts candidates, groups, rankings and orders into words.

A Phrasebook draws its synonym choices from its own generator, so two phrasebooks seeded alike word a
minimal pair identically except for the changed constraint, while a rewrite gets fresh choices.
"""

from __future__ import annotations

import numpy as np

from heedful.language.realize import join_or
from heedful.suites.decisions.anchors import Anchor
from heedful.suites.decisions.model import Candidate, Predicate
from heedful.world.objects import NOUNS, TableObject
from heedful.world.reference import referring_expressions

COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
SIZE_WORDS = {"small": ("small", "little"), "large": ("large", "big")}

OBJECT_VERBS = {"pick up": "picking up", "grab": "grabbing", "take": "taking"}
ACTION_VERBS = {"carry out": "carrying out", "perform": "performing", "execute": "executing"}

# verb -> (imperative, gerund) variants; {o} is the object, {t} the target, {d} the direction phrase.
ACTION_FORMS: dict[str, tuple[tuple[str, str], ...]] = {
    "pick": (("pick up {o}", "picking up {o}"), ("lift {o}", "lifting {o}"), ("grab {o}", "grabbing {o}")),
    "place_in": (("put {o} in {t}", "putting {o} in {t}"), ("place {o} into {t}", "placing {o} into {t}")),
    "stack_on": (
        ("stack {o} on {t}", "stacking {o} on {t}"),
        ("put {o} on top of {t}", "putting {o} on top of {t}"),
    ),
    "push": (("push {o} {d}", "pushing {o} {d}"), ("slide {o} {d}", "sliding {o} {d}")),
    "rotate": (
        ("rotate {o} by 90 degrees", "rotating {o} by 90 degrees"),
        ("turn {o} a quarter turn", "turning {o} a quarter turn"),
    ),
}
DIRECTION_PHRASES = {
    "left": ("10 cm to the left", "10 cm leftward"),
    "right": ("10 cm to the right", "10 cm rightward"),
    "forward": ("10 cm away from you", "10 cm forward"),
    "backward": ("10 cm toward you", "10 cm back toward you"),
}
VERB_GROUPS = {
    "pick": ("pick-up actions", "actions that pick something up"),
    "place_in": ("actions that put something in a bowl", "bowl-placing actions"),
    "stack_on": ("stacking actions", "actions that stack one object on another"),
    "push": ("pushing actions", "actions that push something"),
    "rotate": ("rotation actions", "actions that rotate something"),
}
RANKS = {  # (key, descending) -> phrases completing "the ones that are ..." / "whose objects are ..."
    ("x", False): ("farthest to the left", "nearest the left edge of the table"),
    ("x", True): ("farthest to the right", "nearest the right edge of the table"),
    ("y", False): ("closest to you", "nearest the robot"),
    ("y", True): ("farthest from you", "farthest from the robot"),
}
ORDERS = {
    ("x", False): ("from left to right", "in left-to-right order"),
    ("x", True): ("from right to left", "in right-to-left order"),
    ("y", False): ("from nearest to farthest", "starting nearest to you and moving away"),
    ("y", True): ("from farthest to nearest", "starting farthest from you and moving closer"),
}


class Phrasebook:
    """Words for one anchor. Methods draw synonym choices from `rng`."""

    def __init__(self, anchor: Anchor, rng: np.random.Generator) -> None:
        self.anchor = anchor
        self.rng = rng
        self.by_id = {c.id: c for c in anchor.candidates}
        self.objects = {o.name: o for o in anchor.state.objects}
        verbs = OBJECT_VERBS if anchor.kind == "object" else ACTION_VERBS
        self.do = self._pick(list(verbs))
        self.doing = verbs[self.do]

    def _pick(self, options: list[str] | tuple[str, ...]) -> str:
        return options[int(self.rng.integers(len(options)))]

    @property
    def actions(self) -> bool:
        return self.anchor.kind == "action"

    def object_np(self, obj: TableObject) -> str:
        return "the " + self._pick(referring_expressions(obj, self.anchor.state.objects))

    def _action_forms(self, cand: Candidate) -> tuple[str, str]:
        verb = cand.attrs["verb"]
        imperative, gerund = ACTION_FORMS[verb][int(self.rng.integers(len(ACTION_FORMS[verb])))]
        fill = {
            "o": self.object_np(self.objects[cand.object]),
            "t": self.object_np(self.objects[cand.target]) if cand.target else "",
            "d": self._pick(DIRECTION_PHRASES[cand.direction]) if cand.direction else "",
        }
        return imperative.format(**fill), gerund.format(**fill)

    def referent(self, ids: list[str]) -> tuple[str, str]:
        """(imperative, gerund) phrases for doing one of `ids`, e.g. 'pick up the cube or the ball'."""
        if not self.actions:
            nps = join_or([self.object_np(self.objects[self.by_id[i].object]) for i in ids])
            return f"{self.do} {nps}", f"{self.doing} {nps}"
        forms = [self._action_forms(self.by_id[i]) for i in ids]
        return join_or([f[0] for f in forms]), join_or([f[1] for f in forms])

    def items(self) -> str:
        return self._pick(("actions", "listed actions") if self.actions else ("objects", "items"))

    def group(self, predicate: Predicate | None) -> str:
        """Plural noun phrase for the candidates a predicate selects ('red objects', 'pushing actions')."""
        if predicate is None:
            return self.items()
        field, value = predicate.field, predicate.values[0]
        if self.actions:
            if field == "verb":
                return self._pick(VERB_GROUPS[value])
            if field == "color":
                moved = f"a {value} object"
            elif field == "shape":
                moved = f"a {NOUNS[value][0]}"
            else:
                moved = f"a {self._pick(SIZE_WORDS[value])} object"
            return self._pick((f"actions that move {moved}", f"actions moving {moved}"))
        if field == "shape":
            return NOUNS[value][1]
        adjective = value if field == "color" else self._pick(SIZE_WORDS[value])
        return f"{adjective} {self._pick(('objects', 'items'))}"

    def the_ones_ranked(self, key: str, descending: bool, k: int) -> str:
        """'the two that are farthest to the left' style phrase (k=0: 'the ones ...' without a count)."""
        rank = self._pick(RANKS[(key, descending)])
        head = "the one" if k == 1 else "the ones" if k == 0 else f"the {COUNT_WORDS[k]}"
        if self.actions:
            return f"{head} whose {'object is' if k == 1 else 'objects are'} {rank}"
        return f"{head} that {'is' if k == 1 else 'are'} {rank}"

    def order(self, key: str, descending: bool) -> str:
        phrase = self._pick(ORDERS[(key, descending)])
        return f"by the position of their objects, {phrase}" if self.actions else phrase

    def everything(self) -> str:
        return self._pick(
            ("all the listed actions", "every listed action") if self.actions else ("all the objects", "every object")
        )
