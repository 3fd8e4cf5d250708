"""The summary's figures: each suite's main figure of all the site's runs of that suite side by side, drawn by
`heedful.api.plot` (what `heedful plot` draws) as SVG under `media/`, so that the page shows the same figure a
paper gets. matplotlib is optional (the `plots` extra): without it the page says how to install it and the rest
of the site stands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError, MissingDependencyError

if TYPE_CHECKING:
    from heedful.results import ReadRun

NO_MATPLOTLIB = (
    'no figure: heedful draws it with matplotlib, which is not installed here; pip install -e ".[plots]" '
    '(or pip install "heedful[plots]") adds it'
)


def suite_figures(runs: list[tuple[str, ReadRun]], out: Path) -> list[dict[str, Any]]:
    """One entry per suite of `runs` (run id, the run read once), in the order the runs first name it:
    {"suite", "runs" (the ids it shows), "path" (the SVG relative to `out`, or None), "note" (why there is none)}."""
    from heedful.report.plot import require_matplotlib

    by_suite: dict[str, list[tuple[str, ReadRun]]] = {}
    for run_id, run in runs:
        by_suite.setdefault(run.manifest.spec.suite, []).append((run_id, run))
    try:
        require_matplotlib()
    except MissingDependencyError:  # checked once: the page notes it for every suite instead of failing
        return [_entry(suite, members, None, NO_MATPLOTLIB) for suite, members in by_suite.items()]
    return [_draw(suite, members, out) for suite, members in by_suite.items()]


def _draw(suite: str, members: list[tuple[str, ReadRun]], out: Path) -> dict[str, Any]:
    """Write the suite's figure to media/figure-SUITE.svg; a suite without a figure gets the reason instead."""
    from heedful.report.site.media import safe_name
    from heedful.results import plot

    path = f"media/figure-{safe_name(suite)}.svg"
    try:
        plot([run for _, run in members], out / path)
    except ConfigError as exc:  # a suite that declares no figure, runs without the groups it shows
        return _entry(suite, members, None, f"no figure: {exc}")
    return _entry(suite, members, path, None)


def _entry(suite: str, members: list[tuple[str, ReadRun]], path: str | None, note: str | None) -> dict[str, Any]:
    return {"suite": suite, "runs": [run_id for run_id, _ in members], "path": path, "note": note}
