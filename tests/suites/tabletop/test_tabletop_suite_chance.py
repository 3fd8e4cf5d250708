"""The exact chance level: every training branch of the configuration run in the task's layout."""

from __future__ import annotations

import pytest

from heedful.suites.tabletop.chance import BranchRuns, current, task_chance, training_branches
from heedful.suites.tabletop.registry import evaluation_tasks

SPHERES = [t for t in evaluation_tasks() if t.level == "L0" and t.base_config == "s4/spheres"]


def test_blind_branches_are_the_distinct_training_branches() -> None:
    sizes = {k: len(v) for k, v in training_branches().items()}
    assert sizes == {"s1/default": 16, "s2/default": 16, "s3/default": 8, "s4/bowl": 16, "s4/stack": 7, "s4/spheres": 4}


@pytest.mark.slow
def test_chance_of_a_four_branch_configuration() -> None:
    runs = BranchRuns(SPHERES)
    pickup = next(t for t in SPHERES if t.action == "pickup" and t.grounded.source == "blue_ball")
    # One branch of four picks the blue ball; the other three pick something else: 1/4 everywhere, and
    # those three carry off an object the task does not name (disturbed, issue 38).
    got = task_chance(pickup, runs)
    assert got == {**dict.fromkeys(got, 0.25), "disturbed": 0.75}
    # "The object that is not a ball, then the red ball": its own branch scores 1; "pick up the purple
    # cylinder" earns its source stage (0.4 intent and execution) but never lets go for the red ball.
    sequence = next(t for t in SPHERES if t.action == "sequence_pickups")
    got = task_chance(sequence, runs)
    assert (got["intent"], got["execution"], got["complete"]) == (pytest.approx(0.35), pytest.approx(0.35), 0.25)


def test_the_stored_chance_levels_are_current_for_every_task() -> None:
    # Fails when levels or scoring change: run `python -m heedful.suites.tabletop.chance` (a few minutes).
    _, stale = current(evaluation_tasks())
    assert stale == [], f"{len(stale)} tasks without a current chance level, e.g. {stale[:3]}"
