"""The decisions suite's paper table and figure: the headline metrics per constraint category."""

from __future__ import annotations

from heedful.metrics.groups import ALL, keyed
from heedful.metrics.layouts import Column, FigureLayout, Panel, PaperTable, Scatter
from heedful.suites.decisions.model import ATOMIC_CATEGORIES

CATEGORIES = (*ATOMIC_CATEGORIES, "multi")
HEADLINE = (
    ("accuracy", "accuracy"),
    ("decision_invariance", "decision invariance"),
    ("decision_sensitivity", "decision sensitivity"),
    ("family_success", "family success"),
)
_GROUPS = ((ALL, "all"), *((keyed("category", c), c) for c in CATEGORIES))

PAPER_TABLES = (
    PaperTable(
        title="Per constraint category (%, 95% CI)",
        label_columns=("category",),
        columns=tuple(Column(label, metric) for metric, label in HEADLINE),
        lines=tuple(((label,), group) for group, label in _GROUPS),
    ),
)
FIGURE = FigureLayout(
    panels=(Panel("per constraint category", HEADLINE, _GROUPS),),
    columns=2,
    several_runs=(
        Scatter(
            "invariance vs sensitivity (all)",
            x=("decision_invariance", "decision invariance"),
            y=("decision_sensitivity", "decision sensitivity"),
        ),
    ),
)
