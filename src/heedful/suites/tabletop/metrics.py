"""RoboFollow metrics from tabletop records alone: mean intent, mean execution, intent-full rate,
execution-full rate and completion rate, task-macro per scene x level, with bootstrap CIs over tasks.

Each task's trials are averaged first, then tasks are averaged unweighted (task macro), as the paper
does within each scene and level. Records with status ok or parse_error are scored (a parse error keeps
the scores of what the robot did before it); interface errors, timeouts and crashes appear only in the
status rows. Intervals: percentile bootstrap over tasks (10,000 resamples by default, every metric of a
group on the same replicates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from heedful.metrics.arms import ArmsView
from heedful.metrics.compare import ComparisonRow
from heedful.metrics.engine import compare_rows, report_rows
from heedful.metrics.groups import ALL, group_name
from heedful.metrics.reference import Reference
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import MacroOver, McNemar, Scoring
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.records import Record
from heedful.suites.tabletop.chance import blind_draw


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
            binary=True,
        ),
        RecordMetric(
            name="execution_full",
            description="share of trials with every stage executed",
            unit="task",
            value=_score("execution_full"),
            binary=True,
        ),
        RecordMetric(
            name="complete",
            description="share of trials that completed the instructed task",
            unit="task",
            value=_score("complete"),
            binary=True,
        ),
        RecordMetric(
            name="complete_clean",
            description="share of trials that completed the task and disturbed no other object (issue 38)",
            unit="task",
            value=_score("complete_clean"),
            binary=True,
        ),
        RecordMetric(
            name="disturbed",
            description="share of trials that moved, dropped or toppled an object the task does not name",
            unit="task",
            value=_score("disturbed"),
            binary=True,
        ),
    )
)
"""The tabletop metrics: each a task-macro mean of one number per trial. Add a metric here."""
SCENES = ("S1", "S2", "S3", "S4")
MEAN = "mean over scenes"
LEVELS = ("L0", "L1", "L2", "L3")
CI_METHOD = "task bootstrap"
_REQUIRED = ("task", "scene", "level")


def _groups(record: Record) -> tuple[str, ...]:
    scene, level = record.keys["scene"], record.keys["level"]
    return (group_name(scene, level), group_name(level), ALL)


def _report_order(names: set[str]) -> list[str]:
    order = [group_name(s, lv) for s in SCENES for lv in LEVELS] + list(LEVELS) + [ALL]
    return [g for g in order if g in names] + sorted(names - set(order))


SCORING = Scoring(
    spec=SPEC,
    groups=_groups,
    units=MacroOver("task", "task"),
    clusters=("task",),
    order=_report_order,
    compare_order=lambda names: sorted(names, key=lambda g: (g != ALL, g.count("/"), g)),
    report_stream=("bootstrap", "tabletop"),
    compare_stream=("tabletop-compare",),
    mcnemar=McNemar("complete", lambda record: record.scores.get("complete") == 1.0, unit="trial"),
    record_unit="trial",
    keys=_REQUIRED,
    suite="tabletop",
    arms=ArmsView(group_key="level", cluster_key="task", cluster_label="task", score="complete"),
    reference=Reference(
        "blind draw",
        "the exact expected score of the blind branch draw: a training branch chosen without the language (a "
        "strong baseline, not chance)",
    ),
    reference_levels=blind_draw,
)
"""How the tabletop report and comparison are computed (heedful.metrics.engine): each task's trials averaged
first, then a bootstrap over tasks; McNemar on trial completion."""


def tabletop_metrics(
    records: Sequence[Record], *, resamples: int = 10_000, seed: int = 0, spec: MetricSpec = SPEC
) -> list[MetricRow]:
    """Status rows, then the metrics of `spec` for every scene x level, every level (all tasks) and all tasks."""
    return report_rows(SCORING, records, resamples=resamples, seed=seed, spec=spec)


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
    return compare_rows(SCORING, records_a, records_b, resamples=resamples, seed=seed, spec=spec)
