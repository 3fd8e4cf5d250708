"""Usage rows: totals of the records' usage counts, throughput from the wall time, cost from prices."""

from __future__ import annotations

import pytest

from heedful.metrics.usage import USAGE_GROUP, format_usage, usage_rows
from heedful.records import Record, Status


def record(i: int, **usage: int) -> Record:
    return Record(episode_id=f"e{i}", index=i, status=Status.OK, usage=usage)


def test_usage_rows_total_the_records_and_add_throughput_and_cost() -> None:
    records = [
        record(0, requests=1, cache_hits=0, model_calls=2, retries=1, prompt_tokens=300, completion_tokens=20),
        record(1, requests=1, cache_hits=1, model_calls=0, retries=0, prompt_tokens=0, completion_tokens=0),
        record(2, requests=1, model_calls=1, prompt_tokens=100, completion_tokens=30, extra=4),
    ]
    prices = {"prompt_per_million": 1.0, "completion_per_million": 4.0, "currency": "EUR"}
    rows = usage_rows(records, wall_time_s=4.0, prices=prices)
    values = {row.metric: row.value for row in rows}
    assert all(row.group == USAGE_GROUP and row.n == 3 and row.ci_low is None for row in rows)
    assert values == {
        "requests": 3.0,
        "cache_hits": 1.0,
        "model_calls": 3.0,
        "retries": 1.0,
        "prompt_tokens": 400.0,
        "completion_tokens": 50.0,
        "extra": 4.0,
        "wall_time_s": 4.0,
        "requests_per_s": 0.75,
        "completion_tokens_per_s": 12.5,
        "cost": pytest.approx((400 * 1.0 + 50 * 4.0) / 1e6),
    }
    assert next(row.unit for row in rows if row.metric == "cost") == "EUR"
    line = format_usage(rows)
    assert line.startswith("usage: requests 3, cache hits 1, model calls 3 (retries 1), tokens 400 prompt + 50")
    assert line.endswith("cost 0.000600 EUR")


def test_runs_without_usage_have_no_usage_rows_and_zero_wall_time_has_no_rate() -> None:
    assert usage_rows([Record(episode_id="e", index=0, status=Status.OK)], wall_time_s=1.0) == []
    assert format_usage([]) == ""
    rows = usage_rows([record(0, requests=1)], wall_time_s=0.0)
    assert {row.metric: row.value for row in rows}["requests_per_s"] is None
    assert "cost" not in {row.metric for row in rows}
