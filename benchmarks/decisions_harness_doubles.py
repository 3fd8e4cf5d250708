"""The decisions harness's red team on the whole test split of the default dataset (issue 39).

- the privileged reader (reads `privileged_task` and calls the solver) undeclared and declared;
- the family-memory wrapper around `bow`, the `lexical` rule reader and `keyword-full`: under the old harness (the
  dataset's ids, in dataset order, one agent object: what `heedful run` did before) and through `heedful run` now
  (opaque tokens, a seeded shuffle; 1 and 2 workers), each with `--audit-stateless 200`.

    python benchmarks/decisions_harness_doubles.py
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from heedful.agents.decisions_doubles import FamilyMemory
from heedful.api import evaluate
from heedful.records import Record, Status
from heedful.report.flags import run_flags
from heedful.runner import load_run
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE

DOUBLES = "heedful.agents.decisions_doubles"


def family_success(records: list[Record]) -> float:
    rows = decision_metrics(records, resamples=20, seed=0)
    value = next(r.value for r in rows if r.metric == "family_success" and r.group == "all")
    return float(value or 0.0)


def old_harness(agent: Any, episodes: list[Any]) -> list[Record]:
    """The harness before issue 39: the dataset's ids, in dataset order, to one agent object."""
    records = []
    for i, ep in enumerate(episodes):
        observation = dataclasses.replace(build_observation(ep, run_seed=i, mask=False), episode_id=ep.episode_id)
        decision = json.loads(agent.decide(observation).text)["decision"]
        correct = decision == ep.gold
        records.append(
            Record(
                episode_id=ep.episode_id,
                index=i,
                keys=ep.keys(),
                gold=ep.gold,
                status=Status.OK,
                prediction=decision,
                correct=correct,
            )
        )
    return records


def now(root: Path, name: str, agent: str, args: dict[str, Any], workers: int = 1) -> str:
    out = root / name
    start = time.perf_counter()
    evaluate(
        suite="decisions",
        agent=agent,
        agent_args=args,
        out=out,
        split="test",
        workers=workers,
        progress=False,
        audit_stateless=200,
    )
    manifest, records = load_run(out)
    flags = "; ".join(run_flags(manifest)) or "no flag"
    return f"{family_success(records):6.1%} family success | {flags} | {time.perf_counter() - start:.0f} s"


def main() -> None:
    test = [ep for ep in SUITE.generate(0) if ep.split == "test"]
    train = SUITE.training_episodes(SUITE.generate(0))
    print(f"decisions {SUITE.version}, test split: {len(test)} episodes")
    for inner in ("bow", "lexical", "keyword-full"):
        memory = FamilyMemory(inner=inner)
        memory.fit(train)
        plain = FamilyMemory(inner=inner).inner
        if hasattr(plain, "fit"):
            plain.fit(train)
        print(f"old harness, {inner}: {family_success(old_harness(plain, test)):6.1%} family success")
        print(f"old harness, family memory around {inner}: {family_success(old_harness(memory, test)):6.1%}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for inner in ("bow", "lexical", "keyword-full"):
            print(f"now, {inner}: {now(root, inner, inner, {})}")
            for workers in (1, 2):
                line = now(root, f"memory-{inner}-{workers}", f"{DOUBLES}:FamilyMemory", {"inner": inner}, workers)
                print(f"now, family memory around {inner}, {workers} worker(s): {line}")
        for name in ("PrivilegedReader", "DeclaredPrivilegedReader"):
            print(f"now, {name}: {now(root, name, f'{DOUBLES}:{name}', {})}")


if __name__ == "__main__":
    main()
