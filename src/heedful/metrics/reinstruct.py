"""The re-instruction table of one run under `--reinstruct` (`heedful.language.reinstruct`).

Per group (all, then each level / task type, as the language-dependence table): the scored episodes, how many the
switch reached (`switched`), the new task's success from the switch on (the record's main score: `correct`), how many
kept the old task (met it at the end, not yet at the switch) and how many had met it already at the switch, each a
share of the scored episodes with its Wilson interval. Pure functions of records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from heedful.language.reinstruct import KEPT_OLD, OLD_DONE, SWITCHED
from heedful.metrics.arms import (
    Interval,
    arm_groups,
    in_group,
    interval_text,
    percent_text,
    rate_with_interval,
)
from heedful.records import Record


@dataclass(frozen=True)
class SwitchRow:
    """One group of a re-instructed run."""

    group: str
    n: int
    switched: float | None
    success: float | None
    success_ci: Interval
    kept_old: float | None
    kept_old_ci: Interval
    old_done: float | None


def switch_rows(key: str | None, records: Sequence[Record]) -> list[SwitchRow]:
    """The table's rows, `all` first, then one per value of the record key `key` (the suite's `ArmsView.group_key`);
    records without switch scores are left out."""
    scored = [r for r in records if r.status.scored and SWITCHED in r.scores]
    rows = []
    for group in arm_groups(scored, key):
        mine = [r for r in scored if in_group(r, key, group)]
        switched, _ = rate_with_interval(mine, [r.scores[SWITCHED] == 1.0 for r in mine])
        success, success_ci = rate_with_interval(mine, [bool(r.correct) for r in mine])
        kept, kept_ci = rate_with_interval(mine, [r.scores.get(KEPT_OLD) == 1.0 for r in mine])
        done, _ = rate_with_interval(mine, [r.scores.get(OLD_DONE) == 1.0 for r in mine])
        rows.append(SwitchRow(group, len(mine), switched, success, success_ci, kept, kept_ci, done))
    return rows


def render_switch_table(rows: Sequence[SwitchRow], rule: str) -> str:
    """The table as terminal text (values in %)."""
    lines = [
        f"Re-instruction ({rule}): the new task scored from the switch on; kept the old task: met at the end, not yet "
        "at the switch (values in %, Wilson 95% intervals, episodes as independent)",
        "",
        f"{'group':<14} {'n':>5} {'switched':>9}  {'new task [95% CI]':<22} {'kept old task [95% CI]':<24} "
        f"{'old done at switch':>18}",
    ]
    for row in rows:
        success = percent_text(row.success) + interval_text(row.success_ci)
        kept = percent_text(row.kept_old) + interval_text(row.kept_old_ci)
        lines.append(
            f"{row.group:<14} {row.n:>5} {percent_text(row.switched):>9}  {success:<22} {kept:<24} "
            f"{percent_text(row.old_done):>18}"
        )
    return "\n".join(lines)
