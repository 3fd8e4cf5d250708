"""The household report head and `heedful compare` for two household runs: SR and SPL side by side."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
from household_data import first
from household_row_house import s_hum_two_bathrooms, s_obj_human_in_view

from heedful.cli.main import main
from heedful.metrics.compare import ComparisonRow
from heedful.metrics.rows import MetricRow
from heedful.metrics.tables import listing_comparison_text, table_text
from heedful.records import Record, Status
from heedful.runner import RunSpec, run
from heedful.suites.household.layouts import PAPER_TABLES
from heedful.suites.household.metrics import compare_household_runs, household_metrics
from heedful.suites.household.suite import SUITE


def summary_table(rows: list[MetricRow]) -> str:
    """The report's headline: the declared first paper table through the one renderer."""
    return table_text(PAPER_TABLES[0], rows)


def comparison_summary(rows: list[ComparisonRow]) -> str:
    return listing_comparison_text(PAPER_TABLES[0], rows)


def record(i: int, task_type: str, ambiguous: str, success: bool, spl: float) -> Record:
    return Record(
        episode_id=f"e{i:02d}",
        index=i,
        status=Status.OK,
        correct=success,
        keys={"split": "test_seen", "task_type": task_type, "ambiguous": ambiguous, "house_id": "h0"},
        scores={"success": float(success), "spl": spl},
    )


def two_runs() -> tuple[list[Record], list[Record]]:
    """A wins on ambiguous S_hum (4 of 4 vs 1 of 4); both solve PnP and clear S_hum alike."""
    a, b = [], []
    for i in range(4):
        a.append(record(i, "pnp", "n/a", True, 0.9))
        b.append(record(i, "pnp", "n/a", True, 0.9))
        a.append(record(10 + i, "s_hum", "false", True, 1.0))
        b.append(record(10 + i, "s_hum", "false", True, 1.0))
        a.append(record(20 + i, "s_hum", "true", True, 0.8))
        b.append(record(20 + i, "s_hum", "true", i == 0, 0.4 * (i == 0)))
    return a, b


def _line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.strip().startswith(start))


def test_summary_puts_spl_first_per_type_and_clarity() -> None:
    a, _ = two_runs()
    text = summary_table(household_metrics(a, resamples=200))
    assert "SPL is the paper's primary metric" in text.splitlines()[1]
    header = _line(text, "group").split()
    assert header[:4] == ["group", "n", "SPL", "95%"] and header.index("SR") > header.index("SPL")
    lines = text.splitlines()
    body = lines[lines.index(_line(text, "group")) + 1 :]
    assert [line.split()[0] for line in body] == ["all", "PnP", "S_hum", "clear", "ambiguous"]
    assert _line(text, "PnP").split()[1:3] == ["4", "90.0%"]
    assert _line(text, "ambiguous").split()[1:3] == ["4", "80.0%"]  # S_obj is absent: no line for it


def test_comparison_summary_pairs_both_metrics_per_clarity() -> None:
    a, b = two_runs()
    rows = compare_household_runs(a, b, resamples=500)
    assert {"S_hum / clear", "S_hum / ambiguous"} <= {row.group for row in rows}
    text = comparison_summary(rows)
    cells = _line(text, "ambiguous").split()
    # n, SPL A, SPL B, A - B, [CI], SR A, SR B, A - B, [CI], McNemar p
    assert cells[1:5] == ["4", "80.0%", "10.0%", "+70.0"]
    assert cells[7:10] == ["100.0%", "25.0%", "+75.0"] and cells[-1] == "0.2500"
    assert _line(text, "clear").split()[4] == "+0.0"


@pytest.mark.slow
def test_cli_report_and_compare_of_two_household_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = SUITE
    episodes = [first("pnp"), s_hum_two_bathrooms(), s_obj_human_in_view()]
    suite.save_dataset(episodes, tmp_path / "ds", {"seed": 0})
    for agent in ("commonsense", "situated"):
        spec = RunSpec(
            suite="household",
            suite_version=suite.version,
            dataset_hash=suite.dataset_hash(episodes),
            dataset_source=str(tmp_path / "ds"),
            agent=agent,
            seed=0,
        )
        run(spec, episodes, tmp_path / agent, progress=False)
    capsys.readouterr()
    assert main(["report", str(tmp_path / "situated"), "--resamples", "200"]) == 0
    report = capsys.readouterr().out.splitlines()
    assert report[0].startswith("household | agent situated")
    assert any("primary metric" in line for line in report[:8])  # the headline table leads (issue 45)
    assert main(["compare", str(tmp_path / "situated"), str(tmp_path / "commonsense"), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    spl_gain = float(_line(out, "ambiguous").split()[4])
    assert spl_gain > 15  # points of SPL on the two ambiguous tasks where the evidence decides
    assert _line(out, "PnP").split()[4] == "+0.0"
