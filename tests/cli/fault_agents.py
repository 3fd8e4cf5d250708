"""Test doubles for the exit-code tests: decisions agents that crash, always or on some episodes."""

from __future__ import annotations

import zlib
from typing import Any

from heedful.agents.decisions import OracleAgent


class AlwaysCrashingAgent(OracleAgent):
    """Test double: crashes on every episode with one error (a broken install would do this)."""

    name = "always-crashing"

    def decide(self, observation: Any) -> Any:
        raise RuntimeError("libfoo.so.1: cannot open shared object file")


class SometimesCrashingAgent(OracleAgent):
    """Test double: the oracle, crashing on about a third of the episodes (chosen by a hash of the instruction)."""

    name = "sometimes-crashing"

    def decide(self, observation: Any) -> Any:
        if zlib.crc32(observation.instruction.encode()) % 3 == 0:
            raise ValueError("a flaky answer")
        return super().decide(observation)
