"""Decisions metrics on hand-built records whose every value is known by hand."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from heedful.errors import ConfigError, RunError
from heedful.metrics.rows import MetricRow
from heedful.metrics.stats import cluster_bootstrap_ratios
from heedful.records import Record, Status
from heedful.seeding import derive_rng
from heedful.suites.decisions.metrics import METRICS, decision_metrics

ROLES = ("base", "preserve", "change", "change_preserve")
GOLD = {"base": "A", "preserve": "A", "change": "B", "change_preserve": "B"}


def rec(
    family: str,
    role: str,
    pred: Any = None,
    *,
    status: Status = Status.OK,
    gold: Any = None,
    category: str = "set",
    decision_type: str = "single",
    split: str = "test",
    anchor: str = "a1",
    anchor_kind: str = "object",
) -> Record:
    """A decisions record; `correct` follows from the status and exact match, as the suite scores it."""
    gold = GOLD[role] if gold is None else gold
    keys = {
        "family_id": family,
        "anchor_id": anchor,
        "role": role,
        "category": category,
        "subtype": "x",
        "decision_type": decision_type,
        "split": split,
        "anchor_kind": anchor_kind,
    }
    correct = (pred == gold) if status is Status.OK else (False if status.scored else None)
    return Record(
        episode_id=f"{family}/{role}",
        index=0,
        status=status,
        keys=keys,
        gold=gold,
        prediction=pred if status is Status.OK else None,
        correct=correct,
    )


def family(name: str, preds: dict[str, Any], **keys: Any) -> list[Record]:
    return [rec(name, role, pred, **keys) for role, pred in preds.items()]


def hand_run() -> list[Record]:
    """Five families, one behaviour each (values worked out in the docstrings of the tests)."""
    seq: dict[str, Any] = {
        "decision_type": "sequence",
        "split": "train",
        "anchor": "a2",
        "anchor_kind": "action",
    }
    return [
        # F1 perfect
        *family("F1", {"base": "A", "preserve": "A", "change": "B", "change_preserve": "B"}),
        # F2 over-invariant: keeps A everywhere
        *family("F2", {"base": "A", "preserve": "A", "change": "A", "change_preserve": "A"}, category="inhibition"),
        # F3 over-sensitive: changes the decision under a preserving rewrite (ordered sequences)
        *[
            rec("F3", role, pred, gold=gold, category="temporal", **seq)
            for role, pred, gold in (
                ("base", ["x", "y"], ["x", "y"]),
                ("preserve", ["y", "x"], ["x", "y"]),
                ("change", ["y", "z"], ["y", "z"]),
                ("change_preserve", ["y", "z"], ["y", "z"]),
            )
        ],
        # F4 a parse failure (scored, wrong) and a crash (not scored)
        rec("F4", "base", status=Status.PARSE_ERROR, category="cardinality", **seq),
        rec("F4", "preserve", "A", category="cardinality", **seq),
        rec("F4", "change", "B", category="cardinality", **seq),
        rec("F4", "change_preserve", status=Status.CRASHED, category="cardinality", **seq),
        # F5 nothing scored: the transport failed
        rec("F5", "base", status=Status.INTERFACE_ERROR, category="multi", split="val", anchor="a3"),
        rec("F5", "preserve", status=Status.TIMEOUT, category="multi", split="val", anchor="a3"),
    ]


def by_key(rows: list[MetricRow]) -> dict[tuple[str, str], MetricRow]:
    return {(row.group, row.metric): row for row in rows}


@pytest.fixture(scope="module")
def hand_rows() -> dict[tuple[str, str], MetricRow]:
    return by_key(decision_metrics(hand_run(), resamples=500, seed=0))


@pytest.mark.parametrize(
    ("metric", "k", "n", "unit"),
    [
        ("accuracy", 11, 15, "instance"),  # F1 4/4, F2 2/4, F3 3/4, F4 2/3 (parse error wrong, crash out)
        ("parse_success", 14, 15, "instance"),
        ("pair_success", 7, 14, "pair"),  # F1 4/4, F2 1/4, F3 2/4, F4 0/2 (crash drops two pairs)
        ("decision_invariance", 4, 7, "pair"),  # F1 2/2, F2 1/2, F3 1/2, F4 0/1
        ("decision_sensitivity", 3, 7, "pair"),  # F1 2/2, F2 0/2, F3 1/2, F4 0/1
        ("over_invariance", 2, 7, "pair"),  # F2 kept A on both changing pairs
        ("over_sensitivity", 1, 7, "pair"),  # F3 reordered under the preserving rewrite
        ("family_success", 1, 3, "family"),  # F1 of the complete F1, F2, F3
    ],
)
def test_hand_values_for_all(hand_rows: dict[Any, MetricRow], metric: str, k: int, n: int, unit: str) -> None:
    row = hand_rows[("all", metric)]
    assert (row.k, row.n, row.unit) == (k, n, unit)
    assert row.value == pytest.approx(k / n)
    assert row.ci_method == "family bootstrap"
    assert row.value is not None and row.wilson_low is not None and row.wilson_high is not None
    assert row.wilson_low <= row.value <= row.wilson_high


@pytest.mark.parametrize(
    ("group", "metric", "k", "n"),
    [
        ("category:inhibition", "over_invariance", 2, 2),
        ("category:inhibition", "decision_invariance", 1, 2),
        ("category:temporal", "over_sensitivity", 1, 2),
        ("category:temporal", "decision_sensitivity", 1, 2),
        ("category:cardinality", "accuracy", 2, 3),
        ("category:cardinality", "parse_success", 2, 3),
        ("category:cardinality", "family_success", 0, 0),
        ("decision_type:single", "accuracy", 6, 8),
        ("split:train", "pair_success", 2, 6),
        ("anchor_kind:action", "accuracy", 5, 7),
    ],
)
def test_hand_values_per_group(hand_rows: dict[Any, MetricRow], group: str, metric: str, k: int, n: int) -> None:
    row = hand_rows[(group, metric)]
    assert (row.k, row.n) == (k, n)


def test_group_without_scored_units_has_no_value(hand_rows: dict[Any, MetricRow]) -> None:
    for metric in METRICS:
        row = hand_rows[("category:multi", metric)]
        assert (row.k, row.n) == (0, 0)
        assert row.value is None
        assert (row.ci_low, row.ci_high, row.wilson_low, row.wilson_high) == (None, None, None, None)


def test_status_rows_count_every_record(hand_rows: dict[Any, MetricRow]) -> None:
    status = {metric: row for (group, metric), row in hand_rows.items() if group == "status"}
    counts = {metric: row.k for metric, row in status.items()}
    assert counts == {"ok": 14, "parse_error": 1, "interface_error": 1, "timeout": 1, "crashed": 1}
    for row in status.values():
        assert row.n == 18
        assert row.value == pytest.approx(row.k / 18)  # type: ignore[operator]
        assert (row.ci_low, row.ci_high) == (None, None)


def test_groups_are_all_then_sorted_and_status_first() -> None:
    rows = decision_metrics(hand_run(), resamples=100)
    groups = list(dict.fromkeys(row.group for row in rows))
    assert groups == [
        "status",
        "all",
        "anchor_kind:action",
        "anchor_kind:object",
        "category:cardinality",
        "category:inhibition",
        "category:multi",
        "category:set",
        "category:temporal",
        "decision_type:sequence",
        "decision_type:single",
        "split:test",
        "split:train",
        "split:val",
    ]
    assert [row.metric for row in rows if row.group == "all"] == list(METRICS)


def test_parse_failure_is_wrong_and_stays_in_the_denominator() -> None:
    rows = by_key(decision_metrics([rec("F", "base", status=Status.PARSE_ERROR)], resamples=100))
    assert (rows[("all", "accuracy")].k, rows[("all", "accuracy")].n) == (0, 1)
    assert rows[("all", "parse_success")].value == 0.0


def test_pair_metrics_compare_predictions_not_only_correctness() -> None:
    # A degenerate family whose golds break the protocol: the "changing" rewrite keeps gold A and
    # the "preserving" rewrite moves it to C. Correct answers then cannot count as sensitive or invariant.
    records = [
        rec("F", "base", "A"),
        rec("F", "preserve", "C", gold="C"),
        rec("F", "change", "A", gold="A"),
        rec("F", "change_preserve", "A", gold="A"),
    ]
    rows = by_key(decision_metrics(records, resamples=100))
    assert rows[("all", "accuracy")].value == 1.0
    assert (rows[("all", "decision_sensitivity")].k, rows[("all", "decision_sensitivity")].n) == (
        1,
        2,
    )  # (p, cp)
    assert (rows[("all", "decision_invariance")].k, rows[("all", "decision_invariance")].n) == (
        1,
        2,
    )  # (c, cp)
    assert rows[("all", "over_invariance")].k == 1  # (base, change) kept A
    assert rows[("all", "over_sensitivity")].k == 1  # (base, preserve) moved to C


def test_crashed_and_interface_errors_are_not_scored() -> None:
    records = [
        rec("F", "base", "A"),
        rec("F", "preserve", status=Status.CRASHED),
        rec("F", "change", status=Status.INTERFACE_ERROR),
    ]
    rows = by_key(decision_metrics(records, resamples=100))
    assert (rows[("all", "accuracy")].k, rows[("all", "accuracy")].n) == (1, 1)
    assert rows[("all", "pair_success")].n == 0
    assert rows[("status", "crashed")].k == 1
    assert rows[("status", "interface_error")].k == 1


def perfect_run(n_families: int) -> list[Record]:
    return [
        rec(f"P{f}", role, GOLD[role], anchor=f"a{f % 7}", category=("set", "temporal")[f % 2])
        for f in range(n_families)
        for role in ROLES
    ]


@pytest.mark.parametrize("cluster", ["family", "anchor"])
def test_perfect_run_is_one_everywhere_with_collapsed_interval(cluster: str) -> None:
    rows = decision_metrics(perfect_run(30), resamples=500, cluster=cluster)
    metric_rows = [row for row in rows if row.group != "status"]
    assert len(metric_rows) == len(METRICS) * 6  # all, 2 categories, 1 type, 1 split, 1 kind
    for row in metric_rows:
        wrong = row.metric.startswith("over_")
        expected = 0.0 if wrong else 1.0
        assert (row.value, row.ci_low, row.ci_high) == (expected, expected, expected), row
        assert row.ci_method == f"{cluster} bootstrap"
        assert (row.wilson_high if not wrong else row.wilson_low) == expected
    assert by_key(rows)[("status", "ok")].value == 1.0


def test_results_do_not_depend_on_record_order() -> None:
    records = hand_run() + perfect_run(10)
    shuffled = list(records)
    random.Random(4).shuffle(shuffled)
    assert decision_metrics(records, resamples=300) == decision_metrics(shuffled, resamples=300)


def test_a_group_is_the_same_whatever_else_is_in_the_run() -> None:
    records = mixed_run(60, seed=2)
    alone = [r for r in records if r.keys["category"] == "set"]
    full = by_key(decision_metrics(records, resamples=400, seed=3))
    subset = by_key(decision_metrics(alone, resamples=400, seed=3))
    for metric in METRICS:
        assert full[("category:set", metric)] == subset[("category:set", metric)]


def test_families_without_a_scored_instance_change_nothing_but_status() -> None:
    records = mixed_run(40, seed=6)
    crashed = [
        rec(f"X{f}", role, status=Status.CRASHED, category="set", anchor=f"a{f}") for f in range(30) for role in ROLES
    ]
    plain = [row for row in decision_metrics(records, resamples=400) if row.group != "status"]
    padded = [row for row in decision_metrics(records + crashed, resamples=400) if row.group != "status"]
    assert padded == plain


def test_documented_seeding_one_joint_bootstrap_per_group() -> None:
    records = mixed_run(40, seed=6)
    rows = by_key(decision_metrics(records, resamples=300, seed=9))
    for group in ("all", "category:set"):
        families = sorted({r.keys["family_id"] for r in records if group == "all" or r.keys["category"] == "set"})
        # every family of mixed_run is complete and scored: 4 instances, 4 pairs (2 + 2), 1 family
        table = {f: [r for r in records if r.keys["family_id"] == f] for f in families}
        accuracy_num = [sum(bool(r.correct) for r in table[f]) for f in families]
        num = np.array([[k, 4] for k in accuracy_num], dtype=float)
        den = np.array([[4, 4] for _ in families], dtype=float)
        rng = derive_rng(9, "bootstrap", "family", group)
        expected = cluster_bootstrap_ratios(num, den, resamples=300, rng=rng)[0]
        assert (rows[(group, "accuracy")].ci_low, rows[(group, "accuracy")].ci_high) == expected


def test_seed_changes_the_interval_but_not_the_value() -> None:
    records = mixed_run(60, seed=2)
    first = by_key(decision_metrics(records, resamples=400, seed=1))[("all", "accuracy")]
    again = by_key(decision_metrics(records, resamples=400, seed=1))[("all", "accuracy")]
    other = by_key(decision_metrics(records, resamples=400, seed=2))[("all", "accuracy")]
    assert first == again
    assert first.value == other.value
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)


def mixed_run(n_families: int, seed: int, families_per_anchor: int = 1) -> list[Record]:
    """Random families; with several families per anchor, all families of an anchor behave alike."""
    rng = np.random.default_rng(seed)
    records = []
    skills = rng.random(n_families // families_per_anchor + 1) < 0.6
    for f in range(n_families):
        anchor = f // families_per_anchor
        good = bool(skills[anchor])
        for role in ROLES:
            pred = GOLD[role] if good else "A"
            records.append(rec(f"F{f:03d}", role, pred, anchor=f"a{anchor}", category=("set", "multi")[f % 2]))
    return records


def test_anchor_bootstrap_is_wider_when_an_anchors_families_agree() -> None:
    records = mixed_run(200, seed=5, families_per_anchor=5)
    fam = by_key(decision_metrics(records, resamples=2_000, cluster="family"))[("all", "accuracy")]
    anc = by_key(decision_metrics(records, resamples=2_000, cluster="anchor"))[("all", "accuracy")]
    assert anc.ci_method == "anchor bootstrap"
    assert (fam.k, fam.n) == (anc.k, anc.n)
    assert (anc.ci_high - anc.ci_low) > 1.5 * (fam.ci_high - fam.ci_low)  # type: ignore[operator]


def test_interval_contains_the_value() -> None:
    rows = decision_metrics(mixed_run(80, seed=7), resamples=1_000)
    for row in rows:
        if row.group != "status" and row.value is not None:
            assert row.ci_low <= row.value <= row.ci_high  # type: ignore[operator]


def test_empty_run_gives_empty_all_group() -> None:
    rows = decision_metrics([], resamples=10)
    assert [(row.group, row.metric, row.n, row.value) for row in rows] == [
        ("all", metric, 0, None) for metric in METRICS
    ]


def test_duplicate_role_is_an_error() -> None:
    with pytest.raises(RunError, match="both claim role 'base'"):
        decision_metrics([rec("F", "base", "A"), rec("F", "base", "B")])


def test_missing_keys_and_unknown_roles_are_errors() -> None:
    bare = Record(episode_id="e", index=0, status=Status.OK, keys={"family_id": "F"})
    with pytest.raises(RunError, match="lacks the decisions keys"):
        decision_metrics([bare])
    with pytest.raises(RunError, match="unknown role"):
        decision_metrics([rec("F", "base", "A").model_copy(update={"keys": {**rec("F", "base").keys, "role": "x"}})])


def test_family_with_inconsistent_keys_is_an_error() -> None:
    with pytest.raises(RunError, match="mixes category"):
        decision_metrics([rec("F", "base", "A"), rec("F", "change", "B", category="temporal")])


def test_unknown_cluster_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown bootstrap cluster"):
        decision_metrics(hand_run(), cluster="episode")
