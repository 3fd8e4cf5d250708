"""The exact chance level of every decisions metric: the expected score of a uniformly random valid answer
(exactly what the `random-valid` agent draws), over the same units each measured value counts.

A random valid answer is one candidate for `single`, any non-empty subset for `set`, any non-empty ordering of
distinct candidates for `sequence`, independently per instance. Each metric's expectation follows from the
per-instance probabilities (a pair is right with p_x * p_y; two random answers agree with |A_x & A_y| /
(|A_x| |A_y|)), summed over the same units the measured value counts. Records made before records kept their
inputs (the candidate ids) give no chance level: the column then prints `-`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from heedful.metrics.chance import Chance, grouped_means
from heedful.metrics.scoring import ReferenceRows
from heedful.records import Record
from heedful.suites.decisions.metrics import FamilyView, group_labels, index_families

Answer = tuple[str, frozenset[str]]
"""A decision's answer space: (decision type, candidate ids)."""


def answer_count(decision_type: str, candidates: int) -> int:
    """How many valid answers a decision of this type over `candidates` ids has."""
    if decision_type == "single":
        return candidates
    if decision_type == "set":
        return int(2**candidates - 1)
    return sum(math.perm(candidates, k) for k in range(1, candidates + 1))


def common_answers(x: Answer, y: Answer) -> int:
    """How many answers two decisions (type, candidate ids) share (sets are compared as sorted lists)."""
    (type_x, ids_x), (type_y, ids_y) = x, y
    c = len(ids_x & ids_y)
    if type_x == type_y:
        return answer_count(type_x, c)
    if "single" in (type_x, type_y):
        return 0  # an id string never equals a list
    return int(2**c - 1)  # set vs sequence: each common subset, sorted, is also a valid sequence


def _space(record: Record) -> Answer | None:
    ids = record.inputs.get("candidates")
    if not isinstance(ids, list) or not ids:
        return None
    return record.keys["decision_type"], frozenset(str(i) for i in ids)


def _p(record: Record) -> float:
    decision_type, ids = _space(record)  # type: ignore[misc]  # checked by decisions_chance
    return 1.0 / answer_count(decision_type, len(ids))


def _agree(x: Record, y: Record) -> float:
    sx, sy = _space(x), _space(y)
    assert sx is not None and sy is not None
    return common_answers(sx, sy) / (answer_count(sx[0], len(sx[1])) * answer_count(sy[0], len(sy[1])))


def _both(pairs: Sequence[tuple[Record, Record]], keep: Callable[[Record, Record], bool]) -> float:
    return sum(_p(x) * _p(y) for x, y in pairs if keep(x, y))


CHANCE: dict[str, Callable[[FamilyView], tuple[float, int]]] = {
    "accuracy": lambda f: (sum(_p(r) for r in f.scored), len(f.scored)),
    "parse_success": lambda f: (float(len(f.scored)), len(f.scored)),
    "pair_success": lambda f: (
        _both(f.preserving + f.changing, lambda x, y: True),
        len(f.preserving) + len(f.changing),
    ),
    "decision_invariance": lambda f: (_both(f.preserving, lambda x, y: x.gold == y.gold), len(f.preserving)),
    "decision_sensitivity": lambda f: (_both(f.changing, lambda x, y: x.gold != y.gold), len(f.changing)),
    "over_invariance": lambda f: (sum(_agree(x, y) for x, y in f.changing), len(f.changing)),
    "over_sensitivity": lambda f: (sum(1.0 - _agree(x, y) for x, y in f.preserving), len(f.preserving)),
    "family_success": lambda f: (_product(f.scored) if f.complete else 0.0, int(f.complete)),
}
"""Per family: (expected successes, units) of each metric under uniformly random valid answers."""


def _product(records: Sequence[Record]) -> float:
    out = 1.0
    for r in records:
        out *= _p(r)
    return out


def decisions_chance(records: Sequence[Record]) -> Chance:
    """(group, metric) -> exact chance level; empty when a scored record lacks its candidate ids (old runs)."""
    if any(r.status.scored and _space(r) is None for r in records):
        return {}
    items = []
    for family in index_families(records).values():
        view = FamilyView.of(family)
        counts = {name: count(view) for name, count in CHANCE.items()}
        items.append((group_labels(next(iter(family.values()))), counts))
    return grouped_means(items)


def chance_levels(records: Sequence[Record]) -> ReferenceRows:
    """The scoring's reference levels: the chance level of each (group, metric), and no rows of their own."""
    return decisions_chance(records), ()
