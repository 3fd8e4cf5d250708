"""How the tabletop suite's results and tasks read: the report with Table 1, the glossary, `heedful show` and
`heedful list tasks` (the view part of its declaration, `heedful.suites.tabletop.suite`)."""

from __future__ import annotations

from collections.abc import Sequence

from heedful.metrics.rows import MetricRow
from heedful.records import Record
from heedful.suites.parts import View
from heedful.suites.tabletop.chance import CHANCE_PREFIX
from heedful.suites.tabletop.layouts import FIGURE, PAPER_TABLES
from heedful.suites.tabletop.metrics import SCORING
from heedful.suites.tabletop.model import TabletopTask
from heedful.suites.tabletop.payload import TrialPayload

GLOSSARY = (
    (
        "levels",
        "L0 training tasks in training layouts; L1 new layouts where the training motion fails; L2 "
        "held-out phrasings in training layouts; L3 both (RoboFollow's protocol, 554 tasks, 10 trials each)",
    ),
    (
        "stages",
        "each task is cut into weighted stages (e.g. source 0.4, target 0.4, finish 0.2); a stage's "
        "intent is the policy showing it understood (approaching or grasping the right object, heading to the "
        "right target), its execution the physical success; gates: a stage counts only if every earlier stage's "
        "intent (for execution: intent and execution) was earned",
    ),
    (
        "intent_full",
        "every stage's intent earned: the robot showed it understood the whole task, whatever its motor success",
    ),
    (
        "complete",
        "RoboFollow's completion criterion on the final state, per action (pickup: intent and "
        "execution >= 0.8; place in a bowl: within 4 cm of its centre and inside; push: moved >= 2 cm within "
        "45 deg of the direction; ...). A trial can be intent_full but not complete (understood, dropped it) "
        "and, rarely, complete without intent_full (a later gated stage missed)",
    ),
    (
        "task macro",
        "each task's trials are averaged first, then tasks unweighted, per scene x level; the mean "
        "over scenes is the unweighted mean of the four scenes (the paper's headline numbers)",
    ),
    (
        "chance rows",
        "Table 1's `chance ...` lines and the chance column: the exact expected score of the "
        "blind branch draw (a training branch of the scene chosen without the instruction, its expert motion "
        "run in the task's layout), computed over every branch, not sampled",
    ),
)


def report_text(rows: Sequence[MetricRow], title: str) -> str:
    """The metric table (with the chance column), then the paper's Table 1 layout (scenes x levels, with the
    chance rows)."""
    from heedful.metrics.render import render_metric_table
    from heedful.metrics.tables import table_text

    measured = [row for row in rows if not row.group.startswith(CHANCE_PREFIX)]
    notes = (
        "Wilson: for the 0/1 rates (intent_full, execution_full, complete, complete_clean, disturbed), trials "
        "taken as independent: optimistic, as the trials of one task are alike",
    )
    level = SCORING.reference  # the blind branch draw, not chance
    table = render_metric_table(measured, title=title, notes=notes, chance_note=level.note, reference_label=level.label)
    return f"{table}\n\n{table_text(PAPER_TABLES[0], rows)}"


def observation(task: TabletopTask) -> list[tuple[str, str]]:
    """The task's initial layout (each trial shifts it by 1-2 cm, see the record's prediction.layout)."""
    objects = [f"{o.name} at ({o.x:+.3f}, {o.y:.3f})" for o in task.layout.objects]
    inside = [f"{inner} in {bowl}" for inner, bowl in task.layout.inside]
    return [("layout", f"{task.config}: " + ", ".join(objects + inside))]


def record_details(record: Record) -> list[tuple[str, str]]:
    """Each stage's gated Intent / Execution with its reason, the skill calls, completion and the video."""
    payload = TrialPayload.read(record.prediction)
    if payload is None:
        return []
    stages = [
        f"{s.name:<10} weight {s.weight:.1f}  intent {'yes' if s.intent else 'no ':3}  "
        f"execution {'yes' if s.execution else 'no ':3}  {s.detail}"
        for s in payload.stages
    ]
    lost = f"first lost: {payload.failed_stage} ({payload.failed_on})" if payload.failed_stage else "all earned"
    out = [("stages", "\n".join([*stages, lost])), ("completion", payload.completion)]
    if payload.calls:
        calls = [f"{c.call} -> {'ok' if c.ok else 'failed: ' + c.reason} (step {c.start})" for c in payload.calls]
        out.append(("skill calls", "\n".join(calls)))
    out.append(("steps", f"{payload.acting_steps} acting of {payload.steps}"))
    if payload.video:
        out.append(("video", payload.video))
    return out


def describe(task: TabletopTask) -> tuple[str, str]:
    """The instruction, and the action, its objects, the layout and the horizon."""
    g = task.grounded
    what = " -> ".join(x for x in (g.source, g.target or g.direction or g.second) if x)
    origin = f", varies {task.derived_from}" if task.derived_from and task.level != "L0" else ""
    return task.instruction, f"{task.action} {what} in layout {task.config}{origin}; {task.horizon} steps"


VIEW: View[TabletopTask] = View(
    paper_tables=PAPER_TABLES,
    figure=FIGURE,
    glossary=GLOSSARY,
    task_columns=("level", "scene", "action"),
    export_columns={
        "task": "string",
        "scene": "string",
        "level": "string",
        "config": "string",
        "base_config": "string",
        "action": "string",
        "branch": "string",
        "trial": "integer",
        "trial_seed": "integer",
        "intent": "number",
        "execution": "number",
        "complete": "number",
        "intent_full": "number",
        "execution_full": "number",
        "acting_steps": "number",
    },
    export_patterns={r"^[a-z0-9_]+_(intent|execution)$": "number"},  # one pair per stage of the task's scoring
    describe=describe,
    observation=observation,
    record_details=record_details,
    report_text=report_text,
)
