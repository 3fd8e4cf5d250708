"""A suite's scoring, declared once: what it measures, how records group and how they are cut into sampling units.

The engine (heedful.metrics.engine) derives the report rows and the paired comparison of every suite from this
declaration. Sampling units are what the bootstrap weighs alike: a record (household episodes), the trials of one
task averaged first (tabletop's task macro), or a family's instances counted (decisions, `FamilyMetric`). Clusters
are what it resamples: units sharing a cluster id are drawn together (decisions: a family, or all families of an
anchor).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

import numpy as np
from numpy.typing import NDArray

from heedful.errors import RunError
from heedful.metrics.arms import ArmsView
from heedful.metrics.groups import ALL
from heedful.metrics.reference import GENERIC, Reference
from heedful.metrics.rows import MetricRow
from heedful.metrics.spec import Metric, MetricSpec, RecordMetric
from heedful.records import Record

WILSON_ONLY = "Wilson only"
"""The `ci_method` of rows without a bootstrap interval (a scoring with `intervals="wilson"`)."""
CLUSTER = "{cluster}"
"""In a bootstrap stream's name, the place of the cluster the report resamples (decisions: family or anchor)."""

Counts = NDArray[np.float64] | NDArray[np.int64]
"""Per-unit numerators or denominators: floats (means) or integer counts."""

GroupsOf = Callable[[Record], Sequence[str]]
ReferenceRows = tuple[Mapping[tuple[str, str], float], Sequence[MetricRow]]
"""(the reference level of each (group, metric), rows to append to the report)."""
"""The groups a record (and its unit) belongs to (heedful.metrics.groups names)."""


@dataclass(frozen=True)
class Units:
    """A run's records cut into sampling units: one line per unit, one column per metric.

    `num` / `den` hold each unit's numerator and denominator per metric: a mean metric's unit value over 1, or a
    count metric's successes over the units it counted (`counts`). A row's value is sum(num) / sum(den) over its
    group's units. Units are sorted by id, so nothing computed from them depends on record order.
    """

    ids: tuple[str, ...]
    clusters: Mapping[str, tuple[str, ...]]
    """Cluster name -> each unit's cluster id (one entry per unit)."""
    groups: tuple[frozenset[str], ...]
    records: tuple[tuple[Record, ...], ...]
    num: Counts
    den: Counts
    metrics: tuple[Metric, ...]
    counts: bool = False
    """num / den are integer counts (k successes of n units): rows carry k and a Wilson interval on them."""
    per_record: bool = False
    """Every unit is one record (a 0/1 metric's row then carries k, its records being its units)."""

    def group_names(self) -> set[str]:
        return set().union(*self.groups) if self.groups else set()

    def members(self, group: str) -> list[int]:
        """Positions of the units in `group`."""
        return [i for i, labels in enumerate(self.groups) if group in labels]

    def cluster_sums(self, group: str, cluster: str) -> tuple[Counts, Counts]:
        """Per-cluster sums of the units in `group`, sorted by cluster id; shape (clusters, metrics).

        Units with no denominator in any metric carry no information and are left out.
        """
        ids = np.asarray(self.clusters[cluster], dtype=object)
        keep = np.array([group in labels for labels in self.groups], dtype=bool)
        keep &= self.den.sum(axis=1) > 0
        _, inverse = np.unique(ids[keep], return_inverse=True)
        num = cast(Counts, np.zeros((int(inverse.max(initial=-1)) + 1, self.num.shape[1]), dtype=self.num.dtype))
        den = np.zeros_like(num)
        np.add.at(num, inverse, self.num[keep])
        np.add.at(den, inverse, self.den[keep])
        return num, den


UnitsOf = Callable[[Sequence[Record], MetricSpec, GroupsOf], Units]
"""How a suite cuts records into units, for the metrics of a spec."""


@dataclass(frozen=True)
class PerRecord:
    """Each scored record is a unit and its own cluster (household episodes, the fourth suite's episodes)."""

    cluster: str = "episode"

    def __call__(self, records: Sequence[Record], spec: MetricSpec, groups: GroupsOf) -> Units:
        scored = sorted((r for r in records if r.status.scored), key=lambda r: r.episode_id)
        metrics = spec.of_kind(RecordMetric)
        num = values_table(scored, metrics)
        ids = tuple(r.episode_id for r in scored)
        return Units(
            ids=ids,
            clusters={self.cluster: ids},
            groups=tuple(frozenset(groups(r)) for r in scored),
            records=tuple((r,) for r in scored),
            num=num,
            den=np.ones_like(num),
            metrics=metrics,
            per_record=True,
        )


@dataclass(frozen=True)
class MacroOver:
    """The scored records sharing a key (tabletop: a task's trials) averaged first: one unit per key value, each its
    own cluster, so that groups average units unweighted (a task macro)."""

    key: str
    cluster: str

    def __call__(self, records: Sequence[Record], spec: MetricSpec, groups: GroupsOf) -> Units:
        metrics = spec.of_kind(RecordMetric)
        members: dict[str, list[Record]] = defaultdict(list)
        for r in records:
            if r.status.scored:
                members[r.keys[self.key]].append(r)
        ids = tuple(sorted(members))
        means = [np.array([[metric.value(r) for metric in metrics] for r in members[i]]).mean(axis=0) for i in ids]
        num = np.array(means, dtype=float).reshape(len(ids), len(metrics))
        return Units(
            ids=ids,
            clusters={self.cluster: ids},
            groups=tuple(frozenset(groups(members[i][0])) for i in ids),
            records=tuple(tuple(members[i]) for i in ids),
            num=num,
            den=np.ones_like(num),
            metrics=metrics,
        )


def values_table(records: Sequence[Record], metrics: Sequence[RecordMetric]) -> NDArray[np.float64]:
    """One line per record, one column per metric."""
    return np.array([[metric.value(r) for metric in metrics] for r in records], dtype=float).reshape(
        len(records), len(metrics)
    )


def all_first(names: set[str]) -> list[str]:
    """`all` first, then every other group, sorted (the default group order)."""
    return [ALL, *sorted(names - {ALL})]


@dataclass(frozen=True)
class McNemar:
    """The binary outcome `heedful compare` tests unit by unit with an exact McNemar test (when `outcome` is one of
    the compared metrics)."""

    outcome: str
    """The compared metric it belongs to (its row is `mcnemar_<outcome>`)."""
    success: Callable[[Record], bool]
    unit: str
    """What its `n` counts (its pairs are matched records)."""
    ci_method: str = ""
    """The row's method; empty: "exact McNemar on <outcome>"."""
    metric: str = ""
    """The row's metric; empty: "mcnemar_<outcome>"."""


@dataclass(frozen=True)
class Scoring:
    """What a suite's report and comparison are computed from (heedful.metrics.engine)."""

    spec: MetricSpec
    groups: GroupsOf = lambda record: [ALL]
    """The default: every record in `all` only."""
    units: UnitsOf = PerRecord()
    """The default: each scored record is a unit and its own cluster ("episode")."""
    clusters: tuple[str, ...] = ("episode",)
    """What the bootstrap may resample (`heedful report --cluster`), the default first; each a key of the units'
    clusters."""
    order: Callable[[set[str]], list[str]] = all_first
    """The report's group order."""
    compare_order: Callable[[set[str]], list[str]] | None = None
    """The comparison's group order; None: the report's."""
    report_stream: tuple[str, ...] = ("bootstrap", CLUSTER)
    compare_stream: tuple[str, ...] = ("compare", CLUSTER)
    """The names of the bootstrap's random streams (`derive_rng(seed, *stream, group)`): a suite's draws are
    reproducible from its seed, group by group, whatever else the run holds."""
    mcnemar: McNemar | None = None
    record_unit: str = "record"
    """What the status rows count."""
    keys: tuple[str, ...] = ()
    """The record keys `groups` and `units` read: a record without one is refused, naming `suite`."""
    suite: str = ""
    intervals: Literal["bootstrap", "wilson"] = "bootstrap"
    """"wilson": count rows with their Wilson interval only, no bootstrap (`ci_method` WILSON_ONLY)."""
    extra: tuple[Scoring, ...] = ()
    """Scorings whose rows follow this one's in the report (household's Table 8 error modes); never compared."""
    arms: ArmsView = field(default_factory=ArmsView)
    """How the language-dependence table of the suite's `--arms` jobs is cut (heedful.metrics.arms)."""
    reference: Reference = GENERIC
    """What the rows' `chance` level is, named for what it is (heedful.metrics.reference)."""
    reference_levels: Callable[[Sequence[Record]], ReferenceRows] | None = None
    """The reference level of each (group, metric) the records give, and rows of their own (tabletop: the blind
    draw's `chance ...` rows), added to the report after the engine's rows; None: no reference column."""

    @property
    def full_spec(self) -> MetricSpec:
        """Every metric the report holds: this scoring's, then its extra scorings'."""
        spec = self.spec
        for extra in self.extra:
            spec = spec + extra.full_spec
        return spec

    def units_of(self, records: Sequence[Record]) -> Units:
        """The records cut into units for the spec's metrics.

        Raises:
            RunError: If a record lacks one of `keys`.
        """
        for record in records:
            missing = [key for key in self.keys if key not in record.keys]
            if missing:
                raise RunError(
                    f"record {record.episode_id!r} lacks the {self.suite} keys {missing}; use a {self.suite} run"
                )
        return self.units(records, self.spec, self.groups)


def reference_of(suite: object) -> Reference:
    """The reference level a suite's scoring declares; the generic one for a suite that declares no scoring."""
    scoring = getattr(suite, "scoring", None)
    return scoring.reference if isinstance(scoring, Scoring) else GENERIC
