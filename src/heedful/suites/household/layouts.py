"""The household suite's paper tables (SR and SPL per task type and clarity, the report's headline; Table 6; Table 9)
and figure."""

from __future__ import annotations

from heedful.metrics.groups import ALL, group_name
from heedful.metrics.layouts import Column, FigureLayout, Listing, Panel, PaperTable, Pivot
from heedful.suites.household.metrics import SPLIT_ORDER, TYPE_LABELS, TYPE_ORDER

SPLIT_LABELS = {
    "val_seen": "Val Seen",
    "val_unseen": "Val Unseen",
    "test_seen": "Test Seen",
    "test_unseen": "Test Unseen",
}
_TYPES = tuple(TYPE_LABELS[t] for t in TYPE_ORDER)
PRIMARY = (
    "SPL is the paper's primary metric: success x L_oracle / max(L, L_oracle), path lengths in steps. SR: success rate."
)
WORDS_ONLY = (
    "SR words-only: reading only the words, one uniform guess among the rooms they fit, never revised, all else\n"
    "perfect (100% where the words fit one room): what ignoring the human's actions can count on without searching."
)


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
        listing=Listing(
            "SR and SPL side by side, in % (95% CI: {method}).",
            notes=(PRIMARY, WORDS_ONLY),
            compare_title="SR and SPL side by side, in %; A - B in percentage points with its paired 95% CI "
            "({method}); McNemar: exact, on success.",
            compare_notes=(PRIMARY,),
            mcnemar="success",
        ),
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
