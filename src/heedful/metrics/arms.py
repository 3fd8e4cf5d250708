"""The language-dependence table: one agent's runs of one selection under several instruction arms.

Does the agent use the words? For each arm (`heedful.language.arms`) and group (all, then each level / category /
task type) the table gives the main score (the share of scored episodes whose record is `correct`: decisions
accuracy, tabletop complete, household success) with its Wilson interval, the paired difference to the `given`
arm on the episodes scored in both (percentile 95% interval of a paired cluster bootstrap: families for decisions,
tasks for tabletop, episodes otherwise), and under `other` the counterfactual-following rates: how often the
episode met the task the shown words asked ("followed the given words") and the scene's own task ("followed the
scene"), each with its Wilson interval. An agent that ignores the words has differences near 0 and follows the
scene; one that reads them drops under `empty` and follows the given words under `other`.

Pure functions of records (metrics layer: no suite imports).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from heedful.language.arms import ARMS, FOLLOWED_GIVEN, FOLLOWED_SCENE
from heedful.metrics.stats import paired_cluster_bootstrap_diff, wilson_interval
from heedful.records import Record

Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class ArmsView:
    """How a suite's language-dependence table is cut, declared with its scoring (`Scoring.arms`); the defaults
    (another suite's): `all` only, episodes resampled, the score called `correct`."""

    group_key: str | None = None
    """The record key the table is broken down by (decisions: category, tabletop: level, household: task type)."""
    cluster_key: str | None = None
    """The record key whose values the paired bootstrap resamples (decisions: family_id, tabletop: task); None:
    episodes."""
    cluster_label: str = "episode"
    """What the table's note calls those clusters."""
    score: str = "correct"
    """The name of the main score (the share of scored records that are `correct`)."""


@dataclass(frozen=True)
class ArmRow:
    """One arm in one group."""

    arm: str
    group: str
    n: int
    """Scored episodes of this arm in the group."""
    score: float | None
    score_ci: Interval
    paired: int
    """Episodes scored in both this arm and `given` (the difference's units)."""
    diff: float | None
    """Score minus the `given` arm's on the paired episodes (None for `given` itself or without pairs)."""
    diff_ci: Interval
    followed_given: float | None = None
    followed_given_ci: Interval = (None, None)
    followed_scene: float | None = None
    followed_scene_ci: Interval = (None, None)


def _clean(interval: tuple[float, float]) -> Interval:
    return (None if math.isnan(interval[0]) else interval[0], None if math.isnan(interval[1]) else interval[1])


def rate_with_interval(records: Sequence[Record], hit: Sequence[bool]) -> tuple[float | None, Interval]:
    """The share of `records` that `hit` marks, with its Wilson interval (None for no records)."""
    n, k = len(records), sum(hit)
    return (k / n if n else None), _clean(wilson_interval(k, n))


def arm_groups(records: Sequence[Record], key: str | None) -> list[str]:
    """The table's groups: "all", then every value of the record key `key` (level, category, task type)."""
    values = sorted({r.keys.get(key, "") for r in records} - {""}) if key else []
    return ["all", *values]


def in_group(record: Record, key: str | None, group: str) -> bool:
    """Whether `record` belongs to the table row `group` of `arm_groups`."""
    return group == "all" or (key is not None and record.keys.get(key) == group)


def language_dependence(
    view: ArmsView, runs: Mapping[str, Sequence[Record]], *, resamples: int = 2_000, seed: int = 0
) -> list[ArmRow]:
    """The table's rows, arms in `ARMS` order (then any other label), groups `all` first.

    Args:
        view: The suite's cut of the table (its group key and bootstrap cluster).
        runs: Arm -> the records of that arm's run (one selection of one dataset, one agent).
        resamples: Bootstrap replicates of each paired difference.
        seed: Seed of the bootstrap.
    """
    key, cluster = view.group_key, view.cluster_key
    known: tuple[str, ...] = ARMS
    order = sorted(runs, key=lambda arm: (known.index(arm) if arm in known else len(known), arm))
    scored = {arm: [r for r in runs[arm] if r.status.scored] for arm in order}
    given = {r.episode_id: r for r in scored.get("given", [])}
    rows = []
    for group in arm_groups([r for arm in order for r in scored[arm]], key):
        for arm in order:
            mine = [r for r in scored[arm] if in_group(r, key, group)]
            score, score_ci = rate_with_interval(mine, [bool(r.correct) for r in mine])
            pairs = [(r, given[r.episode_id]) for r in mine if r.episode_id in given] if arm != "given" else []
            diff, diff_ci = _paired(pairs, cluster, resamples, seed)
            followed = [r for r in mine if FOLLOWED_GIVEN in r.scores]
            f_given, f_given_ci = rate_with_interval(followed, [r.scores[FOLLOWED_GIVEN] == 1.0 for r in followed])
            f_scene, f_scene_ci = rate_with_interval(followed, [r.scores.get(FOLLOWED_SCENE) == 1.0 for r in followed])
            rows.append(
                ArmRow(arm, group, len(mine), score, score_ci, len(pairs), diff, diff_ci, f_given, f_given_ci,
                       f_scene, f_scene_ci)
            )  # fmt: skip
    return rows


def _paired(
    pairs: Sequence[tuple[Record, Record]], cluster: str | None, resamples: int, seed: int
) -> tuple[float | None, Interval]:
    """Mean of (arm - given) over the pairs, with a paired cluster-bootstrap percentile interval."""
    if not pairs:
        return None, (None, None)
    units: dict[str, list[tuple[float, float]]] = {}
    for arm_record, given_record in pairs:
        unit = arm_record.keys.get(cluster, arm_record.episode_id) if cluster else arm_record.episode_id
        units.setdefault(unit, []).append((float(bool(arm_record.correct)), float(bool(given_record.correct))))
    a = np.array([sum(x for x, _ in v) for v in units.values()])
    b = np.array([sum(y for _, y in v) for v in units.values()])
    den = np.array([float(len(v)) for v in units.values()])
    diff = float(a.sum() / den.sum() - b.sum() / den.sum())
    interval = paired_cluster_bootstrap_diff(a, den, b, den, resamples=resamples, rng=np.random.default_rng(seed))
    return diff, _clean(interval)


def percent_text(value: float | None) -> str:
    """A share as a percentage with one decimal ("-" for none)."""
    return "-" if value is None else f"{100 * value:.1f}"


def interval_text(interval: Interval) -> str:
    """An interval as " [low, high]" in percent (empty when unknown)."""
    low, high = interval
    return "" if low is None or high is None else f" [{100 * low:.1f}, {100 * high:.1f}]"


def render_language_table(view: ArmsView, rows: Sequence[ArmRow], title: str) -> str:
    """The table as terminal text (values in %)."""
    score = view.score
    header = (
        f"{'group':<14} {'arm':<9} {'n':>5}  {score + ' [95% CI]':<22} {'vs given [95% CI]':<34} "
        f"{'followed given words':<22} {'followed scene':<22}"
    )
    lines = [
        title,
        "values in %; score: Wilson interval (episodes as independent); vs given: paired difference on the episodes "
        f"scored in both, {view.cluster_label} bootstrap; followed: under --instruction other, the share of "
        "episodes that met the shown words' task / the scene's own task (Wilson)",
        "",
        header,
    ]
    for row in rows:
        diff = "-" if row.diff is None else f"{100 * row.diff:+.1f}{interval_text(row.diff_ci)} (n={row.paired})"
        followed = row.followed_given is not None
        score = percent_text(row.score) + interval_text(row.score_ci)
        given = percent_text(row.followed_given) + interval_text(row.followed_given_ci) if followed else ""
        scene = percent_text(row.followed_scene) + interval_text(row.followed_scene_ci) if followed else ""
        lines.append(
            f"{row.group:<14} {row.arm:<9} {row.n:>5}  {score:<22} {diff:<34} {given:<22} {scene:<22}".rstrip()
        )
    return "\n".join(lines)
