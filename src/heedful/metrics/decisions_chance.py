"""The exact chance level of every decisions metric: the expected score of a uniformly random valid answer
(see `heedful.metrics.chance`), over the same units each measured value counts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from heedful.metrics.chance import Chance, answer_count, common_answers, grouped_means
from heedful.metrics.decisions import FamilyView, group_labels, index_families
from heedful.records import Record

Answer = tuple[str, frozenset[str]]


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
