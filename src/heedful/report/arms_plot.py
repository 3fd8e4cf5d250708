"""`heedful plot JOB` of an instruction-arms job: the language-dependence figure (`heedful.metrics.arms`).

One panel: for each group (all, then each level / category / task type) one bar per arm with its score and the
Wilson 95% interval; under `other` a diamond marks the share of episodes that followed the given words. Drawn as
`heedful.report.plot` draws (Agg canvas, fixed metadata: the same rows give byte-identical files).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError
from heedful.metrics.arms import ArmRow
from heedful.report.plot import FIGURE_METADATA, FIGURE_RC, PALETTE, figure_format, require_matplotlib


def write_arms_figure(score: str, rows: Sequence[ArmRow], out: Path, title: str) -> None:
    """Draw the figure of `rows` and write it to `out` (.pdf, .svg or .png).

    Raises:
        ConfigError: no row holds a score.
    """
    fmt = figure_format(out)
    matplotlib = require_matplotlib()
    with matplotlib.rc_context(FIGURE_RC):
        figure = build_arms_figure(score, rows, title)
        out.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(out, format=fmt, metadata=FIGURE_METADATA[fmt], dpi=200)


def build_arms_figure(score: str, rows: Sequence[ArmRow], title: str) -> Any:
    """The matplotlib Figure (on an Agg canvas)."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    scored = [row for row in rows if row.score is not None]
    if not scored:
        raise ConfigError("the arms hold no scored episode; check them with heedful report")
    groups = list(dict.fromkeys(row.group for row in scored))
    arms = list(dict.fromkeys(row.arm for row in scored))
    width = 0.8 / len(arms)
    figure = Figure(figsize=(min(max(3.5, 0.35 * len(groups) * len(arms) + 1.5), 10.0), 3.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    by_key = {(row.group, row.arm): row for row in scored}
    followed = False
    for a, arm in enumerate(arms):
        colour = PALETTE[a % len(PALETTE)]
        found = [(x, by_key[(g, arm)]) for x, g in enumerate(groups) if (g, arm) in by_key]
        xs = [x - 0.4 + width * (a + 0.5) for x, _ in found]
        heights = [100 * float(row.score or 0.0) for _, row in found]
        axes.bar(xs, heights, width * 0.92, color=colour, edgecolor=colour, linewidth=1.0, label=arm)
        for x, height, (_, row) in zip(xs, heights, found, strict=True):
            low, high = row.score_ci
            if low is not None and high is not None:
                err = [[max(0.0, height - 100 * low)], [max(0.0, 100 * high - height)]]
                axes.errorbar([x], [height], yerr=err, fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
            if row.followed_given is not None:
                axes.plot([x], [100 * row.followed_given], marker="D", markersize=4, color="black", fillstyle="none")
                followed = True
    if followed:
        axes.plot([], [], marker="D", markersize=4, color="black", fillstyle="none", linestyle="none",
                  label="followed the given words")  # fmt: skip
    axes.set_xticks(range(len(groups)), groups)
    axes.set_ylim(-2, 109)
    axes.set_yticks([0, 25, 50, 75, 100])
    axes.set_ylabel(f"{score} (%)")
    axes.grid(axis="y", linewidth=0.4, alpha=0.5)
    axes.set_axisbelow(True)
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, frameon=False)
    figure.suptitle(title, fontsize=9)
    figure.supxlabel("bars: each arm's score with its Wilson 95% interval (episodes as independent)", fontsize=7)
    return figure
