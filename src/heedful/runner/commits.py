"""Group commits: the runner writes records in batches, not one SQLite transaction per record.

A commit costs about as much as rolling out a cheap episode (a decisions oracle answer), so committing each
record made the harness the larger part of such a run. Records are batched until `CommitPolicy.records` are
pending or `CommitPolicy.seconds` have passed since the last commit, whichever comes first, and every exit
(the end, Ctrl-C, a budget stop, a failed worker) commits what is pending. A SIGKILL loses at most the
pending batch: those episodes have no record, so `--resume` runs them again and nothing is duplicated.

The clock is read when a record arrives: with slow episodes (over `seconds` each, such as a language model
or a simulator) every record is committed as it arrives, as before.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from heedful.errors import ConfigError
from heedful.records import Record
from heedful.runner.store import RunStore


@dataclass(frozen=True)
class CommitPolicy:
    """Commit every `records` records, or `seconds` after the last commit, whichever comes first."""

    records: int = 64
    seconds: float = 0.5

    def __post_init__(self) -> None:
        if self.records < 1 or not self.seconds >= 0:
            raise ConfigError(
                f"a commit policy needs records >= 1 and seconds >= 0, got records={self.records}, "
                f"seconds={self.seconds}"
            )


EACH_RECORD = CommitPolicy(records=1, seconds=0.0)
"""One transaction per record (the behaviour before group commits)."""


@dataclass
class BatchedWriter:
    """Collects records for `store` and commits them in batches by `policy` (call `flush` on every exit)."""

    store: RunStore
    producer: str | None
    policy: CommitPolicy = field(default_factory=CommitPolicy)
    pending: list[Record] = field(default_factory=list)
    committed: int = 0
    _last_commit: float = field(default_factory=time.monotonic)

    def add(self, records: Iterable[Record]) -> None:
        self.pending.extend(records)
        due = time.monotonic() - self._last_commit >= self.policy.seconds
        if len(self.pending) >= self.policy.records or (self.pending and due):
            self.flush()

    def flush(self) -> None:
        """Commit every pending record in one transaction."""
        if self.pending:
            self.store.put_many(self.pending, self.producer)
            self.committed += len(self.pending)
            self.pending = []
        self._last_commit = time.monotonic()
