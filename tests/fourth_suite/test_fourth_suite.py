"""A fourth suite and its agents, registered through entry points only (a package's metadata, as a third party
ships it), run through the command line, checked and reported: no file of heedful is edited to add them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ENTRY_POINTS = """\
[heedful.suites]
parity = parity_suite:SUITE

[heedful.agents]
parity/oracle = parity_suite:OracleAgent
parity/ignore = parity_suite:IgnoreAgent
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment where the `heedful-parity` distribution is installed: its module and its dist-info."""
    site = tmp_path_factory.mktemp("site")
    shutil.copy(HERE / "parity_suite.py", site)
    info = site / "heedful_parity-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: heedful-parity\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


def heedful(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "heedful", *args], env=env, capture_output=True, text=True)


def _accuracy(env: dict[str, str], run: Path) -> float:
    done = heedful(env, "report", str(run), "--format", "json", "--resamples", "200")
    assert done.returncode == 0, done.stderr
    rows = {row["metric"]: row for row in json.loads(done.stdout)}
    return float(rows["accuracy"]["value"])


def test_the_fourth_suite_is_listed_checked_generated_run_reported_compared(
    installed: dict[str, str], tmp_path: Path
) -> None:
    listing = heedful(installed, "list")
    assert "suite parity: agents ignore, oracle" in listing.stdout, listing.stderr
    help_text = heedful(installed, "run", "parity", "--help").stdout
    assert "parity run options" in help_text and "--reverse" in help_text and "--perception" not in help_text
    for check in (["suite", "parity"], ["agent", "parity/oracle"], ["agent", "parity/ignore"]):
        done = heedful(installed, "check", *check)
        assert done.returncode == 0 and "keeps the contract" in done.stdout, done.stdout + done.stderr

    # `heedful generate` passes its progress bar as `progress=`, which the Suite protocol declares
    dataset = tmp_path / "dataset"
    done = heedful(installed, "generate", "parity", "--out", str(dataset), "--no-progress")
    assert done.returncode == 0 and "wrote 40 episodes" in done.stdout, done.stdout + done.stderr
    summary = json.loads((dataset / "dataset.json").read_text(encoding="utf-8"))
    assert (summary["suite"], summary["version"]) == ("parity", "parity-v1")  # so another suite refuses it:
    done = heedful(installed, "run", "decisions", "--agent", "oracle", "--dataset", str(dataset), "--out", "-")
    assert done.returncode != 0 and "is a parity dataset" in done.stderr, done.stderr

    runs = {}
    for agent, flags in (("oracle", ["--dataset", str(dataset)]), ("ignore", []), ("ignore-reversed", ["--reverse"])):
        runs[agent] = tmp_path / agent
        args = ["run", "parity", "--agent", agent.split("-")[0], "--out", str(runs[agent]), "--no-progress", *flags]
        done = heedful(installed, *args)
        assert done.returncode == 0, done.stderr
    manifest = json.loads((runs["ignore-reversed"] / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["spec"]["options"] == {"reverse": True}  # the suite's own flag reached the run
    assert _accuracy(installed, runs["oracle"]) == 1.0
    # the agent that ignores the instruction gets exactly the "largest" half, in either order of the numbers
    assert _accuracy(installed, runs["ignore"]) == _accuracy(installed, runs["ignore-reversed"]) == 0.5

    compared = heedful(installed, "compare", str(runs["oracle"]), str(runs["ignore"]), "--resamples", "200")
    assert compared.returncode == 0, compared.stderr
    assert "accuracy" in compared.stdout and "McNemar" in compared.stdout


def test_without_the_distribution_the_suite_is_unknown(tmp_path: Path) -> None:
    done = heedful(dict(os.environ), "run", "parity", "--agent", "oracle", "--out", str(tmp_path / "r"))
    assert done.returncode == 2 and "invalid choice: 'parity'" in done.stderr
