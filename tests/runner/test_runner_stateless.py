"""The run order hides which episodes belong together, and the stateless audit replays episodes elsewhere in it."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from heedful.api import evaluate
from heedful.errors import ConfigError
from heedful.records import Record, Status
from heedful.runner.run import run_order
from heedful.runner.stateless import StatelessAudit, audit_sample, combined_audit, differences, replay_order
from heedful.seeding import episode_token


def test_the_run_order_is_a_seeded_shuffle_that_separates_neighbours() -> None:
    todo = [(i, f"f{i // 4:03d}-{i % 4}") for i in range(4000)]  # 1000 families of 4 in a row, as decisions
    shuffled = run_order(todo, 0)
    assert sorted(shuffled) == todo and shuffled == run_order(todo, 0) and shuffled != run_order(todo, 1)
    adjacent = sum(a[1][:4] == b[1][:4] for a, b in itertools.pairwise(shuffled))
    assert adjacent <= 12  # chance level (about 3 expected): no family runs in a row; 3999 pairs were adjacent


@pytest.mark.parametrize("n", [2, 3, 5, 40])
def test_a_replay_starts_elsewhere_and_covers_every_episode(n: int) -> None:
    for seed in range(20):
        order = replay_order(n, seed)
        assert sorted(order) == list(range(n)) and order[0] == n - 1


def _record(episode_id: str, index: int, output: str, status: Status = Status.OK) -> Record:
    return Record(episode_id=episode_id, index=index, status=status, raw_output=output, prediction=output)


def test_answers_are_compared_without_timing_and_by_episode() -> None:
    stored = [_record("a", 0, "x"), _record("b", 1, "y")]
    timed = [_record("b", 1, "y"), _record("a", 0, "x")]
    timed[0].timing["wall_s"] = 3.0
    assert differences(stored, timed) == []
    found = differences(stored, [_record("a", 0, "x"), _record("b", 1, "z")])
    assert found == ["b: 'y' in the run, 'z' on replay"]
    assert differences(stored, stored[:1]) == ["b: not replayed"]


def test_the_audit_sample_is_seeded_and_takes_scored_records_only() -> None:
    records: Sequence[Record] = [_record(f"e{i}", i, "x", Status.OK if i % 5 else Status.CRASHED) for i in range(50)]
    sample = audit_sample(records, 10, seed=3)
    assert len(sample) == 10 and all(r.status.scored for r in sample) and sample == audit_sample(records, 10, seed=3)
    assert len(audit_sample(records, 1000, seed=3)) == 40


def test_tokens_are_opaque_per_run_and_stable() -> None:
    assert episode_token(7) == episode_token(7) != episode_token(8)
    assert episode_token(7).startswith("ep-") and len(episode_token(7)) == 15


def test_a_negative_audit_is_refused(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="--audit-stateless takes a number of episodes"):
        evaluate(
            suite="decisions", agent="random-valid", out=tmp_path / "r", limit=4, progress=False, audit_stateless=-1
        )


def test_a_clean_audit_is_recorded_and_raises_no_flag() -> None:
    clean = StatelessAudit(replayed=5, differing=0)
    assert clean.flag is None
    assert "stateful: 2 of 5 answers changed" in str(StatelessAudit(replayed=5, differing=2).flag)


def test_the_audits_of_shards_merge_into_one() -> None:
    first, second = StatelessAudit(replayed=4, differing=1, examples=["a: x"]), StatelessAudit(replayed=6, differing=0)
    merged = combined_audit([first, None, second])
    assert merged == StatelessAudit(replayed=10, differing=1, examples=["a: x"])
    assert combined_audit([None, None]) is None
