"""The solver on hand-built states, including the ambiguities it must expose."""

from __future__ import annotations

import pytest

from heedful.errors import DatasetError
from heedful.suites.decisions.model import (
    Before,
    Candidate,
    Count,
    Exclude,
    Exhaustive,
    Inhibit,
    OrderBy,
    Predicate,
    Prefer,
    Scope,
    Task,
)
from heedful.suites.decisions.solver import solve, unique_solution


def obj(cid: str, color: str, shape: str, x: float, y: float = 0.5) -> Candidate:
    return Candidate(
        id=cid,
        kind="object",
        text=f"{color} {shape}",
        attrs={"color": color, "shape": shape, "size": "small"},
        x=x,
        y=y,
        object=cid,
    )


ROW = [
    obj("o1", "red", "cube", -0.2),
    obj("o2", "red", "sphere", 0.0),
    obj("o3", "blue", "cube", 0.2),
    obj("o4", "blue", "sphere", 0.1, 0.6),
]
RED = Predicate(field="color", values=("red",))


def task(kind: str, *constraints) -> Task:  # type: ignore[no-untyped-def]
    return Task(decision_type=kind, constraints=constraints)  # type: ignore[arg-type]


def test_inhibition_leaves_the_single_other_member_of_the_group() -> None:
    assert solve(ROW, task("single", Scope(predicate=RED), Inhibit(candidate="o1"))) == ["o2"]


def test_a_group_too_large_for_the_inhibition_is_not_unique() -> None:
    assert len(solve(ROW, task("single", Inhibit(candidate="o1")))) == 3
    assert unique_solution(ROW, task("single", Inhibit(candidate="o1"))) is None


def test_exclusion_and_retention_are_exhaustive_sets() -> None:
    assert solve(ROW, task("set", Exclude(predicate=RED), Exhaustive())) == [["o3", "o4"]]
    assert solve(ROW, task("set", Scope(predicate=RED), Exhaustive())) == [["o1", "o2"]]


def test_cardinality_can_rank_by_distance_to_a_landmark() -> None:
    # o4 sits at (0.1, 0.6): o3 (0.2, 0.5) is nearest it, then o2 (0.0, 0.5), then o1
    near = Prefer(key="distance", descending=False, landmark="o4", origin=(0.1, 0.6))
    assert solve(ROW[:3], task("set", Count(k=2), near)) == [["o2", "o3"]]
    far = Prefer(key="distance", descending=True, landmark="o4", origin=(0.1, 0.6))
    assert solve(ROW[:3], task("set", Count(k=1), far)) == [["o1"]]
    tied = Prefer(key="distance", descending=False, landmark="m", origin=(0.0, 0.9))  # o1 and o3 equally far
    assert len(solve([ROW[0], ROW[2]], task("set", Count(k=1), tied))) == 2
    with pytest.raises(ValueError, match="landmark"):
        Prefer(key="distance", descending=False)
    assert "landmark" not in Prefer(key="x", descending=False).model_dump()  # positional ranks serialize as before


def sized(cid: str, shape: str, size: str) -> Candidate:
    attrs = {"color": "red", "shape": shape, "size": size}
    return Candidate(id=cid, kind="object", text=f"{size} {shape}", attrs=attrs, x=0.0, y=0.5, object=cid)


def test_cardinality_can_rank_by_size_where_a_person_would_see_it() -> None:
    # a 6 cm cube is clearly bigger than a 4 cm ball and a 4 x 6 cm cylinder; it ties with a 16 cm bar (less
    # volume than twice but much longer) and with a 6 cm ball (1.9 times the volume but not longer than it)
    cube, ball = sized("o1", "cube", "large"), sized("o2", "sphere", "small")
    cylinder, bar = sized("o3", "cylinder", "small"), sized("o4", "bar", "small")
    biggest = Prefer(key="size", descending=True)
    assert solve([cube, ball, cylinder], task("set", Count(k=1), biggest)) == [["o1"]]
    assert solve([cube, ball, cylinder], task("set", Count(k=1), Prefer(key="size", descending=False))) == [["o2"]]
    assert len(solve([cube, ball, bar], task("set", Count(k=1), biggest))) == 2  # cube and bar tie
    assert solve([cube, ball, bar], task("set", Count(k=2), biggest)) == [["o1", "o4"]]  # the tie is not at the cut
    big_ball = sized("o5", "sphere", "large")
    assert solve([cube, big_ball, ball], task("set", Count(k=1), biggest)) == [["o1"]]
    assert len(solve([big_ball, cylinder, ball], task("set", Count(k=1), Prefer(key="size", descending=False)))) == 1
    assert len(solve([big_ball, cylinder, ball], task("set", Count(k=1), biggest))) == 2  # 1.5 times: a tie
    with pytest.raises(DatasetError, match="cannot rank a small pyramid by size"):
        solve([cube, sized("o6", "pyramid", "small")], task("set", Count(k=1), biggest))


def test_cardinality_takes_the_top_k_of_a_ranking() -> None:
    leftmost_two = task("set", Count(k=2), Prefer(key="x", descending=False))
    assert solve(ROW, leftmost_two) == [["o1", "o2"]]
    rightmost_two = task("set", Count(k=2), Prefer(key="x", descending=True))
    assert solve(ROW, rightmost_two) == [["o3", "o4"]]


def test_a_tie_in_the_ranking_makes_the_decision_ambiguous() -> None:
    tied = [*ROW[:3], obj("o4", "blue", "sphere", 0.01)]  # 1 cm from o2: within the margin
    assert len(solve(tied, task("set", Count(k=2), Prefer(key="x", descending=False)))) == 2


def test_cardinality_with_inhibition_skips_the_prohibited_candidate() -> None:
    t = task("set", Inhibit(candidate="o1"), Count(k=2), Prefer(key="x", descending=False))
    assert solve(ROW, t) == [["o2", "o4"]]


def test_explicit_order_and_its_reversal() -> None:
    pair = Scope(predicate=Predicate(field="id", values=("o1", "o3")))
    assert solve(ROW, task("sequence", pair, Exhaustive(), Before(first="o3", then="o1"))) == [["o3", "o1"]]
    assert solve(ROW, task("sequence", pair, Exhaustive(), Before(first="o1", then="o3"))) == [["o1", "o3"]]


def test_rule_order_sorts_the_group() -> None:
    t = task(
        "sequence",
        Scope(predicate=Predicate(field="shape", values=("cube", "sphere"))),
        Exhaustive(),
        OrderBy(key="x", descending=True),
    )
    assert solve(ROW, t) == [["o3", "o4", "o2", "o1"]]


def test_a_sequence_without_an_order_is_not_unique() -> None:
    assert len(solve(ROW, task("sequence", Scope(predicate=RED), Exhaustive()))) == 2
