"""Situated Instruction Following metrics from records alone: success rate and SPL with bootstrap CIs.

SPL = E[s * L_oracle / max(L, L_oracle)] with path lengths in low-level steps; where the oracle failed,
L_oracle is the step limit (600). Records with status ok or parse_error are scored (a parse error is a
failed episode); interface errors, timeouts and crashes are only counted in the status rows.

SPL is the paper's primary metric ("because it tests correct reasoning strategies", Section 5); the success
rate (SR) is reported beside it.

Groups follow the paper: every split x task type (Table 6 / D.4), each task type over all splits, and
clear vs ambiguous S_obj / S_hum over all splits, on the validation splits combined (Table 9) and on the
test splits.
Intervals: a percentile bootstrap over episodes (10,000 resamples by default; the two metrics of a group
share the resample weights), plus Wilson intervals for the success rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from heedful.metrics.arms import ArmsView
from heedful.metrics.chance import Chance, grouped_means
from heedful.metrics.compare import ComparisonRow
from heedful.metrics.engine import compare_rows, report_rows
from heedful.metrics.groups import ALL, group_name
from heedful.metrics.reference import Reference
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import McNemar, PerRecord, ReferenceRows, Scoring
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.records import Record, Status

MAX_STEPS = 600
SPLIT_ORDER = ("val_seen", "val_unseen", "test_seen", "test_unseen")
TYPE_ORDER = ("pnp", "s_obj", "s_hum")
TYPE_LABELS = {"pnp": "PnP", "s_obj": "S_obj", "s_hum": "S_hum"}
CI_METHOD = "episode bootstrap"
_REQUIRED = ("split", "task_type", "ambiguous")
SUCCESS = "success"
"""The 0/1 metric: its rows carry the count k and a Wilson interval, and McNemar's test compares it."""


def _scored(name: str) -> Callable[[Record], float]:
    def value(record: Record) -> float:
        # a parse error is a failed episode, whatever the executor had scored before it
        return float(record.scores.get(name, 0.0)) if record.status is Status.OK else 0.0

    return value


SPEC = MetricSpec(
    (
        RecordMetric(
            name=SUCCESS,
            description="success rate (SR): share of episodes whose goal the agent met within the step limit",
            unit="episode",
            value=_scored(SUCCESS),
            binary=True,
        ),
        RecordMetric(
            name="spl",
            description="success weighted by path length against the oracle's (the paper's primary metric)",
            unit="episode",
            value=_scored("spl"),
        ),
    )
)
"""The household metrics, each a mean over episodes of one number per episode. Add a metric here."""


def spl(success: bool, steps: int, oracle_steps: int | None, max_steps: int = MAX_STEPS) -> float:
    """Success weighted by path length for one episode; `oracle_steps` None or 0 means the oracle failed."""
    reference = oracle_steps if oracle_steps else max_steps
    if not success:
        return 0.0
    return float(reference / max(steps, reference))


def groups_of(record: Record) -> list[str]:
    """Every group a household record belongs to (the report and the comparison use the same)."""
    keys = record.keys
    split, kind, amb = keys["split"], keys["task_type"], keys["ambiguous"]
    label = TYPE_LABELS.get(kind, kind)
    groups = [ALL, group_name(split), group_name(split, label), group_name(label)]
    if amb in ("true", "false"):
        clarity = "ambiguous" if amb == "true" else "clear"
        groups += [group_name(label, clarity), group_name(split.split("_")[0], label, clarity)]
    return groups


CLARITY_GROUPS = tuple(group_name(TYPE_LABELS[t], c) for t in ("s_obj", "s_hum") for c in ("clear", "ambiguous"))
"""Clear vs ambiguous S_obj / S_hum over all splits (where the situated evidence matters)."""


def group_order(names: set[str]) -> list[str]:
    """The household groups in `names` in report order (overall, splits, split x type, types, clarity)."""
    order = [ALL, *SPLIT_ORDER]
    order += [group_name(s, TYPE_LABELS[t]) for s in SPLIT_ORDER for t in TYPE_ORDER]
    order += [TYPE_LABELS[t] for t in TYPE_ORDER]
    order += CLARITY_GROUPS
    order += [
        group_name(p, TYPE_LABELS[t], c)
        for p in ("val", "test")
        for t in ("s_obj", "s_hum")
        for c in ("clear", "ambiguous")
    ]
    return [g for g in order if g in names] + sorted(names - set(order))


def _succeeded(record: Record) -> bool:
    return _scored(SUCCESS)(record) == 1.0


def words_only(records: Sequence[Record]) -> ReferenceRows:
    """The words-only level of success per group (the report's reference column); no rows of its own."""
    return household_chance(records, groups_of), ()


SCORING = Scoring(
    spec=SPEC,
    groups=lambda record: groups_of(record),
    units=PerRecord("episode"),
    clusters=("episode",),
    order=lambda names: group_order(names),
    report_stream=("bootstrap", "household"),
    compare_stream=("household-compare",),
    mcnemar=McNemar(SUCCESS, _succeeded, unit="episode"),
    keys=_REQUIRED,
    suite="household",
    arms=ArmsView(group_key="task_type", score=SUCCESS),
    reference=Reference(
        "words-only",
        "the success of one uniform guess among the rooms the words fit, all else perfect (PnP and clear tasks "
        "100%; a strong baseline, not chance); SPL has none",
    ),
    reference_levels=words_only,
)
"""How the household report and comparison are computed (heedful.metrics.engine): a bootstrap over episodes."""


def household_metrics(
    records: Sequence[Record], *, resamples: int = 10_000, seed: int = 0, spec: MetricSpec = SPEC
) -> list[MetricRow]:
    """Status rows, then the metrics of `spec` (with intervals) for every group present in `records`."""
    return report_rows(SCORING, records, resamples=resamples, seed=seed, spec=spec)


def compare_household_runs(
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    spec: MetricSpec = SPEC,
) -> list[ComparisonRow]:
    """Paired comparison of two runs on the same episodes, per group: each compared metric of `spec` for A and B,
    their difference with a paired bootstrap interval over episodes, and McNemar on success (when compared)."""
    return compare_rows(SCORING, records_a, records_b, resamples=resamples, seed=seed, spec=spec)


def household_chance(records: Sequence[Record], groups_of: Callable[[Record], list[str]]) -> Chance:
    """Chance success per household group, over the scored records (as the success rate counts them)."""
    items = []
    for r in records:
        if not r.status.scored or not isinstance(r.gold, dict):
            continue
        rooms = r.gold.get("candidate_rooms") or []
        if r.keys.get("task_type") != "pnp" and not rooms:
            continue  # no fitting rooms recorded: no level to give
        p = 1.0 if r.keys.get("task_type") == "pnp" else 1.0 / len(rooms)
        items.append((groups_of(r), {"success": (p, 1)}))
    return grouped_means(items)
