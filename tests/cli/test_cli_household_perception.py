"""`heedful run household --perception / --noise`: one-line errors with suggestions, and a noisy run whose
manifest and report name the simulated condition and show the Table 8 layout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from heedful.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "household"))
from household_data import small_episodes

RUN = ["run", "household", "--agent", "commonsense", "--no-progress"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--perception", "noisey"], "did you mean 'noisy'"),
        (["--noise", "miss_rate=0.2"], "miss_rate applies to noisy perception only"),
        (["--perception", "noisy", "--noise", "miss_rat=0.2"], "did you mean 'miss_rate'"),
        (["--perception", "noisy", "--noise", "confusion_rate=2"], "confusion_rate must be a number between 0 and 1"),
        (["--perception", "noisy", "--noise", "miss_rate"], "--noise must look like KEY=VALUE"),
    ],
)
def test_bad_perception_options_give_one_line_errors(
    extra: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*RUN, "--out", str(tmp_path / "r"), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "r").exists()


def test_a_noisy_run_names_its_condition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from heedful.suites.household.suite import SUITE

    SUITE.save_dataset(list(small_episodes()), tmp_path / "ds", {"seed": 5})
    args = ["--dataset", str(tmp_path / "ds"), "--limit", "3", "--out", str(tmp_path / "r")]
    assert main([*RUN, *args, "--perception", "noisy", "--noise", "miss_rate=0.25"]) == 0
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    options = manifest["spec"]["options"]
    assert options == {
        "perception": "noisy",
        "detector": "simulated",
        "miss_rate": 0.25,
        "false_positive_rate": 0.1,
        "confusion_rate": 0.1,
    }
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r"), "--resamples", "50", "--full"]) == 0  # the paper tables
    out = capsys.readouterr().out
    assert "perception noisy (simulated segmentation: miss 0.25" in out.splitlines()[0]
    assert "Table 6" in out and "Table 9" in out and "Table 8 layout" in out
    assert main(["report", str(tmp_path / "r"), "--format", "json", "--resamples", "50"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert any(row["metric"] == "failed" for row in rows)
    # status rows are counts, labelled as such (they used to say "family bootstrap" for every suite)
    assert {row["ci_method"] for row in rows if row["group"] == "status"} == {"none"}
    # household resamples episodes: a decisions-only cluster is refused by name, not silently ignored
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r"), "--cluster", "anchor"]) == 2
    err = capsys.readouterr().err
    assert "household reports resample by episode, not 'anchor'" in err and "drop --cluster" in err
    assert main(["report", str(tmp_path / "r"), "--cluster", "episode", "--resamples", "50"]) == 0
