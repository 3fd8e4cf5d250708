"""Test doubles for CLI tests: a deliberately slow oracle, so a run can be killed halfway."""

from __future__ import annotations

import time
from typing import Any

from heedful.agents.decisions import OracleAgent


class SlowOracleAgent(OracleAgent):
    """Test double: the oracle, sleeping 10 ms per episode."""

    name = "slow-oracle"

    def decide(self, observation: Any) -> Any:
        time.sleep(0.01)
        return super().decide(observation)


def evaluate_slow(out: str, resume: bool) -> None:
    from heedful.agents.registry import AGENTS
    from heedful.api import evaluate

    AGENTS.register("decisions/slow-oracle", "slow_agents:SlowOracleAgent")
    evaluate(suite="decisions", agent="slow-oracle", out=out, limit=400, order="file", resume=resume, progress=False)


if __name__ == "__main__":
    import sys

    evaluate_slow(sys.argv[1], resume=False)
