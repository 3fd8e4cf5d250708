"""RoboFollow metrics from tabletop records alone: mean intent, mean execution, intent-full rate,
execution-full rate and completion rate, task-macro per scene x level, with bootstrap CIs over tasks.

Each task's trials are averaged first, then tasks are averaged unweighted (task macro), as the paper
does within each scene and level. Records with status ok or parse_error are scored (a parse error keeps
the scores of what the robot did before it); interface errors, timeouts and crashes appear only in the
status rows. Intervals: percentile bootstrap over tasks (10,000 resamples by default, every metric of a
group on the same replicates).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from heedful.errors import RunError
from heedful.metrics.compare import ComparisonRow, matched_scored
from heedful.metrics.groups import ALL, group_name
from heedful.metrics.paired import mcnemar_count_row, paired_mean_rows
from heedful.metrics.rows import MetricRow, status_rows
from heedful.metrics.spec import Metric, MetricSpec, RecordMetric
from heedful.metrics.stats import cluster_bootstrap_ratios, wilson_interval
from heedful.records import Record
from heedful.seeding import derive_rng


def _score(name: str) -> Callable[[Record], float]:
    def value(record: Record) -> float:
        return float(record.scores.get(name, 0.0))

    return value


SPEC = MetricSpec(
    (
        RecordMetric(
            name="intent",
            description="stage-weighted share of the task the robot showed it understood (RoboFollow's Intent)",
            unit="task",
            value=_score("intent"),
        ),
        RecordMetric(
            name="execution",
            description="stage-weighted share of the task physically achieved (RoboFollow's Execution)",
            unit="task",
            value=_score("execution"),
        ),
        RecordMetric(
            name="intent_full",
            description="share of trials with every stage's intent earned",
            unit="task",
            value=_score("intent_full"),
        ),
        RecordMetric(
            name="execution_full",
            description="share of trials with every stage executed",
            unit="task",
            value=_score("execution_full"),
        ),
        RecordMetric(
            name="complete",
            description="share of trials that completed the instructed task",
            unit="task",
            value=_score("complete"),
        ),
        RecordMetric(
            name="complete_clean",
            description="share of trials that completed the task and disturbed no other object (issue 38)",
            unit="task",
            value=_score("complete_clean"),
        ),
        RecordMetric(
            name="disturbed",
            description="share of trials that moved, dropped or toppled an object the task does not name",
            unit="task",
            value=_score("disturbed"),
        ),
    )
)
"""The tabletop metrics: each a task-macro mean of one number per trial. Add a metric here."""
METRICS = SPEC.names
LABELS = {
    "intent": "mean intent",
    "execution": "mean execution",
    "intent_full": "intent-full rate",
    "execution_full": "execution-full rate",
    "complete": "completion rate",
    "complete_clean": "clean completion",
    "disturbed": "disturbance rate",
}
CHANCE_PREFIX = "chance "  # groups of the exact chance level (expected score of the blind branch draw)
CHANCE_LABELS = {  # the blind branch draw's level (heedful.metrics.reference): a strong baseline, not chance
    "intent": "blind intent",
    "execution": "blind execution",
    "intent_full": "blind intent-full",
    "execution_full": "blind exec-full",
    "complete": "blind completion",
    "complete_clean": "blind clean compl",
    "disturbed": "blind disturbance",
}
SCENES = ("S1", "S2", "S3", "S4")
MEAN = "mean over scenes"
LEVELS = ("L0", "L1", "L2", "L3")
CI_METHOD = "task bootstrap"
_REQUIRED = ("task", "scene", "level")


def task_means(records: Sequence[Record], spec: MetricSpec = SPEC) -> dict[str, tuple[str, str, np.ndarray]]:
    """task -> (scene, level, mean of each metric of `spec` over the task's scored trials)."""
    metrics = spec.of_kind(RecordMetric)
    trials: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        if r.status.scored:
            trials[r.keys["task"]].append(r)
    out = {}
    for task, rs in sorted(trials.items()):
        values = np.array([[metric.value(r) for metric in metrics] for r in rs])
        out[task] = (rs[0].keys["scene"], rs[0].keys["level"], values.mean(axis=0))
    return out


def tabletop_metrics(
    records: Sequence[Record], *, resamples: int = 10_000, seed: int = 0, spec: MetricSpec = SPEC
) -> list[MetricRow]:
    """Status rows, then the metrics of `spec` for every scene x level, every level (all tasks) and all tasks."""
    for record in records:
        missing = [k for k in _REQUIRED if k not in record.keys]
        if missing:
            raise RunError(f"record {record.episode_id!r} lacks the tabletop keys {missing}; use a tabletop run")
    means = task_means(records, spec)
    groups: dict[str, list[np.ndarray]] = defaultdict(list)
    for scene, level, values in means.values():
        for group in (group_name(scene, level), group_name(level), ALL):
            groups[group].append(values)
    order = [group_name(s, lv) for s in SCENES for lv in LEVELS] + list(LEVELS) + [ALL]
    rows = status_rows(records, unit="trial")
    trials = _trials_by_group(records)
    for group in [g for g in order if g in groups] + sorted(set(groups) - set(order)):
        block = _group_rows(group, np.array(groups[group]), resamples, seed, spec.of_kind(RecordMetric))
        rows += [_with_wilson(row, trials[group]) for row in block]
    return rows


BINARY = ("intent_full", "execution_full", "complete", "complete_clean", "disturbed")
"""The 0/1 per-trial rates: their rows get a Wilson interval over trials."""


def _trials_by_group(records: Sequence[Record]) -> dict[str, list[Record]]:
    out: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        if r.status.scored:
            for group in (group_name(r.keys["scene"], r.keys["level"]), group_name(r.keys["level"]), ALL):
                out[group].append(r)
    return out


def _with_wilson(row: MetricRow, trials: Sequence[Record]) -> MetricRow:
    """A binary rate's Wilson interval over the group's trials, where every task has as many trials (so the
    task-macro value equals the share of trials)."""
    per_task = Counter(r.keys["task"] for r in trials)
    if row.metric not in BINARY or not trials or len(set(per_task.values())) != 1:
        return row
    k = sum(1 for r in trials if r.scores.get(row.metric) == 1.0)
    low, high = wilson_interval(k, len(trials))
    return replace(row, wilson_low=_finite(low), wilson_high=_finite(high))


def _group_rows(
    group: str, values: np.ndarray, resamples: int, seed: int, metrics: Sequence[Metric]
) -> list[MetricRow]:
    intervals = cluster_bootstrap_ratios(
        values, np.ones_like(values), resamples=resamples, rng=derive_rng(seed, "bootstrap", "tabletop", group)
    )
    n = values.shape[0]
    return [
        MetricRow(
            metric=metric.name,
            group=group,
            value=float(values[:, j].mean()),
            ci_low=_finite(intervals[j][0]),
            ci_high=_finite(intervals[j][1]),
            n=n,
            unit=metric.unit,
            ci_method=CI_METHOD,
        )
        for j, metric in enumerate(metrics)
    ]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def table1(rows: Sequence[MetricRow]) -> str:
    """The paper's Table 1 layout: metrics by scene x level (values in %), then the mean over scenes.

    Two bands fit 120 columns: S1 | S2 | S3, then S4 | mean over scenes, each block one column per level.
    The mean over scenes is the unweighted mean of the scene values present (the paper's headline); a cell
    without tasks prints `-`. Rows of groups `chance S / L` (the exact chance level the suite adds, see
    suites/tabletop/chance.py) print as `chance ...` lines under the measured ones.
    """
    table = {(row.group, row.metric): row.value for row in rows}

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    def mean_over_scenes(prefix: str, level: str, metric: str) -> float | None:
        present = [v for s in SCENES if (v := table.get((prefix + group_name(s, level), metric))) is not None]
        return sum(present) / len(present) if present else None

    def values(block: str, prefix: str, metric: str) -> str:
        if block == MEAN:
            found = [mean_over_scenes(prefix, lv, metric) for lv in LEVELS]
        else:
            found = [table.get((prefix + group_name(block, lv), metric)) for lv in LEVELS]
        return " ".join(f"{cell(v):>6}" for v in found)

    has_chance = any(row.group.startswith(CHANCE_PREFIX) for row in rows)
    lines = ["Table 1 layout (task macro, %)"]
    for band in ((*SCENES[:3],), (SCENES[3], MEAN)):
        lines += ["", " " * 20 + " | ".join(f"{name:^27}" for name in band)]
        lines.append(" " * 20 + " | ".join(" ".join(f"{lv:>6}" for lv in LEVELS) for _ in band))
        for prefix, labels in (("", LABELS), (CHANCE_PREFIX, CHANCE_LABELS)):
            if prefix and not has_chance:
                continue
            for metric in METRICS:
                lines.append(f"{labels[metric]:<20}" + " | ".join(values(block, prefix, metric) for block in band))
    return "\n".join(lines)


def compare_tabletop_runs(
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    spec: MetricSpec = SPEC,
) -> list[ComparisonRow]:
    """Paired comparison of two runs on the same trials: each metric's task-macro difference (A - B) with a
    paired bootstrap over tasks, and an exact McNemar test on trial completion, per scene x level and overall."""
    a, b = matched_scored(records_a, records_b)
    compared = MetricSpec(spec.compared())
    names = [metric.name for metric in compared.of_kind(RecordMetric)]
    means_a, means_b = task_means(a, compared), task_means(b, compared)
    members: dict[str, list[str]] = defaultdict(list)
    for task, (scene, level, _) in means_a.items():
        for group in (ALL, group_name(level), group_name(scene, level)):
            members[group].append(task)
    rows: list[ComparisonRow] = []
    for group in sorted(members, key=lambda g: (g != "all", g.count("/"), g)):
        va = np.array([means_a[t][2] for t in members[group]])
        vb = np.array([means_b[t][2] for t in members[group]])
        rng = derive_rng(seed, "tabletop-compare", group)
        rows += paired_mean_rows(
            names, group, va, vb, resamples=resamples, rng=rng, unit="task", ci_method="paired task bootstrap"
        )
        tasks = set(members[group])
        pairs = [(ra, rb) for ra, rb in zip(a, b, strict=True) if ra.keys["task"] in tasks]
        wins_a = sum(1 for ra, rb in pairs if ra.scores.get("complete") == 1.0 and rb.scores.get("complete") != 1.0)
        wins_b = sum(1 for ra, rb in pairs if ra.scores.get("complete") != 1.0 and rb.scores.get("complete") == 1.0)
        rows.append(mcnemar_count_row("complete", group, wins_a, wins_b, len(pairs), unit="trial"))
    return rows
