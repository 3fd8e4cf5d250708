"""The re-instruction table from records: switched, new-task success, kept the old task, old task done at the switch."""

from __future__ import annotations

import pytest

from heedful.metrics.reinstruct import render_switch_table, switch_rows
from heedful.records import Record, Status


def _record(i: int, correct: bool, level: str, **scores: float) -> Record:
    keys = {"level": level, "task": f"t{i}"}
    return Record(episode_id=f"e{i}", index=i, status=Status.OK, keys=keys, correct=correct, scores=scores)


def test_rates_per_group() -> None:
    records = [
        _record(0, True, "L0", switched=1.0, kept_old_task=0.0, old_done_at_switch=1.0),
        _record(1, False, "L0", switched=1.0, kept_old_task=1.0, old_done_at_switch=0.0),
        _record(2, False, "L1", switched=0.0, kept_old_task=1.0, old_done_at_switch=0.0),
        _record(3, True, "L1"),  # no switch scores: not a re-instructed record, left out
    ]
    rows = {row.group: row for row in switch_rows("level", records)}
    assert [rows["all"].n, rows["L0"].n, rows["L1"].n] == [3, 2, 1]
    assert rows["all"].switched == pytest.approx(2 / 3) and rows["all"].success == pytest.approx(1 / 3)
    assert rows["all"].kept_old == pytest.approx(2 / 3) and rows["L0"].old_done == 0.5
    text = render_switch_table(list(rows.values()), "at=0.5")
    assert "Re-instruction (at=0.5)" in text and "kept old task" in text
