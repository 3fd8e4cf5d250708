"""How big an object is, for rankings by size ("the two biggest red things", "all but the smallest one").

A person ranks by size only where the difference is plain to see. One object is clearly bigger than another
when it has at least SIZE_RATIO times the other's volume and is at least as long in its longest extent: a 6 cm
cube is clearly bigger than a 4 cm ball, but not than a 16 cm bar (thinner, yet much longer), and a 6 cm ball
is not clearly bigger than a 4 x 6 cm cylinder (1.5 times the volume). A pair neither of which is clearly
bigger ties, so a size ranking with a tie at its cut has two answers, which the solver refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import pi

from heedful.errors import DatasetError
from heedful.suites.decisions.model import Candidate
from heedful.world.footprints import BOX_SHAPES, SHAPE_DIMS

SIZE_RATIO = 1.6


def _dims(shape: str, size: str) -> tuple[float, ...]:
    try:
        return SHAPE_DIMS[shape][size]
    except KeyError:
        raise DatasetError(
            f"cannot rank a {size} {shape} by size: sizes are known for "
            f"{', '.join(sorted(SHAPE_DIMS))} in small or large"
        ) from None


def volume(shape: str, size: str) -> float:
    """Volume in cubic meters (a bowl or label counts as its solid outline; candidates never rank them)."""
    dims = _dims(shape, size)
    if shape in BOX_SHAPES:
        return 8 * dims[0] * dims[1] * dims[2]
    if len(dims) == 1:  # sphere
        return 4 / 3 * pi * dims[0] ** 3
    return pi * dims[0] ** 2 * 2 * dims[1]  # cylinder, bowl: (radius, half height)


def longest_extent(shape: str, size: str) -> float:
    """The longest of the object's width, depth and height, in meters."""
    return 2 * max(_dims(shape, size))  # boxes: half extents; sphere: radius; cylinder: radius, half height


def clearly_bigger(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether the object with attributes `a` (shape, size) is clearly bigger than the one with `b`."""
    (sa, za), (sb, zb) = (a.get("shape", "?"), a.get("size", "?")), (b.get("shape", "?"), b.get("size", "?"))
    return volume(sa, za) >= SIZE_RATIO * volume(sb, zb) and longest_extent(sa, za) >= longest_extent(sb, zb)


def size_cut(candidates: Sequence[Candidate], members: Sequence[str], k: int, biggest: bool) -> list[str] | None:
    """The `k` biggest (or smallest) of `members` when each of them is clearly bigger (smaller) than every other
    member, else None: only then does "the k biggest" name one set."""
    by_id = {c.id: c for c in candidates}
    order = sorted(members, key=lambda i: volume(by_id[i].attrs["shape"], by_id[i].attrs["size"]), reverse=biggest)
    chosen, rest = order[:k], order[k:]
    pairs = [(by_id[c].attrs, by_id[r].attrs) for c in chosen for r in rest]
    if all(clearly_bigger(c, r) if biggest else clearly_bigger(r, c) for c, r in pairs):
        return sorted(chosen)
    return None
