"""How the audit's readers do on the decisions families that rank by size (issue 39, decisions-v4).

    python benchmarks/decisions_size_rankings.py

Runs oracle, bow, count-rank, keyword-train (test and in-sample) and keyword-full as the audit does
(`heedful.agents.decisions_audit.run_control`, default dataset, seed 0) and prints, as Markdown rows, their scores
on the families where one or both tasks rank by size.
"""

from __future__ import annotations

from heedful.agents.decisions_audit import CONTROLS, run_control
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.suite import SUITE

LABELS = (
    "oracle",
    "bow (test)",
    "count-rank (test)",
    "keyword-train (test)",
    "keyword-train (train, in-sample)",
    "keyword-full (test)",
)


def main() -> None:
    episodes = SUITE.generate(0)
    by_size = {e.family_id for e in episodes if any(c.kind == "prefer" and c.key == "size" for c in e.task.constraints)}
    print("| control | families | accuracy | decision sensitivity | family success |")
    print("|---|---:|---:|---:|---:|")
    for control in (c for c in CONTROLS if c.label in LABELS):
        records = [r for r in run_control(control, episodes, 0) if r.keys["family_id"] in by_size]
        rows = {r.metric: r.value for r in decision_metrics(records, resamples=1) if r.group == "all"}
        families = len({r.keys["family_id"] for r in records})
        metrics = ("accuracy", "decision_sensitivity", "family_success")
        cells = " | ".join(f"{100 * (rows[m] or 0.0):.1f}" for m in metrics)
        print(f"| `{control.label}` | {families} | {cells} |")


if __name__ == "__main__":
    main()
