"""Exact solver: enumerates every well-formed decision and keeps those satisfying all constraints.

Membership is checked over all non-empty subsets (bitmasks, at most 2^7 - 1 of them); orders are then
checked over the permutations of each admissible subset. A task is valid only when exactly one decision
survives, so ambiguity (two objects tied in a ranking, an order left open, a group that is too large)
shows up as more than one solution instead of being resolved silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from math import hypot

from heedful.suites.decisions.model import (
    Before,
    Candidate,
    Count,
    Decision,
    Exclude,
    Exhaustive,
    Inhibit,
    OrderBy,
    Prefer,
    Scope,
    Task,
)
from heedful.suites.decisions.sizes import clearly_bigger

# Two positions closer than this along a ranking axis count as tied: a person could not tell them apart.
RANK_MARGIN = 0.03


def _position(candidate: Candidate, key: str, origin: tuple[float, float] | None = None) -> float:
    if key == "distance" and origin is not None:
        return float(hypot(candidate.x - origin[0], candidate.y - origin[1]))
    return candidate.x if key == "x" else candidate.y


def _clearly_ahead(
    a: Candidate, b: Candidate, key: str, descending: bool, origin: tuple[float, float] | None = None
) -> bool:
    """True when `a` ranks before `b` by more than the margin (by size: when it is clearly bigger or smaller)."""
    if key == "size":
        return clearly_bigger(a.attrs, b.attrs) if descending else clearly_bigger(b.attrs, a.attrs)
    delta = _position(a, key, origin) - _position(b, key, origin)
    return delta > RANK_MARGIN if descending else delta < -RANK_MARGIN


def _allowed_mask(candidates: Sequence[Candidate], task: Task) -> int:
    mask = (1 << len(candidates)) - 1
    for c in task.constraints:
        if isinstance(c, Scope):
            mask &= _mask_of(candidates, lambda cand, p=c.predicate: p.matches(cand))
        elif isinstance(c, Exclude):
            mask &= ~_mask_of(candidates, lambda cand, p=c.predicate: p.matches(cand))
        elif isinstance(c, Inhibit):
            mask &= ~_mask_of(candidates, lambda cand, i=c.candidate: cand.id == i)
    return mask


def _mask_of(candidates: Sequence[Candidate], keep: object) -> int:
    mask = 0
    for i, cand in enumerate(candidates):
        if keep(cand):  # type: ignore[operator]
            mask |= 1 << i
    return mask


def _members(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if mask >> i & 1]


def _membership_ok(subset: int, allowed: int, candidates: Sequence[Candidate], task: Task) -> bool:
    if subset & ~allowed:
        return False
    size = subset.bit_count()
    ids = {candidates[i].id for i in _members(subset, len(candidates))}
    for c in task.constraints:
        if isinstance(c, Exhaustive) and subset != allowed:
            return False
        if isinstance(c, Count) and size != c.k:
            return False
        if isinstance(c, Before) and not {c.first, c.then} <= ids:
            return False
        if isinstance(c, Prefer) and not _is_prefix(subset, allowed, candidates, c):
            return False
    return True


def _is_prefix(subset: int, allowed: int, candidates: Sequence[Candidate], rule: Prefer) -> bool:
    """No allowed-but-unchosen candidate ranks clearly ahead of a chosen one."""
    n = len(candidates)
    chosen = [candidates[i] for i in _members(subset, n)]
    rest = [candidates[i] for i in _members(allowed & ~subset, n)]
    return not any(_clearly_ahead(u, c, rule.key, rule.descending, rule.origin) for u in rest for c in chosen)


def _order_ok(sequence: Sequence[Candidate], task: Task) -> bool:
    position = {cand.id: i for i, cand in enumerate(sequence)}
    for c in task.constraints:
        if isinstance(c, Before) and position[c.first] > position[c.then]:
            return False
        if isinstance(c, OrderBy):
            for i, earlier in enumerate(sequence):
                if any(_clearly_ahead(later, earlier, c.key, c.descending) for later in sequence[i + 1 :]):
                    return False
    return True


def solve(candidates: Sequence[Candidate], task: Task) -> list[Decision]:
    """Return every decision that satisfies the task, in a deterministic order.

    Single decisions are candidate ids, sets are sorted id lists, sequences are ordered id lists.
    """
    n = len(candidates)
    allowed = _allowed_mask(candidates, task)
    solutions: list[Decision] = []
    for subset in range(1, 1 << n):
        if task.decision_type == "single" and subset.bit_count() != 1:
            continue
        if not _membership_ok(subset, allowed, candidates, task):
            continue
        members = [candidates[i] for i in _members(subset, n)]
        if task.decision_type == "single":
            solutions.append(members[0].id)
        elif task.decision_type == "set":
            solutions.append(sorted(c.id for c in members))
        else:
            solutions.extend([c.id for c in perm] for perm in permutations(members) if _order_ok(perm, task))
    return solutions


def unique_solution(candidates: Sequence[Candidate], task: Task) -> Decision | None:
    """The gold decision if the task has exactly one solution, else None."""
    found = solve(candidates, task)
    return found[0] if len(found) == 1 else None
