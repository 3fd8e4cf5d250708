"""Language tags of the tabletop tasks (issue 38): the tag mix per scene x level, and, given runs, the
task-macro Intent and Completion (%) per tag.

    PYTHONPATH=src python benchmarks/tabletop_tags.py                      # the mix (docs/tabletop-scoring.md)
    PYTHONPATH=src python benchmarks/tabletop_tags.py runs/tabletop-blind-seed0 runs/tabletop-bc-state-seed0
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from heedful.runner import load_run
from heedful.suites.tabletop.language_tags import TAGS, tag_table, task_tags
from heedful.suites.tabletop.registry import evaluation_tasks


def per_tag(run_dir: str) -> dict[str, tuple[int, float, float]]:
    """tag -> (tasks, mean Intent %, mean Completion %), each task's trials averaged first."""
    tags = {t.task: task_tags(t) for t in evaluation_tasks()}
    _, records = load_run(Path(run_dir))
    trials: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in records:
        if r.status.scored:
            trials[r.keys["task"]].append((r.scores.get("intent", 0.0), r.scores.get("complete", 0.0)))
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for task, values in trials.items():
        mean = tuple(np.mean(values, axis=0))
        for tag in tags[task]:
            out[tag].append((float(mean[0]), float(mean[1])))
    return {
        t: (len(v), 100 * float(np.mean([x[0] for x in v])), 100 * float(np.mean([x[1] for x in v])))
        for t, v in out.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="tabletop run directories")
    args = parser.parse_args()
    print(tag_table(evaluation_tasks()))
    for run in args.runs:
        rows = per_tag(run)
        print(f"\n{run}\n| tag | tasks | Intent % | Completion % |\n|---|---|---|---|")
        for tag in TAGS:
            if tag in rows:
                n, intent, complete = rows[tag]
                print(f"| {tag} | {n} | {intent:.1f} | {complete:.1f} |")


if __name__ == "__main__":
    main()
