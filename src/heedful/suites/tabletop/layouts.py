"""The tabletop suite's paper table (Table 1, one line per scene x level) and figure (Intent vs Execution)."""

from __future__ import annotations

from heedful.metrics.groups import ALL, group_name
from heedful.metrics.layouts import Column, FigureLayout, MeanOf, Panel, PaperTable, Pivot
from heedful.suites.tabletop.chance import CHANCE_PREFIX
from heedful.suites.tabletop.metrics import LEVELS, MEAN, SCENES

# With a 95% interval in every cell, Table 1's 20 columns (scenes x levels) do not fit a page: Markdown and LaTeX
# print one line per scene x level, then the mean over scenes (the unweighted mean of the scene values, the paper's
# headline), then each level over all tasks (a task macro, with its interval). The terminal pivots it.
_ALL_SCENES = "all scenes"
_LINES: tuple[tuple[tuple[str, ...], str | MeanOf], ...] = (
    *(((s, lv), group_name(s, lv)) for s in SCENES for lv in LEVELS),
    *(((MEAN, lv), MeanOf(tuple(group_name(s, lv) for s in SCENES))) for lv in LEVELS),
    *(((_ALL_SCENES, lv), group_name(lv)) for lv in LEVELS),
    ((_ALL_SCENES, "all"), ALL),
)
PAPER_TABLES = (
    PaperTable(
        title="Table 1 layout: task macro per scene and level (%, 95% CI)",
        label_columns=("scene", "level"),
        columns=(
            Column("Intent", "intent"),
            Column("Execution", "execution"),
            Column("Intent-full", "intent_full"),
            Column("Execution-full", "execution_full"),
            Column("Completion", "complete"),
            # Issue 38's side-effect measures beside RoboFollow's four: a completion that moved other objects is
            # not clean, and the headline table is where a reader looks for it.
            Column("Clean completion", "complete_clean"),
            Column("Disturbance", "disturbed"),
        ),
        lines=_LINES,
        pivot=Pivot(
            "Table 1 layout (task macro, %)",
            label_width=22,
            bands=(3, 3),
            reference=CHANCE_PREFIX,
            reference_label="blind ",
        ),
    ),
)
_INTENT_EXECUTION = (("intent", "Intent"), ("execution", "Execution"))
FIGURE = FigureLayout(
    panels=(
        Panel("per level (all scenes)", _INTENT_EXECUTION, tuple((lv, lv) for lv in LEVELS)),
        *(
            Panel(f"scene {s.removeprefix('S')}", _INTENT_EXECUTION, tuple((group_name(s, lv), lv) for lv in LEVELS))
            for s in SCENES
        ),
    ),
    columns=5,
)
