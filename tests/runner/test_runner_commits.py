"""Group commits: BatchedWriter commits by count, by time, and whatever is pending on flush."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from heedful.errors import ConfigError
from heedful.records import Record, Status
from heedful.runner import RunStore
from heedful.runner.commits import EACH_RECORD, BatchedWriter, CommitPolicy


def _records(start: int, n: int) -> list[Record]:
    return [Record(episode_id=f"ep-{i}", index=i, status=Status.OK) for i in range(start, start + n)]


def _stored(path: Path) -> int:
    with RunStore(path) as reader:  # a second connection sees only committed rows
        return len(reader)


def test_records_are_committed_every_n_records_and_on_flush(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        writer = BatchedWriter(store, "run-1", CommitPolicy(records=4, seconds=3600))
        writer.add(_records(0, 3))
        assert _stored(tmp_path) == 0 and len(writer.pending) == 3
        writer.add(_records(3, 2))  # the 4th and 5th: one commit of all five
        assert _stored(tmp_path) == 5 and writer.committed == 5 and not writer.pending
        writer.add(_records(5, 1))
        writer.flush()
        assert _stored(tmp_path) == 6 and store.producers() == {"run-1": 6}


def test_a_record_arriving_after_the_interval_commits_everything_pending(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        writer = BatchedWriter(store, None, CommitPolicy(records=100, seconds=0.05))
        writer.flush()  # starts the clock
        writer.add(_records(0, 2))
        assert _stored(tmp_path) == 0
        time.sleep(0.06)  # a slow episode: its record is committed as it arrives, with those pending
        writer.add(_records(2, 1))
        assert _stored(tmp_path) == 3


def test_each_record_policy_commits_every_record(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        writer = BatchedWriter(store, None, EACH_RECORD)
        for record in _records(0, 3):
            writer.add([record])
            assert _stored(tmp_path) == record.index + 1


@pytest.mark.parametrize(("records", "seconds"), [(0, 1.0), (8, -1.0), (8, float("nan"))])
def test_a_policy_that_never_commits_is_refused(records: int, seconds: float) -> None:
    with pytest.raises(ConfigError, match="records >= 1 and seconds >= 0"):
        CommitPolicy(records=records, seconds=seconds)
