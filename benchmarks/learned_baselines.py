"""Learned baselines on the RoboFollow protocol: train bc-state with and without language, evaluate them next to
the scripted controls, and print Table 1's measures per level with 95% intervals.

    MUJOCO_GL=egl python benchmarks/learned_baselines.py [--demos data/demos] [--work runs/learned] [--workers 2]
    MUJOCO_GL=egl python benchmarks/learned_baselines.py --quick     # tiny sizes: checks that it runs

Each agent gets two runs: L0 with 10 trials per task (750 trials) and L1-L3 with 1 trial per task (479), over all
554 tasks. Missing demos are recorded first (`heedful demos`), models are trained into WORK/models (an existing
trained model of the same options is resumed, so a second call only evaluates), runs are resumed. The table shows,
per agent and level, Intent / Execution / Intent-full / Completion (task macro, %) with the task bootstrap 95% CI;
per-scene tables are in WORK/<agent>-<levels>.txt (`heedful report`). Then the inference cost per control step of
each learned policy next to the simulator's own step time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from heedful import api
from heedful.runner import load_run

METRICS = (("intent", "Intent"), ("execution", "Execution"), ("intent_full", "Intent-full"), ("complete", "Completion"))
LEVEL_RUNS = (("L0", ("L0",), 10), ("L123", ("L1", "L2", "L3"), 1))


def policies(quick: bool) -> dict[str, dict[str, Any]]:
    size = {"epochs": 1, "hidden": 32, "layers": 2} if quick else {}
    return {"bc-state": {"language": "instruction", **size}, "bc-state-no-language": {"language": "none", **size}}


def agents(models: Path, quick: bool) -> dict[str, tuple[str, dict[str, Any]]]:
    table: dict[str, tuple[str, dict[str, Any]]] = {
        "oracle": ("oracle", {}),
        "memorizer": ("memorizer", {}),
        "blind": ("blind", {}),
    }
    for name in policies(quick):
        table[name] = ("bc", {"model": str(models / name)})
    return table


def evaluate_all(work: Path, models: Path, workers: int, quick: bool) -> dict[str, dict[str, Path]]:
    runs: dict[str, dict[str, Path]] = {}
    for name, (agent, args) in agents(models, quick).items():
        for label, levels, trials in LEVEL_RUNS:
            out = work / f"{name}-{label}"
            start = time.perf_counter()
            api.evaluate(
                suite="tabletop",
                agent=agent,
                agent_args=args,
                out=out,
                resume=True,
                workers=workers,
                options={"level": list(levels), "trials": 1 if quick else trials},
                limit=4 if quick else None,
                progress=not quick,
            )
            (work / f"{name}-{label}.txt").write_text(api.report_text(out) + "\n", encoding="utf-8")
            print(f"{name} {label}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
            runs.setdefault(name, {})[label] = out
    return runs


def table(runs: dict[str, dict[str, Path]]) -> list[str]:
    lines = [
        "| agent | level | " + " | ".join(title for _, title in METRICS) + " | tasks |",
        "|---|---|" + "---|" * (len(METRICS) + 1),
    ]
    for name, by_label in runs.items():
        for label, run in by_label.items():
            rows, _ = api.report(run, resamples=2000)
            for level in ("L0",) if label == "L0" else ("L1", "L2", "L3"):
                got = {r.metric: r for r in rows if r.group == level}
                if not got:
                    continue
                cells = [
                    f"{100 * got[m].value:.1f} [{100 * got[m].ci_low:.1f}, {100 * got[m].ci_high:.1f}]"
                    for m, _ in METRICS
                ]
                lines.append(f"| {name} | {level} | " + " | ".join(cells) + f" | {got['intent'].n} |")
    return lines


def policy_ms_per_step(run: Path) -> tuple[float, float]:
    """(policy ms per control step while the policy acts, mean ms per prediction) over a run's records."""
    _, records = load_run(run)
    total_ms = sum(r.timing.get("bc_predict_ms_mean", 0.0) * float(r.agent_info.get("predictions", 0)) for r in records)
    predictions = sum(float(r.agent_info.get("predictions", 0)) for r in records)
    steps = sum(float(r.prediction["steps"]) for r in records)  # type: ignore[index]
    return total_ms / max(steps, 1.0), total_ms / max(predictions, 1.0)


def simulator_ms_per_step(steps: int = 2000) -> float:
    """The tabletop env's own control step (no cameras), holding still in the default scene."""
    import numpy as np

    from heedful.sims.tabletop.config import SimConfig
    from heedful.sims.tabletop.env import TabletopEnv

    env = TabletopEnv(config=SimConfig(cameras=()))
    env.reset(seed=0)
    action = np.zeros(7)
    start = time.perf_counter()
    for _ in range(steps):
        env.step(action)
    elapsed = time.perf_counter() - start
    env.close()
    return 1000.0 * elapsed / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demos", type=Path, default=Path("data/demos"), help="HDF5 demos (recorded if missing)")
    parser.add_argument("--work", type=Path, default=Path("runs/learned"), help="models and runs go here")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: 2 tasks x 2 demos, 1 epoch, 4 trials a run")
    args = parser.parse_args()
    models = args.work / "models"
    if args.quick:
        api.demos(args.demos, per_task=2, tasks=["s1_t00_pickup", "s2_t04_stack"])
    elif not any(args.demos.glob("*_demo.hdf5")):
        api.demos(args.demos)
    for name, options in policies(args.quick).items():
        start = time.perf_counter()
        result = api.train(args.demos, models / name, **options)
        print(
            f"trained {name}: {result['epochs_done']} epochs, final L1 {result['final_train_l1']:.4f}, held out "
            f"{result['final_val_l1']}, {result['parameters']:,} parameters, {result['weights_bytes'] / 1e6:.1f} MB, "
            f"{time.perf_counter() - start:.0f} s this call",
            flush=True,
        )
    runs = evaluate_all(args.work, models, args.workers, args.quick)
    print("\n".join(table(runs)))
    sim_ms = simulator_ms_per_step(200 if args.quick else 2000)
    print(f"\nsimulator control step (no cameras): {sim_ms:.3f} ms")
    for name in policies(args.quick):
        per_step, per_call = policy_ms_per_step(runs[name]["L0"])
        print(
            f"{name}: {per_call:.3f} ms per prediction, {per_step:.3f} ms per control step "
            f"({per_step / sim_ms:.2f}x the simulator's step)"
        )


if __name__ == "__main__":
    main()
