"""benchmarks/batched_policy.py: heavy-net's latency profile is a deterministic batched controller (a row's answer
is bit for bit the same in a batch as alone), and the benchmark compares each configuration's records with batch 1's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from batched_policy import HeavyNetPolicy  # noqa: E402


def _observations(count: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(3)
    return [{"state": rng.normal(scale=0.5, size=8), "prompt": f"put the block {i} in the bowl"} for i in range(count)]


def test_the_latency_profile_answers_a_row_the_same_in_a_batch_as_alone() -> None:
    policy = HeavyNetPolicy(profile="latency", depth=300, width=32, chunk=2)
    observations = _observations(32)
    batched = policy.predict_batch(observations)
    alone = [policy.predict(o) for o in observations]
    assert len(batched) == 32 and all(b.shape == (2, 7) for b in batched)
    assert all(np.array_equal(b, a) for b, a in zip(batched, alone, strict=True))
    # a live network: its answers differ between observations (activations neither died out nor all saturated)
    assert len({b[:, :3].tobytes() for b in batched}) == 32
    assert 0.0 < np.mean([np.abs(b[:, :3]).mean() for b in batched]) < 0.5


def test_the_profiles_are_checked() -> None:
    with pytest.raises(ValueError, match="profile"):
        HeavyNetPolicy(profile="fast")
    with pytest.raises(ValueError, match="too narrow"):
        HeavyNetPolicy(profile="latency", depth=2, width=8)


@pytest.mark.timeout(300)
def test_the_benchmark_reports_batched_records_equal_to_unbatched(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    argv = ["--limit", "2", "--workers", "1", "--batch", "1", "2", "--depth", "40", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "batched_policy.py"), *argv], text=True, capture_output=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert [(r["workers"], r["batch"]) for r in rows] == [(1, 1), (1, 2)]
    assert rows[1]["mean_batch"] > 1.5 and rows[0]["mean_batch"] == 1.0  # the two trials did share calls
    assert [r["records_equal_batch_1"] for r in rows] == [True, True]
    assert rows[0]["counts"] == rows[1]["counts"] and sum(rows[0]["counts"].values()) == 2
    assert "one call" in done.stdout and "records = batch 1" in done.stdout


def test_the_table_says_when_a_configuration_s_records_differ_from_batch_1(capsys: pytest.CaptureFixture[str]) -> None:
    from batched_policy import summary

    def row(batch: int, digest: str) -> dict[str, Any]:
        return {
            "workers": 2,
            "batch": batch,
            "trials": 4,
            "wall_s": 8.0 / batch,
            "cpu_s": 8.0,
            "mean_batch": batch,
            "peak_mb": 500.0,
            "complete": 0.0,
            "records_sha256": digest,
        }

    rows = [row(1, "a"), row(4, "a"), row(16, "b")]
    summary(rows)
    assert [r["records_equal_batch_1"] for r in rows] == [True, True, False]
    assert [r["speedup"] for r in rows] == [1.0, 4.0, 16.0]
    assert capsys.readouterr().out.splitlines()[-1].split()[-2] == "NO"
