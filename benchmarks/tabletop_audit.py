"""Audit of the tabletop scorer (issue 12): controls and misbehaving test doubles on every task.

Runs the oracle, the validity controls (memorizer, memorizer-object, blind, noop) and the misbehaving
test doubles of `heedful.agents.tabletop_doubles` on all 554 tasks, one trial each (round 0, the
protocol's trial seed), in the real simulator, and prints per level the mean Intent / Execution /
Completion (task macro, %) with the status counts, then the exact chance level (expected score of the
blind branch draw, from `suites/tabletop/chance.py`). Nothing may crash: a rollout that raises, or a
record that does not serialize, is counted under `crashed` and the audit goes on.

Targets: oracle 100 everywhere; noop 0; memorizer L0 >= 90 and L1 well below. The two scene 3 route
doubles run on scene 3 only.

    nice python benchmarks/tabletop_audit.py                    # everything (~30 min on one core)
    nice python benchmarks/tabletop_audit.py --every 5 --agents oracle,noop --out audit.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from heedful.agents.registry import make_agent
from heedful.agents.tabletop_doubles import DOUBLES, SCENE3_ONLY
from heedful.records import Record, Status
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.chance import current
from heedful.suites.tabletop.metrics import tabletop_metrics
from heedful.suites.tabletop.model import LEVELS, TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE

CONTROLS = ("oracle", "memorizer", "memorizer-object", "blind", "noop")
SHOWN = ("intent", "execution", "complete")


def build(name: str) -> Any:
    if name in DOUBLES:
        return DOUBLES[name]()
    agent = make_agent(name, suite="tabletop")
    if hasattr(agent, "fit"):
        agent.fit(SUITE.training_episodes(list(evaluation_tasks())))
    return agent


def tasks_for(name: str, every: int) -> list[TabletopTask]:
    tasks = list(evaluation_tasks())[::every]
    return [t for t in tasks if t.scene == 3] if name in SCENE3_ONLY else tasks


def audit_agent(name: str, every: int) -> tuple[str, list[str], float]:
    """Run one agent on its tasks; returns its records as JSON lines and the seconds it took."""
    suite, agent, start = SUITE, build(name), time.perf_counter()
    trials = suite.episodes_for_run(tasks_for(name, every), {"trials": 1})
    lines = []
    for i, trial in enumerate(trials):
        context = RolloutContext(seed=0, index=i, options={})
        try:
            record = suite.rollout_episode(trial, agent, context)
            lines.append(record.model_dump_json())
        except Exception as exc:  # an audit counts every failure instead of stopping
            failed = suite.failure_record(trial, context, Status.CRASHED, f"{type(exc).__name__}: {exc}")
            lines.append(failed.model_dump_json())
    return name, lines, time.perf_counter() - start


def summarize(records: list[Record]) -> dict[str, Any]:
    rows = tabletop_metrics(records, resamples=50)
    table = {(r.group, r.metric): r.value for r in rows}
    status = Counter(r.status.value for r in records)
    return {
        "levels": {lv: {m: table.get((lv, m)) for m in SHOWN} for lv in (*LEVELS, "all")},
        "cells": {
            f"S{s} / {lv}": {m: table.get((f"S{s} / {lv}", m)) for m in SHOWN} for s in (1, 2, 3, 4) for lv in LEVELS
        },
        "status": dict(status),
        "trials": len(records),
    }


def chance_summary(tasks: list[TabletopTask]) -> dict[str, Any]:
    fresh, stale = current(tasks)
    levels: dict[str, dict[str, float | None]] = {}
    for lv in (*LEVELS, "all"):
        members = [fresh[t.task] for t in tasks if t.task in fresh and lv in (t.level, "all")]
        levels[lv] = {m: (sum(v[m] for v in members) / len(members) if members else None) for m in SHOWN}
    return {"levels": levels, "stale": len(stale)}


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def render(summaries: dict[str, dict[str, Any]], chance: dict[str, Any]) -> str:
    head = "| agent | " + " | ".join(f"{lv} I / E / C" for lv in (*LEVELS, "all")) + " | status |"
    lines = [head, "|" + "---|" * (len(LEVELS) + 3)]
    for name, s in summaries.items():
        cells = [" / ".join(pct(s["levels"][lv][m]) for m in SHOWN) for lv in (*LEVELS, "all")]
        status = ", ".join(f"{k} {v}" for k, v in sorted(s["status"].items()))
        every = f", 1 task in {s['every']}" if s.get("every", 1) > 1 else ""
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {status} ({s['trials']} trials{every}) |")
    cells = [" / ".join(pct(chance["levels"][lv][m]) for m in SHOWN) for lv in (*LEVELS, "all")]
    note = f"exact; {chance['stale']} tasks without a current value" if chance["stale"] else "exact"
    lines.append("| chance (blind draw) | " + " | ".join(cells) + f" | {note} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default=",".join([*CONTROLS, *DOUBLES]), help="comma-separated agents")
    parser.add_argument("--every", type=int, default=1, help="every N-th task only (default: all 554)")
    parser.add_argument("--doubles-every", type=int, help="every N-th task for the test doubles (default: --every)")
    parser.add_argument("--workers", type=int, default=1, help="agents audited in parallel processes")
    parser.add_argument("--out", help="write the summaries and every record (JSON) here")
    args = parser.parse_args(argv)
    names = [n for n in args.agents.split(",") if n]
    everies = [args.doubles_every or args.every if n in DOUBLES else args.every for n in names]
    chance = chance_summary(list(evaluation_tasks())[:: args.every])
    summaries: dict[str, dict[str, Any]] = {}
    body: dict[str, Any] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for (name, lines, seconds), every in zip(pool.map(audit_agent, names, everies), everies, strict=True):
            summaries[name] = {**summarize([Record.model_validate_json(x) for x in lines]), "every": every}
            print(f"{name}: {len(lines)} trials in {seconds:.0f} s", file=sys.stderr, flush=True)
            print(render({name: summaries[name]}, chance).splitlines()[2], flush=True)
            if args.out:  # after every agent, so a stopped audit keeps what it finished
                body[name] = {**summaries[name], "seconds": seconds, "records": lines}
                with open(args.out, "w", encoding="utf-8") as f:
                    json.dump({"table": render(summaries, chance), "agents": body}, f)
    text = render(summaries, chance)
    print(text)
    crashed = sum(s["status"].get("crashed", 0) for s in summaries.values())
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
