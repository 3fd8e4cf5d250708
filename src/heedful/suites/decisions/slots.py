"""The words of a template's slots for one task's parameters.

Each slot reseeds the phrasebook (`Phrasebook.for_slot`), so the two tasks of a minimal pair get the same
words in every slot whose parameters they share, and only the changed constraint's slots differ.
"""

from __future__ import annotations

from collections.abc import Callable

from heedful.suites.decisions import wording as w
from heedful.suites.decisions.phrases import Phrasebook
from heedful.suites.decisions.proposals import Params

SlotMaker = Callable[[Phrasebook, Params], str]


def _sel(book: Phrasebook, p: Params) -> str:
    """The inhibition clause over a pair: select or avoid the named candidate, or the attribute's holder."""
    if "split" in p:
        pool = w.SELECT_ATTRIBUTE if p["positive"] else w.AVOID_ATTRIBUTE
        yes = book.predicate(p["split"], positive=True, plural=False)
        no = book.predicate(p["split"], positive=False, plural=False)
        return book.pick(pool).format(do=book.do, p=yes, n=no)
    vp, ger = book.forms(p["target"])
    np_ = ger.removeprefix(book.doing + " ") if not book.actions else ""
    if book.actions:
        pool = w.SELECT_ACTION if p["positive"] else w.AVOID_ACTION
    else:
        pool = w.SELECT_OBJECT if p["positive"] else w.AVOID_OBJECT
    return book.pick(pool).format(vp=vp, ger=ger, np=np_, do=book.do)


def _split_clause(book: Phrasebook, p: Params) -> str:
    group = book.group(p["group"])
    return book.pick(w.SPLIT_RETAIN if p["retain"] else w.SPLIT_EXCLUDE).format(do=book.do, g=group)


def _relation(pools: dict[str, w.Pool]) -> SlotMaker:
    return lambda book, p: book.pick(pools["before" if p["before"] else "after"])


def _k_ranked(book: Phrasebook, p: Params) -> str:
    return book.the_ones_ranked(p["key"], p["desc"], p["k"], p.get("landmark"))


def _ones_ranked(book: Phrasebook, p: Params) -> str:
    return book.the_ones_ranked(p["key"], p["desc"], 0 if p["k"] > 1 else 1, p.get("landmark"))


def _all_but(book: Phrasebook, p: Params) -> str:
    """The candidates a cardinality task leaves out, ranked from the other end: choosing the 2 leftmost of 3 is
    choosing all 'except the one that is farthest to the right'."""
    return book.the_ones_ranked(p["key"], not p["desc"], p["n"] - p["k"], p.get("landmark"))


SLOT_MAKERS: dict[str, SlotMaker] = {
    "do": lambda book, p: book.do,
    "done": lambda book, p: book.done,
    "everything": lambda book, p: book.everything(),
    "items": lambda book, p: book.items(),
    "group": lambda book, p: book.group(p["group"]),
    "sel": _sel,
    "opt_vp": lambda book, p: book.referent(p["options"])[0],
    "rel_one": lambda book, p: book.the_one_comparative(p["key"], p["desc"]),
    "pol": lambda book, p: book.pick(w.RETAIN if p["retain"] else w.EXCLUDE),
    "pred": lambda book, p: book.predicate(p["group"], positive=p["retain"], plural=True),
    "pred1": lambda book, p: book.predicate(p["group"], positive=p["retain"], plural=False),
    "split_clause": _split_clause,
    "k": lambda book, p: w.COUNT_WORDS[p["k"]],
    "k_ranked": _k_ranked,
    "ones_ranked": _ones_ranked,
    "all_but": _all_but,
    "x_vp": lambda book, p: book.for_slot("x").forms(p["x"])[0],
    "x_ger": lambda book, p: book.for_slot("x").forms(p["x"])[1],
    "y_vp": lambda book, p: book.for_slot("y").forms(p["y"])[0],
    "y_ger": lambda book, p: book.for_slot("y").forms(p["y"])[1],
    "rel": _relation(w.RELATION_WORDS),
    "order": lambda book, p: book.order(p["key"], p["desc"]),
    "not_vp": lambda book, p: book.for_slot("not").referent(p["inhibit"])[0],
    "not_ger": lambda book, p: book.for_slot("not").referent(p["inhibit"])[1],
}


def build_slots(slots: set[str], p: Params, book: Phrasebook) -> dict[str, str]:
    """Words for every slot in `slots` (a template's), each drawn from its own reseeded generator."""
    return {name: SLOT_MAKERS[name](book.for_slot(name), p) for name in sorted(slots)}
