"""Language tags of the tabletop tasks (issue 38): what each instruction demands beyond nouns."""

from __future__ import annotations

from heedful.suites.tabletop.language_tags import TAGS, tag_mix, tag_table, task_tags
from heedful.suites.tabletop.registry import evaluation_tasks

TASKS = list(evaluation_tasks())


def test_every_task_has_tags_and_nouns_only_when_nothing_else() -> None:
    for t in TASKS:
        tags = task_tags(t)
        assert tags and set(tags) <= set(TAGS)
        assert ("nouns" in tags) == (tags == ("nouns",))


def test_the_tags_follow_the_spec() -> None:
    by = {t.task: task_tags(t) for t in TASKS}
    assert by["s2_L0_004_stack"] == ("nouns",)
    assert "spatial" in by["s1_L0_004_place_relative"]
    assert all("route" in tags for name, tags in by.items() if name.startswith("s3_"))
    avoid = [t for t in TASKS if t.grounded.route_mode == "avoid"]
    assert avoid and all("negation" in task_tags(t) for t in avoid)
    assert all("conditional" in task_tags(t) for t in TASKS if t.spec.condition is not None)
    assert all("order" in task_tags(t) for t in TASKS if t.action == "sequence_pickups")
    smaller = [t for t in TASKS if t.spec.goal.source.size_cmp is not None]
    assert smaller and all("comparative" in task_tags(t) for t in smaller)


def test_the_mix_table_covers_every_task() -> None:
    mix = tag_mix(TASKS)
    assert len(mix) == 16
    assert sum(1 for line in tag_table(TASKS).splitlines() if line.startswith("| S")) == 16
