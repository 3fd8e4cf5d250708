"""One Word, Different Action metrics: accuracy, pair metrics and family success, from records alone.

A family has up to four instances, one per role: `base`, `preserve` (same gold decision as base),
`change` (one constraint changed) and `change_preserve` (same gold decision as change). Preserving
pairs are (base, preserve) and (change, change_preserve); changing pairs are (base, change) and
(preserve, change_preserve). A pair counts only when both of its records exist and are scored
(status ok or parse_error), so missing or crashed instances drop pairs instead of failing them.

Uncertainty: a percentile cluster bootstrap (clusters are families, or anchors with
`cluster="anchor"`) and a Wilson interval over the metric's units. All metrics of one group share
the same resample weights, drawn from `derive_rng(seed, "bootstrap", cluster, group)`: one joint
bootstrap per group is eight times cheaper than one per (metric, group), and the result still does
not depend on the order in which records arrive or rows are computed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError, RunError
from heedful.metrics.groups import ALL, group_name, keyed
from heedful.metrics.rows import MetricRow, status_rows
from heedful.metrics.stats import Interval, cluster_bootstrap_ratios, wilson_interval
from heedful.records import Record, Status
from heedful.seeding import derive_rng

METRICS: tuple[str, ...] = (
    "accuracy",
    "parse_success",
    "pair_success",
    "decision_invariance",
    "decision_sensitivity",
    "over_invariance",
    "over_sensitivity",
    "family_success",
)
UNITS: dict[str, str] = {
    "accuracy": "instance",
    "parse_success": "instance",
    "pair_success": "pair",
    "decision_invariance": "pair",
    "decision_sensitivity": "pair",
    "over_invariance": "pair",
    "over_sensitivity": "pair",
    "family_success": "family",
}
ROLES: tuple[str, ...] = ("base", "preserve", "change", "change_preserve")
PRESERVING_PAIRS: tuple[tuple[str, str], ...] = (("base", "preserve"), ("change", "change_preserve"))
CHANGING_PAIRS: tuple[tuple[str, str], ...] = (("base", "change"), ("preserve", "change_preserve"))
GROUP_KEYS: tuple[str, ...] = ("category", "decision_type", "split", "anchor_kind")
CLUSTER_KEYS: dict[str, str] = {"family": "family_id", "anchor": "anchor_id"}
_REQUIRED_KEYS = ("family_id", "anchor_id", "role", *GROUP_KEYS)

IntArray = NDArray[np.int64]
Family = Mapping[str, Record]


@dataclass(frozen=True)
class FamilyTable:
    """Per-family success counts (`num`) and unit counts (`den`), one column per metric in `METRICS`.

    Families are sorted by id, so everything computed from the table is independent of record order.
    """

    family_ids: tuple[str, ...]
    anchor_ids: tuple[str, ...]
    groups: tuple[frozenset[str], ...]
    num: IntArray
    den: IntArray

    def cluster_sums(self, group: str, cluster: str) -> tuple[IntArray, IntArray]:
        """Per-cluster sums of the families in `group`, sorted by cluster id; shape (clusters, metrics).

        Families without a single scored instance carry no information and are left out.
        """
        key = _check_cluster(cluster)
        ids = np.asarray(self.family_ids if key == "family_id" else self.anchor_ids, dtype=object)
        keep = np.array([group in labels for labels in self.groups], dtype=bool)
        keep &= self.den.sum(axis=1) > 0
        _, inverse = np.unique(ids[keep], return_inverse=True)
        num = np.zeros((int(inverse.max(initial=-1)) + 1, len(METRICS)), dtype=np.int64)
        den = np.zeros_like(num)
        np.add.at(num, inverse, self.num[keep])
        np.add.at(den, inverse, self.den[keep])
        return num, den


def decision_metrics(
    records: Sequence[Record], *, resamples: int = 10_000, seed: int = 0, cluster: str = "family"
) -> list[MetricRow]:
    """Compute every decisions metric for every group, with bootstrap and Wilson intervals.

    Args:
        records: Records of a decisions run (any subset: missing roles only drop pairs).
        resamples: Bootstrap replicates per group.
        seed: Root seed of the bootstrap.
        cluster: `"family"` (resample whole families) or `"anchor"` (resample anchors with all
            their families; wider when families of one anchor succeed or fail together).

    Returns:
        Status rows first (group `status`: share of all records per status, no interval), then one
        row per metric for group `all` and for every `category:`, `decision_type:`, `split:` and
        `anchor_kind:` value present, sorted. A metric without units has value and intervals None.

    Raises:
        RunError: If a record lacks the decisions keys or two records claim the same family role.
        ConfigError: If `cluster` is unknown.
    """
    _check_cluster(cluster)
    table = family_table(records)
    rows = status_rows(records)
    for group in group_names(table):
        num, den = table.cluster_sums(group, cluster)
        rng = derive_rng(seed, "bootstrap", cluster, group)
        intervals = cluster_bootstrap_ratios(num, den, resamples=resamples, rng=rng)
        rows.extend(_metric_rows(group, num, den, intervals, f"{cluster} bootstrap"))
    return rows


def family_table(records: Sequence[Record]) -> FamilyTable:
    """Index records by family and count each metric's successes and units per family.

    Raises:
        RunError: If a record lacks the decisions keys, has an unknown role, two records claim the
            same role of a family, or the instances of a family disagree on their grouping keys.
    """
    families = index_families(records)
    ids = sorted(families)
    counts = [family_counts(families[family_id]) for family_id in ids]
    shape = (len(ids), len(METRICS))
    num = np.array([c[0] for c in counts], dtype=np.int64).reshape(shape)
    den = np.array([c[1] for c in counts], dtype=np.int64).reshape(shape)
    firsts = [next(iter(families[family_id].values())) for family_id in ids]
    return FamilyTable(
        family_ids=tuple(ids),
        anchor_ids=tuple(first.keys["anchor_id"] for first in firsts),
        groups=tuple(frozenset(group_labels(first)) for first in firsts),
        num=num,
        den=den,
    )


def index_families(records: Sequence[Record]) -> dict[str, dict[str, Record]]:
    """Map family id -> role -> record, validating the keys every decisions record must carry."""
    families: dict[str, dict[str, Record]] = {}
    for record in records:
        _check_keys(record)
        members = families.setdefault(record.keys["family_id"], {})
        role = record.keys["role"]
        if role in members:
            raise RunError(
                f"records {members[role].episode_id!r} and {record.episode_id!r} both claim role {role!r} "
                f"of family {record.keys['family_id']!r}; a run must hold each episode once"
            )
        if members:
            _check_same_family(next(iter(members.values())), record)
        members[role] = record
    return families


def group_labels(record: Record) -> list[str]:
    """The groups a record (and its family) belongs to: `all` and one `key:value` per grouping key."""
    return [ALL, *(group_name(keyed(key, record.keys[key])) for key in GROUP_KEYS)]


def group_names(table: FamilyTable) -> list[str]:
    """`all` first, then every other group present, sorted."""
    present = set().union(*table.groups) if table.groups else set()
    return [ALL, *sorted(present - {ALL})]


def family_counts(family: Family) -> tuple[list[int], list[int]]:
    """Successes and units of every metric (in `METRICS` order) for one family."""
    scored = [record for record in family.values() if record.status.scored]
    preserving = _scored_pairs(family, PRESERVING_PAIRS)
    changing = _scored_pairs(family, CHANGING_PAIRS)
    complete = len(scored) == len(ROLES)
    num = [
        sum(_correct(r) for r in scored),
        sum(r.status is Status.OK for r in scored),
        sum(_correct(x) and _correct(y) for x, y in preserving + changing),
        sum(_correct(x) and _correct(y) and _same(x, y) for x, y in preserving),
        sum(_correct(x) and _correct(y) and not _same(x, y) for x, y in changing),
        sum(_parsed(x) and _parsed(y) and _same(x, y) for x, y in changing),
        sum(_parsed(x) and _parsed(y) and not _same(x, y) for x, y in preserving),
        int(complete and all(_correct(r) for r in scored)),
    ]
    pairs = len(preserving) + len(changing)
    den = [
        len(scored),
        len(scored),
        pairs,
        len(preserving),
        len(changing),
        len(changing),
        len(preserving),
        int(complete),
    ]
    return num, den


def _metric_rows(
    group: str, num: IntArray, den: IntArray, intervals: list[Interval], ci_method: str
) -> list[MetricRow]:
    rows = []
    for j, metric in enumerate(METRICS):
        k, n = int(num[:, j].sum()), int(den[:, j].sum())
        wilson = wilson_interval(k, n)
        rows.append(
            MetricRow(
                metric=metric,
                group=group,
                value=k / n if n else None,
                ci_low=_finite(intervals[j][0]),
                ci_high=_finite(intervals[j][1]),
                n=n,
                k=k,
                wilson_low=_finite(wilson[0]),
                wilson_high=_finite(wilson[1]),
                unit=UNITS[metric],
                ci_method=ci_method,
            )
        )
    return rows


def _scored_pairs(family: Family, pairs: tuple[tuple[str, str], ...]) -> list[tuple[Record, Record]]:
    found = []
    for first, second in pairs:
        x, y = family.get(first), family.get(second)
        if x is not None and y is not None and x.status.scored and y.status.scored:
            found.append((x, y))
    return found


def _correct(record: Record) -> bool:
    return record.correct is True


def _parsed(record: Record) -> bool:
    return record.status is Status.OK


def _same(x: Record, y: Record) -> bool:
    return bool(x.prediction == y.prediction)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _check_cluster(cluster: str) -> str:
    if cluster not in CLUSTER_KEYS:
        raise ConfigError(f"unknown bootstrap cluster {cluster!r}; choose one of {sorted(CLUSTER_KEYS)}")
    return CLUSTER_KEYS[cluster]


def _check_keys(record: Record) -> None:
    missing = [key for key in _REQUIRED_KEYS if key not in record.keys]
    if missing:
        raise RunError(
            f"record {record.episode_id!r} lacks the decisions keys {missing}; "
            "decision metrics need records written by the decisions suite"
        )
    if record.keys["role"] not in ROLES:
        raise RunError(f"record {record.episode_id!r} has unknown role {record.keys['role']!r}; expected {ROLES}")


def _check_same_family(first: Record, record: Record) -> None:
    for key in ("anchor_id", *GROUP_KEYS):
        if first.keys[key] != record.keys[key]:
            raise RunError(
                f"family {record.keys['family_id']!r} mixes {key} values {first.keys[key]!r} "
                f"({first.episode_id!r}) and {record.keys[key]!r} ({record.episode_id!r}); "
                "the dataset is inconsistent"
            )
