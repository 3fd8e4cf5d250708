"""One number of a report with its uncertainty, and the status rows every suite's report starts with.

This module imports no suite: metrics, reports and suites all build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any

from heedful.records import Record, Status

STATUS_GROUP = "status"
"""The group of the rows that count records by status (ok, parse_error, crashed, ...)."""


@dataclass(frozen=True)
class MetricRow:
    """One number of a report, with its uncertainty.

    `ci_low` / `ci_high` come from the bootstrap named in `ci_method`; `wilson_low` / `wilson_high`
    treat the `n` units as independent and stay informative where percentile intervals collapse.
    `k` is the raw count of successes where the metric is a proportion. `chance` is the exact score of an agent
    that ignores what the suite tests (heedful.metrics.chance), None where the suite defines none.
    """

    metric: str
    group: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    _: KW_ONLY
    ci_method: str
    """How `ci_low` / `ci_high` were made (e.g. "family bootstrap", "episode bootstrap"); "none" without them."""
    k: int | None = None
    wilson_low: float | None = None
    wilson_high: float | None = None
    unit: str = "instance"
    chance: float | None = None

    @property
    def collapsed(self) -> bool:
        """The bootstrap interval is one point ([50.0, 50.0]): every resample scored alike, which is not certainty."""
        return collapsed(self.ci_low, self.ci_high)

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "group": self.group,
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "k": self.k,
            "wilson_low": self.wilson_low,
            "wilson_high": self.wilson_high,
            "unit": self.unit,
            "ci_method": self.ci_method,
            "chance": self.chance,
        }


def collapsed(low: float | None, high: float | None) -> bool:
    """Whether an interval is one point (to 4 decimals): a bootstrap whose every resample gave the same value."""
    return low is not None and high is not None and round(low, 4) == round(high, 4)


def status_rows(records: Sequence[Record], unit: str = "record") -> list[MetricRow]:
    """The share of records with each status that occurs (no interval: these are counts, not estimates)."""
    n = len(records)
    counts = {status: sum(1 for r in records if r.status is status) for status in Status}
    return [
        MetricRow(
            metric=status.value,
            group=STATUS_GROUP,
            value=k / n if n else None,
            ci_low=None,
            ci_high=None,
            n=n,
            k=k,
            unit=unit,
            ci_method="none",
        )
        for status, k in counts.items()
        if k
    ]
