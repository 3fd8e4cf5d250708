"""Prices, budgets and the thread-safe usage meter."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from heedful.errors import BudgetExceededError, ConfigError
from heedful.llm.usage import Budget, Prices, UsageMeter, load_prices


def write(tmp_path: Path, table: object) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(table))
    return path


def test_price_tables_give_prices_per_million_tokens(tmp_path: Path) -> None:
    flat = write(tmp_path, {"prompt_per_million": 0.15, "completion_per_million": 0.6})
    assert load_prices(flat, "any") == Prices(0.15, 0.6, "USD")
    by_model = write(
        tmp_path, {"models": {"m": {"prompt_per_million": 1, "completion_per_million": 2, "currency": "EUR"}}}
    )
    prices = load_prices(by_model, "m")
    assert prices == Prices(1.0, 2.0, "EUR") and prices.cost(1_000_000, 500_000) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"models": {"other": {"prompt_per_million": 1, "completion_per_million": 2}}}, "no entry for model 'm'"),
        ({"prompt_per_million": 1}, "completion_per_million"),
        ({"prompt_per_million": -1, "completion_per_million": 2}, "non-negative"),
        ({"prompt_per_million": "1", "completion_per_million": 2}, "non-negative"),
    ],
)
def test_bad_price_tables_are_config_errors(tmp_path: Path, table: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_prices(write(tmp_path, table), "m")


def test_unreadable_price_tables_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_prices(tmp_path / "missing.json", "m")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_prices(tmp_path / "bad.json", "m")


def test_the_request_budget_admits_exactly_its_calls_across_threads() -> None:
    meter = UsageMeter(Budget(max_requests=50))
    admitted, refused = [], []

    def work() -> None:
        for _ in range(20):
            try:
                meter.reserve_call()
                admitted.append(1)
            except BudgetExceededError as err:
                refused.append(str(err))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(admitted) == 50 and len(refused) == 110
    assert "--max-requests 50" in refused[0] and "--resume" in refused[0]


def test_the_cost_budget_counts_earlier_sessions_and_needs_prices() -> None:
    meter = UsageMeter(Budget(max_cost=1.0), Prices(1.0, 2.0))
    meter.charge_previous({"model_calls": 3, "prompt_tokens": 400_000, "completion_tokens": 200_000})
    meter.reserve_call()  # 0.8 spent
    meter.add_tokens(100_000, 50_000)  # 1.0 spent
    with pytest.raises(BudgetExceededError, match=r"--max-cost 1\.0"):
        meter.reserve_call()
    assert meter.model_calls == 4
    with pytest.raises(ConfigError, match="--price-table"):
        UsageMeter(Budget(max_cost=1.0))
    with pytest.raises(ConfigError):
        Budget(max_requests=0)
