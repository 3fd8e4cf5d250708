"""Which episodes `--limit N` runs: a seeded sample spread over the suite's own groups, or the first N in file order.

A suite cuts its episodes into sampling units (a decisions family, a household episode, a tabletop trial), each in
one stratum (decisions: category x split; household: split x task type x clarity; tabletop: scene x level).
`sample_positions` shuffles the units of each stratum with a generator seeded by the run seed and the stratum, then
interleaves the strata in proportion to their size (the k-th of n units of a stratum sits at k / n): the
first units cover every stratum once, the next ones keep the benchmark's proportions, and a larger limit
extends a smaller one (a resume may raise the limit). Units are taken whole, the last one cut so that the
sample holds exactly N episodes, and the chosen episodes keep their dataset order and positions (record indices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from heedful.seeding import derive_rng

Order = Literal["stratified", "file"]
ORDERS: tuple[Order, ...] = ("stratified", "file")

Unit = tuple[str, list[int]]
"""(stratum, dataset positions of the unit's episodes)."""


def sample_positions(units: Sequence[Unit], limit: int, seed: int) -> list[int]:
    """Dataset positions of `limit` episodes: whole units in stratified order, the last one cut to fit; sorted."""
    strata: dict[str, list[list[int]]] = {}
    for stratum, positions in units:
        strata.setdefault(stratum, []).append(list(positions))
    keyed: list[tuple[float, float, int, list[int]]] = []
    for stratum, members in sorted(strata.items()):
        rng = derive_rng(seed, "sample", stratum)
        order = rng.permutation(len(members))
        tie = float(rng.random())  # strata of one size interleave in a seeded order, not by name
        for k, member in enumerate(order):
            keyed.append((k / len(members), tie, k, members[int(member)]))
    keyed.sort(key=lambda item: item[:3])
    chosen: list[int] = []
    for *_, positions in keyed:
        if len(chosen) >= limit:
            break
        chosen += positions[: limit - len(chosen)]  # exactly `limit`: only the last unit may be cut short
    return sorted(chosen)


def one_unit_per_episode(count: int, stratum: str = "all") -> list[Unit]:
    """Every episode its own unit, all in one stratum (a seeded simple random sample)."""
    return [(stratum, [i]) for i in range(count)]
