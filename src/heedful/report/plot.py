"""`heedful plot`: a suite's main figure (heedful.metrics.layouts.FigureLayout) from the report rows of its runs.

matplotlib is imported inside these functions only, so `import heedful` and `heedful --help` stay light. Drawing
uses matplotlib's Agg canvas without pyplot (no global backend is switched) and its settings in an `rc_context`.
The same rows give byte-identical files: a fixed SVG hash salt, no dates in the PDF and SVG metadata. Text stays
text: SVG `<text>` elements, TrueType fonts in PDF (many venues reject Type 3 fonts).

One run: each panel has a bar per metric in each group. Several runs: each panel is drawn once per metric, with
one bar per run in each group (the legend names each run's agent), plus the layout's `several_runs` panels.
Error bars are the rows' 95% bootstrap intervals; where one collapsed to a point and the row has a Wilson interval,
that is drawn dashed instead; a dotted tick marks each bar's chance level where the report has one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from heedful.errors import ConfigError, MissingDependencyError
from heedful.metrics.layouts import FigureLayout, Panel, Scatter
from heedful.metrics.rows import MetricRow
from heedful.report import FIGURE_FORMATS

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe and Ito's colour-blind safe colours, one per metric (one run) or per run (several)."""
FIGURE_METADATA: dict[str, dict[str, Any]] = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}
FIGURE_RC = {
    "svg.hashsalt": "heedful",
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@dataclass(frozen=True)
class RunRows:
    """One run's report rows and the label its bars carry in the legend."""

    label: str
    rows: Sequence[MetricRow]
    _by_key: dict[tuple[str, str], MetricRow] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_key", {(row.group, row.metric): row for row in self.rows})

    def get(self, group: str, metric: str) -> MetricRow | None:
        """The row of `metric` in `group` where it has a value."""
        row = self._by_key.get((group, metric))
        return row if row is not None and row.value is not None and math.isfinite(row.value) else None


def figure_format(out: Path) -> str:
    """The format `out`'s extension names.

    Raises:
        ConfigError: an extension other than .pdf, .svg or .png, naming them.
    """
    fmt = out.suffix.lower().removeprefix(".")
    if fmt not in FIGURE_FORMATS:
        raise ConfigError(
            f"cannot tell the figure format of {out}: name the file .pdf or .svg (vector) or .png (raster)"
        )
    return fmt


def figure_title(suite: str, records: Sequence[int]) -> str:
    """ "decisions suite: 40 records" (one run), "... 40 records per run" or "... 40 / 36 records" (several)."""
    if len(set(records)) > 1:
        return f"{suite} suite: {' / '.join(map(str, records))} records"
    return f"{suite} suite: {records[0]} records" + (" per run" if len(records) > 1 else "")


def require_matplotlib() -> ModuleType:
    """Import matplotlib, or say how to install it."""
    try:
        import matplotlib
    except ImportError as exc:
        raise MissingDependencyError(
            'heedful plot draws with matplotlib: pip install "heedful[plots]" (or pip install matplotlib)'
        ) from exc
    return matplotlib


def panels_to_draw(layout: FigureLayout, runs: Sequence[RunRows]) -> list[Panel | Scatter]:
    """The panels with the groups the runs hold: as laid out for one run; for several, one panel per metric
    (metric by metric, so that each metric fills a line of the grid), then the `several_runs` panels."""
    drawn: list[Panel | Scatter] = []
    if len(runs) == 1:
        candidates = list(layout.panels)
    else:
        width = max((len(p.metrics) for p in layout.panels), default=0)
        candidates = [
            Panel(f"{p.title}: {p.metrics[i][1]}" if len(p.metrics) > 1 else p.title, (p.metrics[i],), p.groups)
            for i in range(width)
            for p in layout.panels
            if i < len(p.metrics)
        ]
    for panel in candidates:
        groups = tuple(
            (group, label)
            for group, label in panel.groups
            if any(run.get(group, metric) for run in runs for metric, _ in panel.metrics)
        )
        if groups:
            drawn.append(Panel(panel.title, panel.metrics, groups))
    if len(runs) > 1:
        drawn += [s for s in layout.several_runs if any(run.get(s.group, s.x[0]) for run in runs)]
    return drawn


def write_figure(
    layout: FigureLayout, runs: Sequence[RunRows], out: Path, title: str, reference_label: str = "chance"
) -> None:
    """Draw the figure and write it to `out` (.pdf, .svg or .png); `reference_label` names the suite's reference
    level in the legend (heedful.metrics.reference)."""
    fmt = figure_format(out)
    matplotlib = require_matplotlib()
    with matplotlib.rc_context(FIGURE_RC):
        figure = build_figure(layout, runs, title, reference_label)
        out.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(out, format=fmt, metadata=FIGURE_METADATA[fmt], dpi=200)


def build_figure(layout: FigureLayout, runs: Sequence[RunRows], title: str, reference_label: str = "chance") -> Any:
    """The matplotlib Figure (on an Agg canvas): one axes per panel of `panels_to_draw`.

    Raises:
        ConfigError: the runs hold none of the groups the figure shows.
    """
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = panels_to_draw(layout, runs)
    if not panels:
        raise ConfigError("the runs hold none of the groups the suite's figure shows; check them with heedful report")
    columns = max(1, min(layout.columns, len(panels)))
    lines = math.ceil(len(panels) / columns)
    width = max(_panel_width(panel, runs) for panel in panels)
    legend = 1.9  # inches right of the panels
    figure = Figure(figsize=(columns * width + legend, lines * 2.4 + 0.9), layout="constrained")
    FigureCanvasAgg(figure)
    marks: set[str] = set()
    slots = max(len(panel.groups) for panel in panels if isinstance(panel, Panel)) if any_bars(panels) else 0
    for i, panel in enumerate(panels):
        axes = figure.add_subplot(lines, columns, i + 1)
        if isinstance(panel, Scatter):
            marks |= _scatter(axes, panel, runs)
        else:
            marks |= _bars(axes, panel, runs, width, first_column=i % columns == 0)
            pad = (slots - len(panel.groups)) / 2  # bars as wide in every panel
            axes.set_xlim(-0.6 - pad, len(panel.groups) - 0.4 + pad)
    _legend(figure, layout, runs, marks, reference_label)
    figure.suptitle(title, fontsize=9)
    figure.supxlabel(_footnote(runs, marks), fontsize=7)
    return figure


def any_bars(panels: Sequence[Panel | Scatter]) -> bool:
    return any(isinstance(panel, Panel) for panel in panels)


def _panel_width(panel: Panel | Scatter, runs: Sequence[RunRows]) -> float:
    if isinstance(panel, Scatter):
        return 3.0
    bars = len(panel.groups) * (len(panel.metrics) if len(runs) == 1 else len(runs))
    return min(max(2.6, 0.22 * bars + 0.9), 7.5)


def _series(panel: Panel, runs: Sequence[RunRows]) -> list[tuple[str, str, RunRows, str]]:
    """(legend label, colour, run, metric) of each bar series of a panel."""
    if len(runs) == 1:
        return [(label, PALETTE[i % len(PALETTE)], runs[0], metric) for i, (metric, label) in enumerate(panel.metrics)]
    metric = panel.metrics[0][0]
    return [(run.label, PALETTE[i % len(PALETTE)], run, metric) for i, run in enumerate(runs)]


def _bars(axes: Any, panel: Panel, runs: Sequence[RunRows], inches: float, *, first_column: bool) -> set[str]:
    """One bar series per metric (one run) or per run, error bars and chance ticks; returns the marks it used."""
    series = _series(panel, runs)
    width = 0.8 / len(series)
    marks: set[str] = set()
    for s, (label, colour, run, metric) in enumerate(series):
        found = [(x, row) for x, (group, _) in enumerate(panel.groups) if (row := run.get(group, metric))]
        xs = [x - 0.4 + width * (s + 0.5) for x, _ in found]
        heights = [100 * float(row.value or 0.0) for _, row in found]
        # the edge shows a bar of 0% as a line in its colour, above the axis (the y axis starts below 0)
        axes.bar(xs, heights, width * 0.92, color=colour, edgecolor=colour, linewidth=1.0, label=label)
        for x, height, (_, row) in zip(xs, heights, found, strict=True):
            marks |= _error_bar(axes, x, height, row, width)
    axes.set_xticks(range(len(panel.groups)), [label for _, label in panel.groups])
    axes.set_ylim(-2, 109)
    axes.set_yticks([0, 25, 50, 75, 100])
    axes.grid(axis="y", linewidth=0.4, alpha=0.5)
    axes.set_axisbelow(True)
    axes.set_title(panel.title)
    if first_column:
        axes.set_ylabel("%")
    longest = max(len(label) for _, label in panel.groups)
    if longest * 0.065 > 0.85 * (inches - 0.6) / len(panel.groups):  # tick labels (8 pt) wider than their slot
        axes.tick_params(axis="x", labelrotation=30)
        for tick in axes.get_xticklabels():
            tick.set_horizontalalignment("right")
    return marks


def _error_bar(axes: Any, x: float, height: float, row: MetricRow, width: float) -> set[str]:
    marks: set[str] = set()
    (low, high), style = _interval_of(row), "-"
    if row.collapsed and row.wilson_low is not None:
        style = "--"
        marks.add("wilson")
    elif row.collapsed:
        axes.annotate("*", (x, height), ha="center", va="bottom", fontsize=8)
        marks.add("collapsed")
    if low is not None and high is not None:
        err = [[max(0.0, height - 100 * low)], [max(0.0, 100 * high - height)]]
        bars = axes.errorbar([x], [height], yerr=err, fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
        bars.lines[2][0].set_linestyle(style)
    if row.chance is not None:
        axes.hlines(100 * row.chance, x - width * 0.46, x + width * 0.46, colors="black", linestyles=":", linewidth=1.4)
        marks.add("chance")
    return marks


def _scatter(axes: Any, panel: Scatter, runs: Sequence[RunRows]) -> set[str]:
    """One point per run with its two 95% intervals; the chance level as a grey cross."""
    marks: set[str] = set()
    for i, run in enumerate(runs):
        x, y = run.get(panel.group, panel.x[0]), run.get(panel.group, panel.y[0])
        if x is None or y is None:
            continue
        px, py = 100 * float(x.value or 0.0), 100 * float(y.value or 0.0)
        (xerr, x_dashed), (yerr, y_dashed) = _span(px, x), _span(py, y)
        bars = axes.errorbar(
            [px],
            [py],
            xerr=xerr,
            yerr=yerr,
            fmt="o",
            color=PALETTE[i % len(PALETTE)],
            markersize=5,
            capsize=2,
            elinewidth=0.8,
            label=run.label,
        )
        for collection, dashed in zip(bars.lines[2], (x_dashed, y_dashed), strict=True):
            collection.set_linestyle("--" if dashed else "-")
            marks |= {"wilson"} if dashed else set()
        if x.chance is not None and y.chance is not None:
            axes.plot([100 * x.chance], [100 * y.chance], marker="x", color="grey", linestyle="none")
            marks.add("chance point")
    axes.set_xlim(-5, 105)
    axes.set_ylim(-5, 105)
    axes.set_xlabel(panel.x[1] + " (%)")
    axes.set_ylabel(panel.y[1] + " (%)")
    axes.grid(linewidth=0.4, alpha=0.5)
    axes.set_title(panel.title)
    return marks


def _span(point: float, row: MetricRow) -> tuple[list[list[float]], bool]:
    """The error bar around `point` (in %), and whether it is the Wilson interval of a collapsed one."""
    low, high = _interval_of(row)
    if low is None or high is None:
        return [[0.0], [0.0]], False
    return [[max(0.0, point - 100 * low)], [max(0.0, 100 * high - point)]], row.collapsed


def _interval_of(row: MetricRow) -> tuple[float | None, float | None]:
    """The bootstrap interval, or the Wilson interval where the bootstrap collapsed and the row has one."""
    if row.collapsed and row.wilson_low is not None and row.wilson_high is not None:
        return row.wilson_low, row.wilson_high
    return row.ci_low, row.ci_high


def _legend(figure: Any, layout: FigureLayout, runs: Sequence[RunRows], marks: set[str], reference: str) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if len(runs) == 1:
        names = list(dict.fromkeys(label for panel in layout.panels for _, label in panel.metrics))
    else:
        names = [run.label for run in runs]
    handles: list[Any] = [Patch(color=PALETTE[i % len(PALETTE)], label=name) for i, name in enumerate(names)]
    if "chance" in marks:
        handles.append(Line2D([], [], color="black", linestyle=":", linewidth=1.4, label=reference))
    if "chance point" in marks:
        handles.append(Line2D([], [], color="grey", marker="x", linestyle="none", label=f"{reference} (scatter)"))
    if "wilson" in marks:
        handles.append(Line2D([], [], color="black", linestyle="--", linewidth=0.8, label="Wilson 95% (collapsed CI)"))
    figure.legend(handles=handles, loc="outside right upper", frameon=False)


def _footnote(runs: Sequence[RunRows], marks: set[str]) -> str:
    methods = sorted({row.ci_method for run in runs for row in run.rows if row.ci_low is not None})
    parts = [f"error bars: 95% {', '.join(methods) or 'bootstrap'} interval (percentile)"]
    if "wilson" in marks:
        parts.append("dashed: Wilson 95% where every bootstrap resample scored alike")
    if "collapsed" in marks:
        parts.append("*: every resample scored alike, no Wilson interval")
    return "; ".join(parts)
