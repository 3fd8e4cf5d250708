"""What a suite measures, declared once: the metric spec its report and its comparison are computed from.

A suite's metrics module holds one `MetricSpec`; its report computes one row per declared metric and group
(in spec order), its comparison pairs the metrics marked `compared`, `heedful list SUITE` prints the spec, and
`heedful check suite` fails a report that emits a metric the spec does not declare. Adding a metric to a suite
is one entry in that spec (with the function that computes it from records), in one file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from heedful.errors import RunError
from heedful.metrics.rows import STATUS_GROUP, MetricRow
from heedful.metrics.usage import USAGE_GROUP
from heedful.records import Record


@dataclass(frozen=True)
class Metric:
    """One number a suite reports per group."""

    name: str
    """The row's `metric` field, e.g. "accuracy"."""
    description: str
    """One sentence a researcher reads in `heedful list SUITE`."""
    unit: str
    """What the row's `n` counts (instance, pair, family, episode, task)."""
    compared: bool = True
    """Whether `heedful compare` reports its paired difference."""
    higher_is_better: bool = True


@dataclass(frozen=True, kw_only=True)
class RecordMetric(Metric):
    """A metric that is a mean over records of one number per record (household and tabletop metrics)."""

    value: Callable[[Record], float]
    """The metric's value for one scored record."""
    binary: bool = False
    """The value is 0 or 1: its rows get a Wilson interval over records (heedful.metrics.engine)."""


M = TypeVar("M", bound=Metric)


@dataclass(frozen=True)
class MetricSpec:
    """The ordered metrics of a suite; rows of the status and usage groups are common to every suite."""

    metrics: tuple[Metric, ...] = ()

    def __iter__(self) -> Iterator[Metric]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(metric.name for metric in self.metrics)

    def __getitem__(self, name: str) -> Metric:
        for metric in self.metrics:
            if metric.name == name:
                return metric
        raise KeyError(f"no metric {name!r}; the spec declares {list(self.names)}")

    def of_kind(self, kind: type[M]) -> tuple[M, ...]:
        """The metrics a computation of `kind` computes; a plain `Metric` declares rows another function makes."""
        return tuple(metric for metric in self.metrics if isinstance(metric, kind))

    def __add__(self, other: MetricSpec) -> MetricSpec:
        return MetricSpec(self.metrics + other.metrics)

    def compared(self) -> tuple[Metric, ...]:
        """The metrics `heedful compare` pairs, in spec order."""
        return tuple(metric for metric in self.metrics if metric.compared)

    def undeclared(self, rows: Sequence[MetricRow]) -> list[str]:
        """Metric names of `rows` (outside the status and usage groups) that the spec does not declare."""
        known = set(self.names)
        found = {row.metric for row in rows if row.group not in (STATUS_GROUP, USAGE_GROUP)}
        return sorted(found - known)

    def check(self, rows: Sequence[MetricRow], suite: str) -> None:
        """Raise RunError when a report emits a metric its suite's spec does not declare."""
        unknown = self.undeclared(rows)
        if unknown:
            raise RunError(
                f"suite {suite!r} reported metrics {unknown} that its metric_spec does not declare; "
                f"add them to the suite's MetricSpec (declared: {list(self.names)})"
            )
