"""The rows of a paired comparison of two runs over the same dataset, and how the runs' records are matched.

Episodes are matched by id, and only episodes scored in both runs (status ok or parse_error in
each) enter the comparison: both runs are then measured on exactly the same units, which is what a
paired difference needs. An episode that crashed or timed out in one run is left out here; each
run's own report shows it in its status rows. The rows themselves come from heedful.metrics.engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from heedful.errors import RunError
from heedful.records import Record

MCNEMAR_PREFIX = "mcnemar_"
MCNEMAR_METRIC = "mcnemar_accuracy"


@dataclass(frozen=True)
class ComparisonRow:
    """One metric of run A against run B on matched instances.

    `diff` is `a - b` and `ci_low` / `ci_high` its paired bootstrap interval. McNemar rows
    (metric `mcnemar_accuracy`) instead carry `mcnemar_b` (instances A got right and B wrong),
    `mcnemar_c` (A wrong, B right) and the exact two-sided `p_value`; those fields are None elsewhere.
    They are not called `b` and `c` because `b` already holds run B's value.
    """

    metric: str
    group: str
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    unit: str = "instance"
    ci_method: str = "paired family bootstrap"
    mcnemar_b: int | None = None
    mcnemar_c: int | None = None
    p_value: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "group": self.group,
            "a": self.a,
            "b": self.b,
            "diff": self.diff,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
            "unit": self.unit,
            "ci_method": self.ci_method,
            "mcnemar_b": self.mcnemar_b,
            "mcnemar_c": self.mcnemar_c,
            "p_value": self.p_value,
        }


def matched_scored(records_a: Sequence[Record], records_b: Sequence[Record]) -> tuple[list[Record], list[Record]]:
    """The records of both runs for the episodes present and scored in both, aligned by episode id.

    Raises:
        RunError: If the runs share no episode id, a run holds an episode twice, or the two runs
            disagree on an episode's keys.
    """
    by_id_a, by_id_b = _by_episode(records_a, "A"), _by_episode(records_b, "B")
    shared = sorted(by_id_a.keys() & by_id_b.keys())
    if not shared:
        raise RunError(
            f"the two runs share no episode id (A has {len(by_id_a)} records, B has {len(by_id_b)}); "
            "compare runs of the same dataset"
        )
    for episode_id in shared:
        if by_id_a[episode_id].keys != by_id_b[episode_id].keys:
            raise RunError(
                f"episode {episode_id!r} has different keys in the two runs; are they runs of the same dataset?"
            )
    both = [e for e in shared if by_id_a[e].status.scored and by_id_b[e].status.scored]
    return [by_id_a[e] for e in both], [by_id_b[e] for e in both]


def _by_episode(records: Sequence[Record], run: str) -> dict[str, Record]:
    by_id: dict[str, Record] = {}
    for record in records:
        if record.episode_id in by_id:
            raise RunError(f"run {run} holds episode {record.episode_id!r} twice; a run must hold each episode once")
        by_id[record.episode_id] = record
    return by_id
