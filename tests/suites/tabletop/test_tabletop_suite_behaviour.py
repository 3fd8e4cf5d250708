"""Levels L1 and L3 change what the task involves: no training motion of the task still does it.

`training_motion_fits` judges from grounded positions; `test_tabletop_suite_motion_replay.py` replays the same
motions in MuJoCo.
"""

from __future__ import annotations

from collections import Counter

from heedful.suites.tabletop import scene3, scene4
from heedful.suites.tabletop.behaviour import training_motion_fits
from heedful.suites.tabletop.grounding import ground
from heedful.suites.tabletop.model import TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks, reference_motions, training_tasks


def _held(levels: tuple[str, ...]) -> list[TabletopTask]:
    return [t for t in evaluation_tasks() if t.level in levels]


def test_every_l1_and_l3_task_changes_source_target_reference_or_branch_against_every_training_motion() -> None:
    stale = [
        (t.task, name)
        for t in _held(("L1", "L3"))
        for g, layout, name in reference_motions(t)
        if training_motion_fits(g, layout, t.grounded, t.layout)
    ]
    assert stale == []
    assert len(_held(("L1", "L3"))) == 86 + 220


def test_l1_tasks_keep_the_training_phrasing_and_l3_tasks_name_the_training_task_they_rewrite() -> None:
    labels = {t.label: t for t in training_tasks()}
    for t in _held(("L1",)):
        assert t.derived_from == t.training_label and t.instruction in labels[str(t.training_label)].paraphrases
    for t in _held(("L2", "L3")):
        assert t.training_label is None and t.derived_from in labels and labels[t.derived_from].config == t.base_config


def test_l3_tasks_are_also_checked_against_their_own_spec_in_the_training_layout() -> None:
    with_spec = [t for t in _held(("L3",)) if any("this task's spec" in n for _, _, n in reference_motions(t))]
    # Every L3 spec of scenes 2-4 grounds in its training layout (an L2 task there); some scene 1
    # recombinations name a block by a relation that only the L1 layout has.
    assert {t.scene for t in _held(("L3",))} - {t.scene for t in with_spec} == set()
    assert all(t.scene == 1 for t in _held(("L3",)) if t not in with_spec)


def test_scene4_l1_flips_the_branch_in_most_conditionals_and_the_same_motion_branch_flip_is_excluded() -> None:
    train = {t.label: t for t in training_tasks()}
    l1 = [t for t in _held(("L1",)) if t.scene == 4 and t.grounded.branch]
    flips = Counter(t.grounded.branch != train[str(t.training_label)].grounded.branch for t in l1)
    assert flips[True] >= 5
    # "if the red ball is left of the blue ball pick up the red one, else the blue one", balls swapped:
    # the other branch picks the ball standing where the red one stood, so the training motion still fits.
    task = next(t for t in training_tasks() if t.config == "s4/spheres" and t.spec.condition is not None)
    layout = next(lay for _, lay in scene4.L1_LAYOUTS if lay.layout_id == "s4/spheres_swapped")
    g = ground(task.spec, layout)
    assert g.branch != task.grounded.branch and g.source != task.grounded.source
    assert training_motion_fits(task.grounded, task.layout, g, layout)
    assert not any(t.config == layout.layout_id and t.training_label == task.label for t in _held(("L1",)))


def test_the_motion_check_tells_a_moved_route_bar_from_an_unmoved_one() -> None:
    via_red = next(t for t in training_tasks() if t.scene == 3 and t.grounded.allowed_bars == ("red_bar",))
    # The same task in its own layout: the motion fits (the check can say yes).
    assert training_motion_fits(via_red.grounded, via_red.layout, via_red.grounded, via_red.layout)
    layouts = {lay.layout_id: lay for _, lay in scene3.L1_LAYOUTS}
    # Red and green bars swapped: "pass over the red bar" now crosses in the middle.
    moved = layouts["s3/swap_red_green"]
    assert not training_motion_fits(via_red.grounded, via_red.layout, ground(via_red.spec, moved), moved)
    # Green and yellow swapped: nothing this task involves moved, the motion still does it.
    same = layouts["s3/swap_green_yellow"]
    assert training_motion_fits(via_red.grounded, via_red.layout, ground(via_red.spec, same), same)


def test_scene1_l1_spatial_references_follow_the_anchors_to_other_objects() -> None:
    """RoboFollow's S1 L1: the same words now name another block or another target, not just the same
    object standing elsewhere (all 8 tasks)."""
    train = {t.label: t for t in training_tasks()}
    l1 = [t for t in _held(("L1",)) if t.scene == 1]
    assert len(l1) == 8
    assert all(t.grounded != train[str(t.training_label)].grounded for t in l1)
