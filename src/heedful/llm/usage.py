"""Usage accounting, prices and budgets of language-model requests.

A `UsageMeter` is shared by every thread of one agent. It counts model calls and tokens, and refuses a new
call (BudgetExceededError) once `--max-requests` or `--max-cost` is spent. Counts of earlier sessions of
the same run are charged first, so a budget covers the whole run, not one session.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from heedful.errors import BudgetExceededError, ConfigError

PRICE_FIELDS = ("prompt_per_million", "completion_per_million")


@dataclass(frozen=True)
class Prices:
    """Prices per million tokens."""

    prompt_per_million: float
    completion_per_million: float
    currency: str = "USD"

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Cost of the given token counts."""
        return (prompt_tokens * self.prompt_per_million + completion_tokens * self.completion_per_million) / 1e6

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _prices_from(entry: Any, where: str) -> Prices:
    if not isinstance(entry, dict) or any(field not in entry for field in PRICE_FIELDS):
        raise ConfigError(f"{where} must be an object with {' and '.join(PRICE_FIELDS)} (numbers, per million tokens)")
    values = [entry[field] for field in PRICE_FIELDS]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 for v in values):
        raise ConfigError(f"{where}: {' and '.join(PRICE_FIELDS)} must be non-negative numbers, got {values}")
    currency = entry.get("currency", "USD")
    return Prices(float(values[0]), float(values[1]), str(currency))


def load_prices(path: Path | str, model: str) -> Prices:
    """Read a price table (JSON, per million tokens) and return the prices of `model`.

    Two shapes are accepted: one price for every model,
    `{"prompt_per_million": 0.15, "completion_per_million": 0.6, "currency": "USD"}`, or prices by model name,
    `{"models": {"gpt-4o-mini": {"prompt_per_million": 0.15, "completion_per_million": 0.6}}}`.

    Raises:
        ConfigError: the file is missing, is not such JSON, or has no entry for `model`.
    """
    path = Path(path)
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"cannot read the price table {path}: {err}") from err
    except json.JSONDecodeError as err:
        raise ConfigError(f"the price table {path} is not valid JSON: {err}") from err
    if isinstance(table, dict) and "models" in table:
        models = table["models"]
        if not isinstance(models, dict) or model not in models:
            known = ", ".join(sorted(models)) if isinstance(models, dict) else "none"
            raise ConfigError(f"the price table {path} has no entry for model {model!r}; it lists: {known}")
        return _prices_from(models[model], f"{path}: models.{model}")
    return _prices_from(table, str(path))


@dataclass(frozen=True)
class Budget:
    """Limits of one run: model calls (every request sent, retries included) and cost."""

    max_requests: int | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        if self.max_requests is not None and self.max_requests < 1:
            raise ConfigError(f"--max-requests must be at least 1, got {self.max_requests}")
        if self.max_cost is not None and not (math.isfinite(self.max_cost) and self.max_cost > 0):
            raise ConfigError(f"--max-cost must be a positive number, got {self.max_cost}")

    @property
    def limited(self) -> bool:
        return self.max_requests is not None or self.max_cost is not None


class UsageMeter:
    """Thread-safe totals of model calls and tokens, checked against a budget before every call."""

    def __init__(self, budget: Budget | None = None, prices: Prices | None = None) -> None:
        self.budget = budget or Budget()
        if self.budget.max_cost is not None and prices is None:
            raise ConfigError("--max-cost needs a price table: pass --price-table FILE (prices per million tokens)")
        self.prices = prices
        self._lock = threading.Lock()
        self.model_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def charge_previous(self, totals: Mapping[str, int]) -> None:
        """Count usage of earlier sessions of the run (summed record `usage`) against the budget."""
        with self._lock:
            self.model_calls += int(totals.get("model_calls", 0))
            self.prompt_tokens += int(totals.get("prompt_tokens", 0))
            self.completion_tokens += int(totals.get("completion_tokens", 0))

    @property
    def cost(self) -> float | None:
        if self.prices is None:
            return None
        return self.prices.cost(self.prompt_tokens, self.completion_tokens)

    def reserve_call(self) -> None:
        """Count one model call, or raise BudgetExceededError if the budget is spent."""
        with self._lock:
            spent = self._spent_reason()
            if spent:
                raise BudgetExceededError(spent)
            self.model_calls += 1

    def add_tokens(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    def _spent_reason(self) -> str | None:
        budget = self.budget
        if budget.max_requests is not None and self.model_calls >= budget.max_requests:
            return (
                f"the run's request budget is spent: {self.model_calls} model calls of --max-requests "
                f"{budget.max_requests}; finished records are kept: continue with --resume and a larger --max-requests"
            )
        cost = self.cost
        if budget.max_cost is not None and cost is not None and cost >= budget.max_cost:
            currency = self.prices.currency if self.prices else ""
            return (
                f"the run's cost budget is spent: {cost:.6f} {currency} of --max-cost {budget.max_cost} "
                f"({self.prompt_tokens} prompt + {self.completion_tokens} completion tokens); finished records "
                "are kept: continue with --resume and a larger --max-cost"
            )
        return None
