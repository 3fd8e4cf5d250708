"""`heedful report RUN` leads with the answer: the headline table and the overall row with its reference level, then
one line per group; every block only under --full. Side-by-side labels and `heedful compare` name what differs."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace

import pytest

from heedful.cli import main
from heedful.metrics.reference import Reference
from heedful.report.labels import differences_line, short_labels
from heedful.runner.manifest import read_manifest


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("summary")
    common = ["run", "decisions", "--agent", "random-valid", "--limit", "16", "--no-progress"]
    assert main([*common, "--out", str(root / "plain")]) == 0
    assert main([*common, "--mask", "--out", str(root / "masked")]) == 0
    return root / "plain", root / "masked"


def test_the_report_opens_with_the_category_table_then_the_overall_row_with_chance(
    two_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = two_runs[0]
    assert main(["report", str(run), "--resamples", "200"]) == 0
    short = capsys.readouterr().out
    lines = short.splitlines()
    headline, overall = lines.index("Per constraint category (%, 95% CI)"), lines.index("all")
    assert lines[0].startswith("decisions | agent random-valid") and headline < overall
    assert lines[overall + 1].split() == ["metric", "value", "chance", "95%", "CI", "Wilson", "95%", "k/n"]
    assert "per group (values in %)" in short and f"heedful report {run} --full" in lines[-1]
    assert blocks(short) == ["all"]  # the group blocks wait for --full
    assert main(["report", str(run), "--resamples", "200", "--full"]) == 0
    full = capsys.readouterr().out
    assert "all" in blocks(full) and len(blocks(full)) > 3


def blocks(text: str) -> list[str]:
    """The groups with a block of their own (a name line, then the metric table's header line)."""
    lines = text.splitlines()
    return [name for name, nxt in pairwise(lines) if nxt.split()[:2] == ["metric", "value"]]


def test_labels_and_compare_name_the_options_in_which_runs_differ(
    two_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    manifests = [read_manifest(run) for run in two_runs]
    assert short_labels(manifests, list(two_runs)) == ["random-valid (mask=(default))", "random-valid (mask=true)"]
    assert short_labels(manifests[:1] * 2, ["a", "b"]) == ["random-valid [a]", "random-valid [b]"]
    assert differences_line(*manifests) == "the runs differ in: mask (A (default), B true)"
    assert main(["compare", *map(str, two_runs), "--resamples", "100"]) == 0
    head = capsys.readouterr().out.splitlines()[:4]
    assert head[2] == "the runs differ in: mask (A (default), B true)"


def test_a_label_leaves_out_where_the_outputs_went() -> None:
    def manifest(options: dict[str, object]) -> SimpleNamespace:
        return SimpleNamespace(spec=SimpleNamespace(agent="oracle", options=options, agent_args={}), agent={})

    runs = [manifest({"trials": 2}), manifest({"trials": 2, "video_dir": "/tmp/a/very/long/path/videos"})]
    assert short_labels(runs, ["plain", "video"]) == ["oracle [plain]", "oracle [video]"]
    assert short_labels([runs[0], manifest({"trials": 1})], ["a", "b"]) == ["oracle (trials=2)", "oracle (trials=1)"]


def test_each_suites_reference_level_is_named_for_what_it_is() -> None:
    from heedful.metrics.reference import GENERIC
    from heedful.metrics.scoring import reference_of
    from heedful.suites.registry import get_suite

    def reference(name: str) -> Reference:
        return reference_of(get_suite(name))  # declared with the suite's scoring

    assert reference("decisions").label == "chance"
    assert reference("tabletop").label == "blind draw" and "not chance" in reference("tabletop").note
    assert reference("household").label == "words-only" and "not chance" in reference("household").note
    assert reference_of(object()) == GENERIC  # a suite without a declared scoring
