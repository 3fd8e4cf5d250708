"""How the household suite's results and episodes read (the view part of `suite.SUITE`): the report's layouts, the
glossary of its terms, and what `heedful show` and `heedful list tasks` print of an episode or a record."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.metrics.compare import ComparisonRow
from heedful.metrics.render import render_comparison_table, render_metric_table
from heedful.metrics.rows import MetricRow
from heedful.metrics.tables import listing_comparison_text, table_text
from heedful.records import Record
from heedful.suites.household.error_table import ERROR_METRICS, error_table
from heedful.suites.household.layouts import FIGURE, PAPER_TABLES
from heedful.suites.household.metrics import SCORING
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.parts import View

GLOSSARY = (
    (
        "SPL",
        "the paper's primary metric: success x L_oracle / max(L, L_oracle), path lengths in low-level "
        "steps against the oracle's; SR (success) beside it",
    ),
    (
        "task types",
        "PnP: pick-and-place, the object stays where exploration saw it; S_obj: the human moved the "
        "object and says where, vaguely or not; S_hum: bring the object to the human, who walks to a room it "
        "describes",
    ),
    (
        "clear / ambiguous",
        "clear: the words fit exactly one room; ambiguous: 2 or more, so only the human's "
        "actions (where it carried the object, where it walked) say which",
    ),
    (
        "words-only",
        "the chance column: SR of an agent that reads only the words, guesses one of the rooms they "
        "fit uniformly, never revises and does all else perfectly (PnP and clear tasks: 100%); an upper bound of "
        "what ignoring the human's actions earns without searching; SPL has none",
    ),
    (
        "error modes",
        "Table 8: each failed episode gets one mode by ordered rules (parsing, planning, strategy: "
        "object / room / human, actuation, perception); transport failures are counted apart",
    ),
)


def describe_task(episode: HouseholdEpisode) -> tuple[str, str]:
    """(the command, clarity, what to bring where, the house and the oracle's steps)."""
    clarity = "" if episode.ambiguous is None else ("ambiguous, " if episode.ambiguous else "clear, ")
    goal = episode.goal
    where = f"a {goal.receptacle}" if goal.receptacle else f"the {goal.function or goal.kind}"
    rooms = len(episode.house.rooms)
    return episode.command, (
        f"{clarity}bring a {episode.target_category} to {where} in {episode.house_id} ({rooms} rooms); "
        f"oracle {episode.oracle_steps} steps"
    )


def observation_summary(episode: HouseholdEpisode) -> list[tuple[str, str]]:
    """The house, where the human is going (S_hum) and what the human said while the agent explored."""
    rooms = ", ".join(f"{i} {r.function}" for i, r in enumerate(episode.house.rooms))
    lines = [
        ("house", f"{episode.house_id}: rooms {rooms}"),
        ("communication", "\n".join(episode.communication) or "-"),
    ]
    if episode.candidate_rooms:
        lines.append(("fitting rooms", ", ".join(str(r) for r in episode.candidate_rooms)))
    return lines


def record_details(record: Record) -> list[tuple[str, str]]:
    """The tool calls in order, how the episode ended and how many model queries it took."""
    prediction = record.prediction if isinstance(record.prediction, dict) else {}
    actions = prediction.get("actions") or []
    out = [("actions", " | ".join(str(a) for a in actions) or "-")]
    if prediction.get("outcome"):
        out.append(("outcome", f"{prediction['outcome']} (ended by {prediction.get('ended_by') or '-'})"))
    if prediction.get("model_queries"):
        out.append(("queries", f"{len(prediction['model_queries'])} model queries (in prediction.model_queries)"))
    return out


def report_text(rows: Sequence[MetricRow], title: str) -> str:
    """SR and SPL side by side (SPL, the paper's primary metric, first), the generic per-group table, then
    the paper's Table 6, Table 9 and Table 8 (error modes) layouts."""
    generic = [row for row in rows if row.metric not in ERROR_METRICS]
    errors = error_table(rows)
    level = SCORING.reference  # the words-only level, not chance
    table = render_metric_table(generic, chance_note=level.note, reference_label=level.label)
    headline, *layouts = PAPER_TABLES
    pivots = "\n\n".join(table_text(paper, rows) for paper in layouts)
    text = f"{title}\n{table_text(headline, rows)}\n\n{table}\n\n{pivots}"
    return f"{text}\n\n{errors}" if errors else text


def comparison_text(rows: Sequence[ComparisonRow], title: str) -> str:
    """`heedful compare`: SR and SPL of both runs side by side per task type and clarity, then every group."""
    head = listing_comparison_text(PAPER_TABLES[0], rows)
    return f"{title}\n{head}\n\n{render_comparison_table(rows)}"


VIEW: View[HouseholdEpisode] = View(
    paper_tables=PAPER_TABLES,
    figure=FIGURE,
    glossary=GLOSSARY,
    task_columns=("split", "task_type", "ambiguous"),
    export_columns={
        "house_id": "string",
        "split": "string",
        "phase": "string",
        "houses": "string",
        "task_type": "string",
        "ambiguous": "boolean",  # null for pnp tasks, which are neither clear nor ambiguous
        "goal_kind": "string",
        "success": "number",
        "spl": "number",
        "steps": "number",
        "oracle_steps": "number",
        "followed_steps": "number",
    },
    describe=describe_task,
    observation=observation_summary,
    record_details=record_details,
    report_text=report_text,
    comparison_text=comparison_text,
)
