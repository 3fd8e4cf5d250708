"""`heedful plot`: each suite's figure as valid PDF, SVG and PNG, byte-identical twice, runs side by side."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import report_runs

from heedful.api import plot, report
from heedful.cli.main import main
from heedful.errors import ConfigError, MissingDependencyError, RunError
from heedful.metrics.layouts import FigureLayout, Panel, Scatter
from heedful.report.plot import RunRows, build_figure, panels_to_draw
from heedful.suites.registry import get_suite

pytest.importorskip("matplotlib")
RESAMPLES = 200
MAGIC = {"pdf": b"%PDF-", "png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml"}


@pytest.fixture(scope="module")
def household_run() -> Path:
    return report_runs.household_run()


@pytest.fixture(scope="module")
def tabletop_run() -> Path:
    return report_runs.tabletop_run()


def _svg_text(path: Path) -> str:
    """Every <text> of an SVG (matplotlib keeps text as text: svg.fonttype none)."""
    root = ET.parse(path).getroot()
    return " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text"))


@pytest.mark.parametrize(
    ("suite", "fmt"), [("decisions", "svg"), ("household", "svg"), ("tabletop", "svg"), ("household", "pdf")]
)
def test_each_suite_figure_is_a_valid_file(suite: str, fmt: str, runs: dict[str, Path], tmp_path: Path) -> None:
    out = plot([runs[suite]], tmp_path / f"fig.{fmt}", resamples=RESAMPLES)
    data = out.read_bytes()
    assert data.startswith(MAGIC[fmt])
    if fmt == "pdf":
        assert data.rstrip().endswith(b"%%EOF")
        return
    text = _svg_text(out)
    layout = get_suite(suite).figure
    assert layout is not None
    for _, label in layout.panels[0].metrics:  # the legend names the metrics
        assert label in text
    assert f"{suite} suite" in text


def test_several_runs_stand_side_by_side(decisions_runs: dict[str, Path], tmp_path: Path) -> None:
    order = [decisions_runs["oracle"], decisions_runs["majority"]]
    out = plot(order, tmp_path / "two.svg", resamples=RESAMPLES)
    text = _svg_text(out)
    assert "oracle" in text and "majority" in text and "invariance vs sensitivity" in text
    layout = get_suite("decisions").figure
    assert layout is not None
    series = [RunRows(run.name, report(run, resamples=RESAMPLES)[0]) for run in order]
    figure = build_figure(layout, series, "two runs")
    from matplotlib.container import BarContainer

    bar_axes = [axes for axes in figure.axes if any(isinstance(c, BarContainer) for c in axes.containers)]
    assert len(bar_axes) == len(layout.panels[0].metrics) and len(figure.axes) == len(bar_axes) + 1  # + scatter
    for axes in bar_axes:  # one bar group (a BarContainer) per run, the same groups for each
        bars = [c for c in axes.containers if isinstance(c, BarContainer)]
        assert [c.get_label() for c in bars] == ["oracle", "majority"]
        assert len({len(c.patches) for c in bars}) == 1


@pytest.mark.parametrize("fmt", ["pdf", "svg", "png"])
def test_the_same_runs_give_byte_identical_files(fmt: str, decisions_runs: dict[str, Path], tmp_path: Path) -> None:
    runs = [decisions_runs["majority"]]
    first = plot(runs, tmp_path / f"a.{fmt}", resamples=RESAMPLES).read_bytes()
    second = plot(runs, tmp_path / f"b.{fmt}", resamples=RESAMPLES).read_bytes()
    assert first.startswith(MAGIC[fmt]) and first == second


def test_tabletop_png(tabletop_run: Path, tmp_path: Path) -> None:
    from PIL import Image

    out = plot([tabletop_run], tmp_path / "tabletop.png", resamples=RESAMPLES)
    with Image.open(out) as image:
        assert image.format == "PNG" and image.width > image.height > 300


def test_panels_to_draw_split_per_metric_for_several_runs() -> None:
    from heedful.metrics.rows import MetricRow

    layout = FigureLayout(
        panels=(Panel("p", (("a", "A"), ("b", "B")), (("all", "all"), ("g", "G"), ("absent", "X"))),),
        columns=2,
        several_runs=(Scatter("s", ("a", "A"), ("b", "B")),),
    )
    rows = [MetricRow(m, g, 0.5, 0.4, 0.6, 4, ci_method="m") for m in ("a", "b") for g in ("all", "g")]
    one = panels_to_draw(layout, [RunRows("r", rows)])
    assert [(p.title, [g for g, _ in p.groups]) for p in one if isinstance(p, Panel)] == [("p", ["all", "g"])]
    two = panels_to_draw(layout, [RunRows("r", rows), RunRows("s", rows)])
    assert [p.title for p in two] == ["p: A", "p: B", "s"]


def test_runs_of_different_suites_are_refused(
    decisions_runs: dict[str, Path], household_run: Path, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"different suites.*\(decisions\).*\(household\).*its own heedful plot"):
        plot([decisions_runs["oracle"], household_run], tmp_path / "mixed.pdf", resamples=RESAMPLES)
    assert not (tmp_path / "mixed.pdf").exists()


def test_bad_paths_are_typed_errors_naming_the_fix(decisions_runs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\.pdf or \.svg .* or \.png"):
        plot([decisions_runs["oracle"]], tmp_path / "fig.jpg")
    with pytest.raises(RunError, match="is this a run directory"):
        plot([tmp_path], tmp_path / "fig.pdf")
    with pytest.raises(ConfigError, match="at least one run"):
        plot([], tmp_path / "fig.pdf")


def test_a_missing_matplotlib_names_the_extra(
    decisions_runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    with pytest.raises(MissingDependencyError, match=r"heedful\[plots\]"):
        plot([decisions_runs["oracle"]], tmp_path / "fig.pdf")


def test_cli_plot(decisions_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli" / "fig.svg"
    assert main(["plot", str(decisions_runs["oracle"]), "--out", str(out), "--resamples", str(RESAMPLES)]) == 0
    assert out.read_bytes().startswith(MAGIC["svg"]) and "wrote" in capsys.readouterr().out
    assert main(["plot", str(decisions_runs["oracle"]), "--out", str(tmp_path / "fig.gif")]) == 2
    assert capsys.readouterr().err.count("heedful: error:") == 1


def test_the_language_dependence_figure_has_a_bar_per_arm_and_group(tmp_path: Path) -> None:
    from heedful.metrics.arms import ArmRow
    from heedful.report.arms_plot import build_arms_figure, write_arms_figure

    def row(arm: str, group: str, score: float, followed: float | None = None) -> ArmRow:
        return ArmRow(arm, group, 10, score, (score / 2, 1.0), 10, None, (None, None), followed)

    rows = [row("given", "all", 0.8), row("empty", "all", 0.1), row("other", "all", 0.2, 0.7)]
    rows += [row("given", "L0", 1.0), row("empty", "L0", 0.0), row("other", "L0", 0.0, 1.0)]
    figure = build_arms_figure("complete", rows, "arms")
    (axes,) = figure.axes
    assert len(axes.patches) == 6 and [t.get_text() for t in axes.get_xticklabels()] == ["all", "L0"]
    heights = sorted(round(p.get_height(), 6) for p in axes.patches)
    assert heights == [0.0, 0.0, 10.0, 20.0, 80.0, 100.0]
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    write_arms_figure("complete", rows, first, "arms")
    write_arms_figure("complete", rows, second, "arms")
    assert first.read_bytes() == second.read_bytes() and first.read_bytes().startswith(MAGIC["svg"])
    with pytest.raises(ConfigError, match="no scored episode"):
        build_arms_figure("complete", [ArmRow("given", "all", 0, None, (None, None), 0, None, (None, None))], "x")
