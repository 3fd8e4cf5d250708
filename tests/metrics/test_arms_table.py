"""The language-dependence table from records: scores, paired differences to `given`, following rates."""

from __future__ import annotations

import pytest

from heedful.arms_job import arms_view
from heedful.metrics.arms import ArmsView, language_dependence, render_language_table
from heedful.records import Record, Status
from heedful.suites.tabletop.metrics import SCORING as TABLETOP

VIEW = TABLETOP.arms


def _record(i: int, correct: bool, level: str = "L0", **scores: float) -> Record:
    keys = {"level": level, "task": f"t{i // 2}"}
    return Record(episode_id=f"e{i}", index=i, status=Status.OK, keys=keys, correct=correct, scores=scores)


def test_a_language_blind_agent_has_no_difference_between_arms() -> None:
    same = [_record(i, i % 3 == 0) for i in range(30)]
    rows = language_dependence(VIEW, {"given": same, "empty": same, "shuffled": same}, resamples=200)
    for row in rows:
        assert row.score == pytest.approx(10 / 30 if row.group == "all" else row.score)
        if row.arm != "given":
            assert (row.diff, row.diff_ci) == (0.0, (0.0, 0.0))
            assert row.paired == row.n


def test_scores_differences_and_following_rates() -> None:
    given = [_record(i, True, "L0" if i < 10 else "L1") for i in range(20)]
    empty = [_record(i, i < 5, "L0" if i < 10 else "L1") for i in range(20)]
    other = [
        _record(i, False, "L0" if i < 10 else "L1", followed_given=float(i % 4 != 0), followed_scene=0.0)
        for i in range(20)
    ]
    crashed = Record(episode_id="e99", index=99, status=Status.CRASHED, keys={"level": "L0"}, error="boom")
    rows = language_dependence(VIEW, {"other": other, "given": given, "empty": [*empty, crashed]}, resamples=500)
    assert [r.arm for r in rows[:3]] == ["given", "empty", "other"]  # arms in their canonical order
    overall = {r.arm: r for r in rows if r.group == "all"}
    assert overall["empty"].n == 20 and overall["empty"].score == 0.25  # the crash is not scored
    assert overall["empty"].diff == pytest.approx(-0.75)
    low, high = overall["empty"].diff_ci
    assert low is not None and high is not None and low < -0.75 < high <= -0.5
    assert overall["other"].followed_given == 0.75 and overall["other"].followed_scene == 0.0
    assert overall["given"].diff is None and overall["given"].followed_given is None
    by_level = {(r.group, r.arm): r for r in rows}
    assert by_level[("L1", "empty")].score == 0.0 and by_level[("L0", "empty")].score == 0.5
    text = render_language_table(VIEW, rows, "title")
    assert "complete [95% CI]" in text and "followed given words" in text and "-75.0" in text


@pytest.mark.parametrize(
    ("suite", "want"),
    [
        ("decisions", ArmsView("category", "family_id", "family", "accuracy")),
        ("tabletop", ArmsView("level", "task", "task", "complete")),
        ("household", ArmsView("task_type", None, "episode", "success")),
    ],
)
def test_each_suite_declares_how_its_table_is_cut(suite: str, want: ArmsView) -> None:
    assert arms_view(suite) == want  # the suite's scoring says it; the metrics module names no suite
