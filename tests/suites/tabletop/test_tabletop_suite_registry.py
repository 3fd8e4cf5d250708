"""The task registry: exact counts, training configurations and paraphrases, no leakage, changed layouts."""

from __future__ import annotations

from collections import Counter

import pytest

from heedful.suites.tabletop import registry
from heedful.suites.tabletop.dataset import inconsistency
from heedful.suites.tabletop.language import normalize
from heedful.suites.tabletop.registry import evaluation_tasks, training_tasks
from heedful.suites.tabletop.suite import SUITE

# RoboFollow's evaluation counts per scene (L0, L1, L2, L3).
PER_SCENE = {1: (16, 8, 16, 76), 2: (16, 24, 68, 24), 3: (16, 40, 64, 96), 4: (27, 14, 25, 24)}
LEVELS = ("L0", "L1", "L2", "L3")


def test_evaluation_counts_per_scene_and_level_are_exact() -> None:
    tasks = evaluation_tasks()
    counts = Counter((t.scene, t.level) for t in tasks)
    for scene, row in PER_SCENE.items():
        assert tuple(counts[(scene, level)] for level in LEVELS) == row, scene
    assert [sum(counts[(s, lv)] for s in PER_SCENE) for lv in LEVELS] == [75, 86, 173, 220]
    assert len(tasks) == 554
    assert len({t.task for t in tasks}) == 554


def test_training_has_75_labels_in_six_configurations_with_about_three_paraphrases() -> None:
    train = training_tasks()
    assert len(train) == 75 and len({t.label for t in train}) == 75
    sizes = Counter(t.config for t in train)
    assert sorted(sizes.values(), reverse=True) == [16, 16, 16, 16, 7, 4]
    assert len({t.layout.digest() for t in train}) == 6  # six task-independent initial scenes
    assert all(len(t.paraphrases) == 3 and len(set(t.paraphrases)) == 3 for t in train)
    phrasings = [normalize(p) for t in train for p in t.paraphrases]
    assert len(phrasings) == len(set(phrasings)), "two training labels share a phrasing"


def test_training_branches_of_a_configuration_are_kinematically_distinct() -> None:
    for config in {t.config for t in training_tasks()}:
        goals = [t.grounded.model_copy(update={"branch": None}) for t in training_tasks() if t.config == config]
        distinct = len(set(goals))
        if config == "s3/default":  # short side front == long side right: 8 distinct motions, 16 labels
            assert distinct == 8
        else:
            assert distinct == len(goals), config


def test_no_l2_or_l3_phrasing_appears_in_training() -> None:
    seen = {normalize(p) for t in training_tasks() for p in t.paraphrases}
    held = [t for t in evaluation_tasks() if t.level in ("L2", "L3")]
    assert len(held) == 173 + 220
    leaks = [t.task for t in held if normalize(t.instruction) in seen]
    assert leaks == []


def test_l0_and_l1_keep_training_phrasings_and_l1_l3_layouts_differ_from_training() -> None:
    train = {t.label: t for t in training_tasks()}
    training_digests = {t.layout.digest() for t in train.values()}
    for t in evaluation_tasks():
        if t.level in ("L0", "L1"):
            assert t.training_label is not None and t.instruction in train[t.training_label].paraphrases
        if t.level in ("L0", "L2"):
            assert t.layout.digest() in training_digests, t.task
        else:
            assert t.layout.digest() not in training_digests, t.task


def test_every_l1_task_changes_what_the_policy_must_do() -> None:
    """Same words, but other objects, another branch, or the objects involved stand elsewhere."""
    train = {t.label: t for t in training_tasks()}
    for t in (t for t in evaluation_tasks() if t.level == "L1"):
        before = train[str(t.training_label)]
        g = t.grounded
        involved = {n for n in (g.source, g.second, g.target, *g.allowed_bars) if n}
        old = {o.name: (o.x, o.y) for o in before.layout.objects}
        moved = any(old.get(o.name) != (o.x, o.y) for o in t.layout.objects if o.name in involved)
        assert g != before.grounded or moved, t.task
    flipped = [t for t in evaluation_tasks() if t.level == "L1" and t.grounded.branch]
    assert sum(t.grounded.branch != train[str(t.training_label)].grounded.branch for t in flipped) >= 5


def test_every_task_grounds_as_stated_and_carries_the_dataset_fields() -> None:
    for t in evaluation_tasks():
        assert inconsistency(t) is None
        line = t.model_dump(mode="json")
        assert {"task", "scene", "level", "config", "instruction"} <= set(line)
    pairs = [(t.config, normalize(t.instruction)) for t in evaluation_tasks()]
    assert len(pairs) == len(set(pairs))


def test_the_registry_is_deterministic_and_independent_of_the_seed() -> None:
    first = [t.model_dump_json() for t in evaluation_tasks()]
    registry.evaluation_tasks.cache_clear()
    registry.training_tasks.cache_clear()
    again = [t.model_dump_json() for t in SUITE.generate(seed=123)]
    assert first == again


def test_generation_rejects_settings() -> None:
    from heedful.errors import ConfigError

    with pytest.raises(ConfigError, match="takes no settings"):
        SUITE.generate(0, {"tasks": 3})
