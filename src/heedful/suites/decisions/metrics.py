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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.errors import RunError
from heedful.metrics.arms import ArmsView
from heedful.metrics.compare import MCNEMAR_METRIC, ComparisonRow
from heedful.metrics.engine import compare_rows, report_rows
from heedful.metrics.groups import ALL, group_name, keyed
from heedful.metrics.reference import Reference
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import GroupsOf, McNemar, Scoring, Units
from heedful.metrics.spec import Metric, MetricSpec
from heedful.records import Record, Status

ROLES: tuple[str, ...] = ("base", "preserve", "change", "change_preserve")
PRESERVING_PAIRS: tuple[tuple[str, str], ...] = (("base", "preserve"), ("change", "change_preserve"))
CHANGING_PAIRS: tuple[tuple[str, str], ...] = (("base", "change"), ("preserve", "change_preserve"))
GROUP_KEYS: tuple[str, ...] = ("category", "decision_type", "split", "anchor_kind")
_REQUIRED_KEYS = ("family_id", "anchor_id", "role", *GROUP_KEYS)

IntArray = NDArray[np.int64]
Family = Mapping[str, Record]


@dataclass(frozen=True)
class FamilyView:
    """What the metrics count in one family: its scored records and its scored preserving / changing pairs."""

    scored: tuple[Record, ...]
    preserving: tuple[tuple[Record, Record], ...]
    changing: tuple[tuple[Record, Record], ...]
    complete: bool
    """All four roles are present and scored (family success needs the whole family)."""

    @classmethod
    def of(cls, family: Family) -> FamilyView:
        scored = tuple(record for record in family.values() if record.status.scored)
        return cls(
            scored=scored,
            preserving=tuple(_scored_pairs(family, PRESERVING_PAIRS)),
            changing=tuple(_scored_pairs(family, CHANGING_PAIRS)),
            complete=len(scored) == len(ROLES),
        )


@dataclass(frozen=True, kw_only=True)
class FamilyMetric(Metric):
    """A ratio of successes to units summed over families (and over the bootstrap's clusters)."""

    count: Callable[[FamilyView], tuple[int, int]]
    """(successes, units) of one family."""


SPEC = MetricSpec(
    (
        FamilyMetric(
            name="accuracy",
            description="share of scored instances whose decision matches the gold decision exactly",
            unit="instance",
            count=lambda f: (sum(_correct(r) for r in f.scored), len(f.scored)),
        ),
        FamilyMetric(
            name="parse_success",
            description="share of scored instances whose reply parsed into a valid decision",
            unit="instance",
            count=lambda f: (sum(r.status is Status.OK for r in f.scored), len(f.scored)),
        ),
        FamilyMetric(
            name="pair_success",
            description="share of instruction pairs with both decisions correct",
            unit="pair",
            count=lambda f: (
                sum(_correct(x) and _correct(y) for x, y in f.preserving + f.changing),
                len(f.preserving) + len(f.changing),
            ),
        ),
        FamilyMetric(
            name="decision_invariance",
            description="share of preserving pairs (same gold decision) answered correctly and identically",
            unit="pair",
            count=lambda f: (
                sum(_correct(x) and _correct(y) and _same(x, y) for x, y in f.preserving),
                len(f.preserving),
            ),
        ),
        FamilyMetric(
            name="decision_sensitivity",
            description="share of changing pairs (one constraint changed) answered correctly and differently",
            unit="pair",
            count=lambda f: (
                sum(_correct(x) and _correct(y) and not _same(x, y) for x, y in f.changing),
                len(f.changing),
            ),
        ),
        FamilyMetric(
            name="over_invariance",
            description="share of changing pairs that kept the same decision (the instruction was ignored)",
            unit="pair",
            higher_is_better=False,
            count=lambda f: (sum(_parsed(x) and _parsed(y) and _same(x, y) for x, y in f.changing), len(f.changing)),
        ),
        FamilyMetric(
            name="over_sensitivity",
            description="share of preserving pairs whose decision changed (a paraphrase moved it)",
            unit="pair",
            higher_is_better=False,
            count=lambda f: (
                sum(_parsed(x) and _parsed(y) and not _same(x, y) for x, y in f.preserving),
                len(f.preserving),
            ),
        ),
        FamilyMetric(
            name="family_success",
            description="share of complete families with all four decisions correct",
            unit="family",
            count=lambda f: (int(f.complete and all(_correct(r) for r in f.scored)), int(f.complete)),
        ),
    )
)
"""The decisions metrics, in report order. Add a metric here (a FamilyMetric with its count)."""
METRICS: tuple[str, ...] = SPEC.names


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


def family_counts(family: Family, spec: MetricSpec = SPEC) -> tuple[list[int], list[int]]:
    """Successes and units of every metric of `spec` (in its order) for one family."""
    view = FamilyView.of(family)
    counts = [metric.count(view) for metric in spec.of_kind(FamilyMetric)]
    return [num for num, _ in counts], [den for _, den in counts]


def family_units(records: Sequence[Record], spec: MetricSpec = SPEC, groups: GroupsOf = group_labels) -> Units:
    """Index records by family and count each metric's successes and units per family: one unit per family, sorted
    by id, clustered by family or by anchor.

    Raises:
        RunError: If a record lacks the decisions keys, has an unknown role, two records claim the
            same role of a family, or the instances of a family disagree on their grouping keys.
    """
    families = index_families(records)
    ids = sorted(families)
    metrics = spec.of_kind(FamilyMetric)
    counts = [family_counts(families[family_id], spec) for family_id in ids]
    shape = (len(ids), len(metrics))
    firsts = [next(iter(families[family_id].values())) for family_id in ids]
    return Units(
        ids=tuple(ids),
        clusters={"family": tuple(ids), "anchor": tuple(first.keys["anchor_id"] for first in firsts)},
        groups=tuple(frozenset(groups(first)) for first in firsts),
        records=tuple(tuple(families[family_id].values()) for family_id in ids),
        num=np.array([c[0] for c in counts], dtype=np.int64).reshape(shape),
        den=np.array([c[1] for c in counts], dtype=np.int64).reshape(shape),
        metrics=metrics,
        counts=True,
    )


family_table = family_units
"""The per-family counts (an older name)."""


SCORING = Scoring(
    spec=SPEC,
    groups=group_labels,
    units=family_units,
    clusters=("family", "anchor"),
    mcnemar=McNemar(
        "accuracy", lambda record: record.correct is True, "instance", ci_method="exact McNemar", metric=MCNEMAR_METRIC
    ),
    arms=ArmsView(group_key="category", cluster_key="family_id", cluster_label="family", score="accuracy"),
    reference=Reference(
        "chance", "the exact expected score of a uniformly random valid answer (what random-valid draws), not sampled"
    ),
)
"""How the decisions report and comparison are computed (heedful.metrics.engine): counts per family, a bootstrap
over families (or anchors), McNemar on each instance's correctness."""


def decision_metrics(
    records: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    cluster: str = "family",
    spec: MetricSpec = SPEC,
) -> list[MetricRow]:
    """Compute every decisions metric for every group, with bootstrap and Wilson intervals.

    Args:
        records: Records of a decisions run (any subset: missing roles only drop pairs).
        resamples: Bootstrap replicates per group.
        seed: Root seed of the bootstrap.
        cluster: `"family"` (resample whole families) or `"anchor"` (resample anchors with all
            their families; wider when families of one anchor succeed or fail together).
        spec: The metrics to compute (the suite's `SPEC` by default).

    Returns:
        Status rows first (group `status`: share of all records per status, no interval), then one
        row per metric of `spec` for group `all` and for every `category:`, `decision_type:`, `split:` and
        `anchor_kind:` value present, sorted. A metric without units has value and intervals None.

    Raises:
        RunError: If a record lacks the decisions keys or two records claim the same family role.
        ConfigError: If `cluster` is unknown.
    """
    return report_rows(SCORING, records, resamples=resamples, seed=seed, cluster=cluster, spec=spec)


def compare_decision_runs(
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    cluster: str = "family",
    spec: MetricSpec = SPEC,
) -> list[ComparisonRow]:
    """Compare two runs of the same decisions dataset, metric by metric and group by group.

    Args:
        records_a: Records of run A.
        records_b: Records of run B.
        resamples: Bootstrap replicates per group.
        seed: Root seed; group g draws from `derive_rng(seed, "compare", cluster, g)`.
        cluster: `"family"` or `"anchor"`: the unit the paired bootstrap resamples.
        spec: The metrics; those marked `compared` are compared (the decisions `SPEC` by default).

    Returns:
        For each group (`all` first, then the others sorted): one row per compared metric of `spec`
        with A, B, A - B and the paired bootstrap interval of the difference, then one
        `mcnemar_accuracy` row with the discordant counts and the exact McNemar p-value.

    Raises:
        RunError: If the runs share no episode id, hold an episode twice, or disagree on an
            episode's keys (they are not runs of the same dataset).
        ConfigError: If `cluster` is unknown.
    """
    return compare_rows(SCORING, records_a, records_b, resamples=resamples, seed=seed, cluster=cluster, spec=spec)


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
