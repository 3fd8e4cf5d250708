"""How the decisions suite puts candidates, groups, rankings and orders into words.

A Phrasebook reseeds its generator for every slot (`for_slot`), so two phrasebooks seeded alike word a
minimal pair identically except for the changed constraint's slots, whatever those slots draw, while a
rewrite gets fresh choices. `held_out` selects the wording pools (see `wording`): False for the training
wording, True for the held-out wording of the test split, None for both.
"""

from __future__ import annotations

import zlib

import numpy as np

from heedful.suites.decisions import wording as w
from heedful.suites.decisions.anchors import Anchor
from heedful.suites.decisions.model import Candidate, Predicate
from heedful.suites.decisions.references import object_references
from heedful.world.objects import NOUNS

POSITION_REF_SHARE = 0.3  # how often an object is named by its position or a relation when that is possible


def with_article(phrase: str) -> str:
    """'a red object', 'an orange object'."""
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def join_with(items: list[str], conjunction: str) -> str:
    """'a', 'a or b', 'a, b or c' (and likewise with 'and')."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


class Phrasebook:
    """Words for one anchor under one seed."""

    def __init__(self, anchor: Anchor, seed: int, held_out: bool | None) -> None:
        self.anchor = anchor
        self.seed = seed
        self.held_out = held_out
        self.rng = np.random.default_rng(seed)
        self.by_id = {c.id: c for c in anchor.candidates}
        self.objects = {o.name: o for o in anchor.state.objects}
        self.for_slot("do")
        verbs = w.ACTION_VERBS if self.actions else w.OBJECT_VERBS
        self.do = self.pick(w.DO_ACTION if self.actions else w.DO_OBJECT)
        self.doing, self.done = verbs[self.do]

    def for_slot(self, slot: str) -> Phrasebook:
        """Reseed from (seed, slot): a slot's words never depend on what other slots drew."""
        self.rng = np.random.default_rng((self.seed, zlib.crc32(slot.encode())))
        return self

    def _one(self, options: tuple[str, ...] | list[str]) -> str:
        return options[int(self.rng.integers(len(options)))]

    def pick(self, pool: w.Pool) -> str:
        return self._one(w.choose(pool, self.held_out))

    @property
    def actions(self) -> bool:
        return self.anchor.kind == "action"

    # --- single candidates

    def object_np(self, name: str) -> str:
        """A definite description of one object: by attributes, or sometimes by position or relation."""
        by_attribute, by_place = object_references(self.objects[name], self.anchor.state.objects, self.held_out)
        if by_place and self.rng.random() < POSITION_REF_SHARE:
            return self._one(by_place)
        return self._one(by_attribute)

    def forms(self, cand_id: str) -> tuple[str, str]:
        """(imperative, gerund) for doing one candidate: 'pick up the cube' / 'picking up the cube'."""
        cand = self.by_id[cand_id]
        if not self.actions:
            np_ = self.object_np(cand.object)
            return f"{self.do} {np_}", f"{self.doing} {np_}"
        imperative, gerund = self._form_pair(cand)
        fill = {
            "o": self.object_np(cand.object),
            "t": self.object_np(cand.target) if cand.target else "",
            "d": self.pick(w.DIRECTIONS[cand.direction]) if cand.direction else "",
        }
        return imperative.format(**fill), gerund.format(**fill)

    def _form_pair(self, cand: Candidate) -> tuple[str, str]:
        train, test = w.ACTION_FORMS[cand.attrs["verb"]]
        pairs = train + test if self.held_out is None else test if self.held_out else train
        return pairs[int(self.rng.integers(len(pairs)))]

    def referent(self, ids: list[str], conjunction: str = "or") -> tuple[str, str]:
        """(imperative, gerund) phrases for doing one of `ids`, e.g. 'pick up the cube or the ball'."""
        if not self.actions:
            nps = join_with([self.object_np(self.by_id[i].object) for i in ids], conjunction)
            return f"{self.do} {nps}", f"{self.doing} {nps}"
        forms = [self.forms(i) for i in ids]
        return join_with([f[0] for f in forms], conjunction), join_with([f[1] for f in forms], conjunction)

    # --- groups

    def items(self) -> str:
        return self.pick(w.ACTION_NOUNS if self.actions else w.OBJECT_NOUNS)

    def everything(self) -> str:
        return self.pick(w.EVERYTHING_ACTION if self.actions else w.EVERYTHING_OBJECT)

    def group(self, predicate: Predicate | None) -> str:
        """Plural noun phrase for the candidates a predicate selects ('red objects', 'pushing actions')."""
        if predicate is None:
            return self.items()
        field, value = predicate.field, predicate.values[0]
        if self.actions:
            if field == "verb":
                return self.pick(w.VERB_GROUPS[value])
            return self.pick(w.MOVING).format(a=self._moved_object(field, value))
        if field == "shape":
            return NOUNS[value][1]
        adjective = value if field == "color" else self.pick(w.SIZE_WORDS[value])
        return f"{adjective} {self.pick(w.OBJECT_NOUNS)}"

    def _moved_object(self, field: str, value: str) -> str:
        if field == "color":
            return with_article(f"{value} object")
        if field == "shape":
            return with_article(NOUNS[value][0])
        return with_article(f"{self.pick(w.SIZE_WORDS[value])} object")

    def predicate(self, predicate: Predicate, positive: bool, plural: bool) -> str:
        """Relative-clause predicate: 'are red' / 'is not a cube' / 'do not push something'."""
        field, value = predicate.field, predicate.values[0]
        contract = not positive and self._held_out_draw()  # held out: "isn't", "don't" instead of "is not"
        does = ("don't" if plural else "doesn't") if contract else ("do not" if plural else "does not")
        if self.actions and field == "verb":
            verb = w.VERB_PREDICATES[value][1 if plural is False else 0]
            return verb if positive else f"{does} {w.VERB_PREDICATES[value][0]}"
        if self.actions:
            head = "move" if plural else "moves"
            moved = self._moved_object(field, value)
            return f"{head} {moved}" if positive else f"{does} move {moved}"
        be = "are" if plural else "is"
        if field == "shape":
            complement = NOUNS[value][1] if plural else with_article(NOUNS[value][0])
        else:
            complement = value if field == "color" else self.pick(w.SIZE_WORDS[value])
        if positive:
            return f"{be} {complement}"
        return f"{be}n't {complement}" if contract else f"{be} not {complement}"

    # --- rankings and orders

    def _whose(self, k: int) -> str:
        if self.actions:
            return "whose object is" if k == 1 else "whose objects are"
        return "that is" if k == 1 else "that are"

    def _held_out_draw(self) -> bool:
        """Whether this phrase takes the held-out form (with the hold-out off, either, at random)."""
        return bool(self.rng.random() < 0.5) if self.held_out is None else self.held_out

    def landmark_np(self, name: str) -> str:
        """An attribute description of the object a ranking is measured from ('the red bowl')."""
        return object_references(self.objects[name], self.anchor.state.objects, self.held_out)[0][0]

    def the_ones_ranked(self, key: str, descending: bool, k: int, landmark: str | None = None) -> str:
        """'the two that are farthest to the left' / held out 'the two leftmost ones' (k=0: 'the ones ...'
        without a count); with a landmark, 'the two that are closest to the red bowl' / 'the two nearest ...';
        by size (key "size"), 'the two that are largest' / 'the two biggest'."""
        head = "one" if k == 1 else "ones" if k == 0 else w.COUNT_WORDS[k]
        if self._held_out_draw():
            if landmark is not None:
                forms = w.HELD_OUT_LANDMARK_AWAY if descending else w.HELD_OUT_LANDMARK
            else:
                forms = w.HELD_OUT_RANKS[(key, descending)]
            form = forms[1 if self.actions else 0]
            return form.format(
                head=head,
                k="" if k <= 1 else f"{w.COUNT_WORDS[k]} ",
                one="one" if k == 1 else "ones",
                objects="object" if k == 1 else "objects",
                l=self.landmark_np(landmark) if landmark is not None else "",
            )
        if landmark is not None:
            rank = (w.LANDMARK_AWAY if descending else w.LANDMARK_RANKS)[0][0].format(l=self.landmark_np(landmark))
        else:
            rank = self._one(w.RANKS[(key, descending)])
        return f"the {head} {self._whose(1 if k == 1 else 2)} {rank}"

    def the_one_comparative(self, key: str, descending: bool) -> str:
        """'the one that is farther to the left' / held out 'the leftmost of the two' (of two)."""
        if self._held_out_draw():
            return w.HELD_OUT_COMPARATIVES[(key, descending)][1 if self.actions else 0]
        return f"the one {self._whose(1)} {self._one(w.COMPARATIVES[(key, descending)])}"

    def order(self, key: str, descending: bool) -> str:
        if self._held_out_draw():
            if self.actions:
                return w.HELD_OUT_ACTION_ORDERS[(key, descending)]
            return w.ORDERS[(key, descending)][1][0]
        phrase = w.ORDERS[(key, descending)][0][0]
        return f"{phrase} by the position of their objects" if self.actions else phrase
