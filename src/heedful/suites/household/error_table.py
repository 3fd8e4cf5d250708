"""The paper's Table 8 from records: error modes per task type, as counts and % of failed episodes.

Rows (`error_rows`), for each task type on the validation splits combined (`val / PnP`, as in the
paper), on the test splits combined (`test / PnP`) and on all splits (`PnP`):

- `failed`: failed scored episodes, k of n scored episodes;
- `error_<mode>` (and `error_strategy`, the sum of its three kinds): k of the failed episodes;
- `harness_failure`: interface errors, timeouts and crashes, k of n records. They are not errors of the
  agent and are in no mode (nor in `failed`).

Intervals are Wilson intervals (episodes taken as independent); no bootstrap. The rows come from the one metrics
engine (`ERROR_SCORING`, an extra scoring of household's).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np

from heedful.metrics.engine import metric_rows
from heedful.metrics.groups import group_name
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import GroupsOf, Scoring, Units
from heedful.metrics.spec import Metric, MetricSpec
from heedful.records import Record
from heedful.suites.household.error_modes import ErrorMode, classify, failed, harness_failure

TYPE_ORDER = ("pnp", "s_obj", "s_hum")
TYPE_LABELS = {"pnp": "PnP", "s_obj": "S_obj", "s_hum": "S_hum"}
FAILED = "failed"
HARNESS = "harness_failure"
STRATEGY = "error_strategy"
MODE_METRIC = {mode: f"error_{mode.value}" for mode in ErrorMode}
ERROR_SPEC = MetricSpec(
    (
        Metric(FAILED, "failed scored episodes (Table 8's denominator), k of the scored episodes", "episode", False),
        *(
            Metric(
                MODE_METRIC[mode],
                f"failed episodes whose error mode is {mode.value} (Table 8), k of the failed",
                "failure",
                compared=False,
                higher_is_better=False,
            )
            for mode in ErrorMode
        ),
        Metric(
            STRATEGY,
            "failed episodes with a strategy error (object, room or human), k of the failed",
            "failure",
            compared=False,
            higher_is_better=False,
        ),
        Metric(
            HARNESS,
            "interface errors, timeouts and crashes (not the agent's errors), k of the records",
            "record",
            compared=False,
            higher_is_better=False,
        ),
    )
)
"""The rows `error_rows` makes: declared here, counted below (not a per-episode mean); each row's `n` counts its
unit (a failure: a failed episode)."""
ERROR_METRICS = frozenset(ERROR_SPEC.names)
_STRATEGY_KINDS = (ErrorMode.STRATEGY_OBJECT, ErrorMode.STRATEGY_ROOM, ErrorMode.STRATEGY_HUMAN)
_MODE_OF = {metric: mode for mode, metric in MODE_METRIC.items()}
_LAYOUT = (
    ("Parsing", MODE_METRIC[ErrorMode.PARSING]),
    ("Planning", MODE_METRIC[ErrorMode.PLANNING]),
    ("Strategy", STRATEGY),
    ("  Obj", MODE_METRIC[ErrorMode.STRATEGY_OBJECT]),
    ("  Room", MODE_METRIC[ErrorMode.STRATEGY_ROOM]),
    ("  Human", MODE_METRIC[ErrorMode.STRATEGY_HUMAN]),
    ("Actuation", MODE_METRIC[ErrorMode.ACTUATION]),
    ("Perception", MODE_METRIC[ErrorMode.PERCEPTION]),
)
FOOTNOTE = (
    "Modes by ordered rules (first match; heedful.suites.household.error_modes): 1 parsing = status parse_error; "
    "2 perception = noisy (simulated) perception never reported the target and it was never held; "
    "3 planning = stopped without a plan, wrong object or wrong delivery; 4 strategy/human = clear S_hum "
    "followed > 50 steps; 5 actuation = the last call failed in execution (could not reach, put failed); "
    "6 planning = Done while holding the target, or the same call 3 times at the end; 7 strategy by phase = "
    "never picked the target or > 5 searches used the budget -> object, else human (human goal) or room. "
    "Harness failures (interface error, timeout, crash) are not agent errors: counted apart, in no mode."
)


def _phase(record: Record) -> str:
    return record.keys.get("phase") or record.keys.get("split", "").split("_")[0]


def _error_groups(record: Record) -> list[str]:
    """A record's task type on its phase's splits (`val / PnP`) and on all splits (`PnP`)."""
    kind = record.keys.get("task_type")
    if kind not in TYPE_LABELS:
        return []
    label = TYPE_LABELS[kind]
    phase = _phase(record)
    return [group_name(phase, label), group_name(label)] if phase in ("val", "test") else [group_name(label)]


def _error_order(names: set[str]) -> list[str]:
    """Validation splits, test splits, all splits; task types in order within each."""
    order = [group_name(*scope, TYPE_LABELS[kind]) for scope in (("val",), ("test",), ()) for kind in TYPE_ORDER]
    return [group for group in order if group in names]


_ROW_ORDER = (FAILED, HARNESS, *MODE_METRIC.values(), STRATEGY)
"""The order of a group's rows (the report's order since Table 8 was added)."""


def _error_units(records: Sequence[Record], spec: MetricSpec, groups: GroupsOf) -> Units:
    """Every record a unit, counted per metric: failed of the scored, a mode of the failed, harness of all."""
    metrics = tuple(spec[name] for name in _ROW_ORDER if name in spec.names)
    ordered = sorted(records, key=lambda r: r.episode_id)
    num = np.zeros((len(ordered), len(metrics)), dtype=np.int64)
    den = np.zeros_like(num)
    for i, record in enumerate(ordered):
        harness = harness_failure(record)
        mode = None if harness or not failed(record) else getattr(classify(record), "mode", None)
        for j, metric in enumerate(metrics):
            if metric.name == HARNESS:
                num[i, j], den[i, j] = harness, 1
            elif metric.name == FAILED:
                num[i, j], den[i, j] = mode is not None, not harness
            else:
                kinds = _STRATEGY_KINDS if metric.name == STRATEGY else (_MODE_OF[metric.name],)
                num[i, j], den[i, j] = mode in kinds, mode is not None
    ids = tuple(r.episode_id for r in ordered)
    return Units(
        ids=ids,
        clusters={"episode": ids},
        groups=tuple(frozenset(groups(r)) for r in ordered),
        records=tuple((r,) for r in ordered),
        num=num,
        den=den,
        metrics=metrics,
        counts=True,
    )


ERROR_SCORING = Scoring(
    spec=ERROR_SPEC,
    groups=_error_groups,
    units=_error_units,
    order=_error_order,
    intervals="wilson",
    suite="household",
)
"""Table 8's rows (heedful.metrics.engine): counts with Wilson intervals, no bootstrap."""


def error_rows(records: Sequence[Record]) -> list[MetricRow]:
    """Error-mode rows per task type: validation splits, test splits, all splits (see the module docstring)."""
    return metric_rows(ERROR_SCORING, records)


def error_table(rows: Sequence[MetricRow]) -> str:
    """Table 8's layout: % of failed episodes (count) per mode and task type, a block per phase."""
    table = {(row.group, row.metric): row for row in rows if row.metric in ERROR_METRICS}
    blocks = []
    for scope, title in (("val", "Val seen & unseen"), ("test", "Test seen & unseen")):
        groups = [group_name(scope, TYPE_LABELS[t]) for t in TYPE_ORDER]
        if not any((g, FAILED) in table for g in groups):
            continue
        lines = [f"Table 8 layout (error modes, % of failed episodes (count); {title})"]
        lines.append(f"{'':<12}" + "".join(f"{TYPE_LABELS[t]:>12}" for t in TYPE_ORDER))
        for name, metric in _LAYOUT:
            if metric == MODE_METRIC[ErrorMode.PERCEPTION] and not any(_k(table, g, metric) for g in groups):
                continue  # only under the simulated noisy perception
            lines.append(f"{name:<12}" + "".join(f"{_cell(table, g, metric):>12}" for g in groups))
        lines.append(f"{'Failed':<12}" + "".join(f"{_ratio(table, g, FAILED):>12}" for g in groups))
        lines.append(f"{'Harness':<12}" + "".join(f"{_ratio(table, g, HARNESS):>12}" for g in groups))
        blocks.append("\n".join(lines))
    if not blocks:
        return ""
    return "\n\n".join(blocks) + "\n" + textwrap.fill(FOOTNOTE, width=110)


def _k(table: dict[tuple[str, str], MetricRow], group: str, metric: str) -> int:
    row = table.get((group, metric))
    return int(row.k or 0) if row is not None else 0


def _cell(table: dict[tuple[str, str], MetricRow], group: str, metric: str) -> str:
    row = table.get((group, metric))
    if row is None or not row.k or row.value is None:
        return "-"
    return f"{100 * row.value:.0f} ({row.k})"


def _ratio(table: dict[tuple[str, str], MetricRow], group: str, metric: str) -> str:
    row = table.get((group, metric))
    return "-" if row is None else f"{row.k}/{row.n}"
