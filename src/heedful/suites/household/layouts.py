"""The household suite's paper tables (SR and SPL per task type and clarity; Table 6; Table 9) and figure."""

from __future__ import annotations

from heedful.metrics.groups import ALL, group_name
from heedful.metrics.household import SPLIT_ORDER, TYPE_LABELS, TYPE_ORDER
from heedful.metrics.layouts import Column, FigureLayout, Panel, PaperTable, Pivot

SPLIT_LABELS = {
    "val_seen": "Val Seen",
    "val_unseen": "Val Unseen",
    "test_seen": "Test Seen",
    "test_unseen": "Test Unseen",
}
_TYPES = tuple(TYPE_LABELS[t] for t in TYPE_ORDER)


def _summary_lines() -> tuple[tuple[tuple[str, ...], str], ...]:
    """all, then each task type with clear and ambiguous under S_obj and S_hum (the report's head)."""
    lines: list[tuple[tuple[str, ...], str]] = [((ALL, ""), ALL)]
    for label in _TYPES:
        lines.append(((label, ""), label))
        if label != TYPE_LABELS["pnp"]:
            lines += [((label, c), group_name(label, c)) for c in ("clear", "ambiguous")]
    return tuple(lines)


PAPER_TABLES = (
    PaperTable(
        title="SPL and SR per task type and clarity (%, 95% CI; SPL is the paper's primary metric)",
        label_columns=("task type", "clarity"),
        columns=(
            Column("n", "success", "n"),
            Column("SPL", "spl"),
            Column("SR", "success"),
            Column("SR words-only", "success", "chance"),
        ),
        lines=_summary_lines(),
    ),
    PaperTable(
        title="Table 6 / D.4 layout: SPL and SR per split and task type (%, 95% CI)",
        label_columns=("split", "task type"),
        columns=(Column("n", "success", "n"), Column("SPL", "spl"), Column("SR", "success")),
        lines=tuple(((SPLIT_LABELS[s], t), group_name(s, t)) for s in SPLIT_ORDER for t in _TYPES),
        pivot=Pivot("Table 6 / D.4 layout (SPL and SR, %)"),
    ),
    PaperTable(
        title="Table 9 layout: SPL and SR on clear vs ambiguous S_obj / S_hum (%, 95% CI)",
        label_columns=("splits", "task type", "clarity"),
        columns=(Column("n", "success", "n"), Column("SPL", "spl"), Column("SR", "success")),
        lines=tuple(
            ((phase_label, TYPE_LABELS[t], clarity_label), group_name(phase, TYPE_LABELS[t], clarity))
            for phase, phase_label in (("val", "Val seen & unseen"), ("test", "Test seen & unseen"))
            for t in ("s_obj", "s_hum")
            for clarity, clarity_label in (("clear", "Clear"), ("ambiguous", "Amb."))
        ),
        pivot=Pivot("Table 9 layout (SPL and SR, %)", bands=(1, 1)),
    ),
)
FIGURE = FigureLayout(
    panels=tuple(
        Panel(SPLIT_LABELS[s], (("spl", "SPL"), ("success", "SR")), tuple((group_name(s, t), t) for t in _TYPES))
        for s in SPLIT_ORDER
    ),
    columns=4,
)
