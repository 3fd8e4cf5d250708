"""Usage of a run: requests, cache hits, model calls, tokens, wall time, throughput and cost.

Computed from the records' `usage` counts and two manifest facts (wall time over every session, and the
agent's price table if it had one). Rows have group `usage`; a run whose records carry no usage (a
scripted baseline) has none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from heedful.metrics.rows import MetricRow
from heedful.records import Record

USAGE_GROUP = "usage"
COUNTS = ("requests", "cache_hits", "model_calls", "retries", "prompt_tokens", "completion_tokens")


def usage_totals(records: Sequence[Record]) -> dict[str, int]:
    """Each usage count summed over the records (every count in COUNTS is present once any record has usage)."""
    totals: dict[str, int] = {}
    for record in records:
        for key, value in record.usage.items():
            totals[key] = totals.get(key, 0) + int(value)
    if totals:
        for key in COUNTS:
            totals.setdefault(key, 0)
    return totals


def _row(metric: str, value: float | None, n: int, unit: str) -> MetricRow:
    return MetricRow(
        metric=metric, group=USAGE_GROUP, value=value, ci_low=None, ci_high=None, n=n, unit=unit, ci_method="total"
    )


def _rate(amount: int, seconds: float) -> float | None:
    return amount / seconds if seconds > 0 else None


def usage_rows(
    records: Sequence[Record], *, wall_time_s: float, prices: Mapping[str, Any] | None = None
) -> list[MetricRow]:
    """Usage rows of a run.

    Args:
        records: The run's records.
        wall_time_s: Wall time summed over the run's sessions (from the manifest).
        prices: `{"prompt_per_million", "completion_per_million", "currency"}` from the agent's
            description, or None; gives a `cost` row of the tokens the model processed (cache hits are free).

    Returns:
        Rows of group `usage`: the counts of COUNTS, `wall_time_s`, `requests_per_s`,
        `completion_tokens_per_s`, and `cost` when prices are given. Empty when no record has usage.
    """
    totals = usage_totals(records)
    if not totals:
        return []
    n = len(records)
    rows = [_row(key, float(totals[key]), n, "record") for key in COUNTS]
    rows += [_row(key, float(value), n, "record") for key, value in sorted(totals.items()) if key not in COUNTS]
    rows.append(_row("wall_time_s", wall_time_s, n, "record"))
    rows.append(_row("requests_per_s", _rate(totals["requests"], wall_time_s), n, "record"))
    rows.append(_row("completion_tokens_per_s", _rate(totals["completion_tokens"], wall_time_s), n, "record"))
    if prices:
        cost = (
            totals["prompt_tokens"] * float(prices["prompt_per_million"])
            + totals["completion_tokens"] * float(prices["completion_per_million"])
        ) / 1e6
        rows.append(_row("cost", cost, n, str(prices.get("currency", "USD"))))
    return rows


def format_usage(rows: Sequence[MetricRow]) -> str:
    """The usage rows as one readable line (the metric table shows proportions, usage rows are counts)."""
    values = {row.metric: row.value for row in rows if row.group == USAGE_GROUP}
    if not values:
        return ""

    def count(name: str) -> str:
        value = values.get(name)
        return "-" if value is None else f"{value:.0f}"

    def rate(name: str) -> str:
        value = values.get(name)
        return "-" if value is None else f"{value:.2f}"

    parts = [
        f"requests {count('requests')}",
        f"cache hits {count('cache_hits')}",
        f"model calls {count('model_calls')} (retries {count('retries')})",
        f"tokens {count('prompt_tokens')} prompt + {count('completion_tokens')} completion",
        f"wall {rate('wall_time_s')} s",
        f"{rate('requests_per_s')} requests/s",
        f"{rate('completion_tokens_per_s')} completion tokens/s",
    ]
    cost_rows = [row for row in rows if row.group == USAGE_GROUP and row.metric == "cost"]
    if cost_rows and cost_rows[0].value is not None:
        parts.append(f"cost {cost_rows[0].value:.6f} {cost_rows[0].unit}")
    return "usage: " + ", ".join(parts)
