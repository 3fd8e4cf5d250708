"""What a command's exit code says about the runs it ran or read (docs/exit-codes.md holds the table).

A run exits 0 only when every planned episode is scored (`ok` or `parse_error`): a run of crashed episodes must not
look like a good one to a CI pipeline or a sweep. `--max-errors N` or `--max-errors P%` tolerates up to N (or P
percent of the planned) episodes that were not scored. `heedful report`, `merge` and `sweep` apply the same rule to
the runs they read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from heedful.errors import ConfigError

EXIT_OK = 0
"""Every planned episode has a scored record (or the unscored ones are within --max-errors)."""
EXIT_INPUT = 2
"""Bad input, or a run, dataset or cache refused (edited records, a different run): nothing was measured."""
EXIT_BUDGET = 3
"""The agent's budget (--max-cost, --max-requests) was spent: the run stopped, resumable with a larger one."""
EXIT_NOT_SCORED = 4
"""Episodes ended `crashed`, `timeout` or `interface_error`, more than --max-errors tolerates."""
EXIT_INCOMPLETE = 5
"""Fewer records than planned: the run (or a shard, or a sweep cell) did not finish."""
EXIT_ABORTED = 6
"""The run stopped itself: its first episodes all crashed with the same error (see `ABORT_AFTER`)."""
EXIT_INTERRUPTED = 130
"""Ctrl-C or SIGTERM: finished records are kept."""

ABORT_AFTER = 8
"""A run whose first ABORT_AFTER episodes all crash with one error stops (resumable) instead of recording more."""

FAILED_STATUSES = ("crashed", "timeout", "interface_error")


@dataclass(frozen=True)
class MaxErrors:
    """How many unscored episodes a run may hold and still exit 0: a count, or a fraction of the planned ones."""

    count: int = 0
    fraction: float | None = None

    def allows(self, failed: int, planned: int) -> bool:
        if self.fraction is not None:
            return failed <= math.floor(self.fraction * planned + 1e-9)
        return failed <= self.count

    def __str__(self) -> str:
        return f"{100 * self.fraction:g}%" if self.fraction is not None else str(self.count)


def parse_max_errors(text: str | None) -> MaxErrors:
    """`N` (a count) or `P%` (a percentage of the planned episodes); None or "" means 0.

    Raises:
        ConfigError: anything else.
    """
    if text is None or text == "":
        return MaxErrors()
    match = re.fullmatch(r"\s*(\d{1,9})(\.\d+)?\s*(%?)\s*", text)
    if match is None or (match.group(2) and not match.group(3)):
        raise ConfigError(f"--max-errors takes a count N or a percentage P% (e.g. 3 or 5%), got {text!r}")
    if match.group(3):
        percent = float(match.group(1) + (match.group(2) or ""))
        if percent > 100:
            raise ConfigError(f"--max-errors {text}: a percentage is at most 100%")
        return MaxErrors(fraction=percent / 100)
    return MaxErrors(count=int(match.group(1)))


@dataclass(frozen=True)
class Verdict:
    """A run's exit code and the one line that says why."""

    code: int
    line: str


def verdict(
    name: str,
    counts: Mapping[str, int],
    planned: int | None,
    state: str,
    errors: Mapping[str, int],
    max_errors: MaxErrors = MaxErrors(),
) -> Verdict:
    """The exit code of a run from its records' status counts, its plan and its state.

    `errors` counts the error texts of the unscored records (the most frequent is named).
    """
    mix = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()) if n) or "no records"
    held = sum(counts.values())
    failed = sum(counts.get(s, 0) for s in FAILED_STATUSES)
    if failed and not max_errors.allows(failed, planned or held):
        top, times = max(errors.items(), key=lambda item: (item[1], item[0])) if errors else ("unknown", failed)
        return Verdict(
            EXIT_NOT_SCORED,
            f"{name}: {failed} of {planned or held} episodes not scored ({mix}; --max-errors {max_errors}); "
            f"most frequent error ({times}x): {_short(top)}",
        )
    if (planned is not None and held < planned) or state != "finished":
        of = f" of {planned} planned" if planned is not None else ""
        return Verdict(EXIT_INCOMPLETE, f"{name}: incomplete, {held}{of} episodes have a record, state {state} ({mix})")
    return Verdict(EXIT_OK, f"{name}: {mix}")


def worst(codes: Iterable[int]) -> int:
    """The exit code of several runs: the most severe (input errors first, then aborted, not scored, incomplete)."""
    order = [EXIT_INPUT, EXIT_INTERRUPTED, EXIT_ABORTED, EXIT_BUDGET, EXIT_NOT_SCORED, EXIT_INCOMPLETE, EXIT_OK]
    given = set(codes)
    return next((code for code in order if code in given), EXIT_OK)


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 300 else line[:297] + "..."
