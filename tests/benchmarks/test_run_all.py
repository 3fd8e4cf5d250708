"""`benchmarks/run_all.py --quick` runs every benchmark at tiny sizes: a smoke test, never a timing test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.render
@pytest.mark.timeout(600)
def test_every_benchmark_runs_and_reports_its_ratios(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    script = ROOT / "benchmarks" / "run_all.py"
    done = subprocess.run([sys.executable, str(script), "--quick", "--json", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from measures import MEASURES

    assert report["quick"] is True and report["machine"]["cpus"] >= 1
    assert [r["measure"] for r in report["results"]] == list(MEASURES)
    for result in report["results"]:
        assert "error" not in result and result["rows"], result
        assert result["peak_mb"] > 0
        for row in result["rows"]:
            assert row["ratio"] > 0 and row["met"] in (True, False, None), row
    assert "measure" in done.stdout and "peak MB" in done.stdout  # the table
