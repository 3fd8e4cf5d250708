"""Learned baselines on the RoboFollow protocol: train bc-state and bc-image, each with and without language,
evaluate them next to the scripted controls, and print Table 1's measures per level with 95% intervals.

    MUJOCO_GL=egl python benchmarks/learned_baselines.py [--demos data/demos] [--camera-demos data/demos64]
                                                         [--work runs/learned] [--workers 2]
    MUJOCO_GL=egl python benchmarks/learned_baselines.py --quick     # tiny sizes: checks that it runs

bc-state trains on all 3,750 demos without cameras; bc-image on the CPU subset: the first 10 demos of each of
the 75 training tasks (750), recorded with both cameras at 64 x 64 pixels, its input size. Each agent gets two
runs: L0 with 10 trials per task (750 trials) and L1-L3 with 1 trial per task (479), over all 554 tasks.
Missing demos are recorded first (`heedful demos`), models are trained into WORK/models (an existing
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


CAMERA_DEMOS = {"per_task": 10, "cameras": True, "image_size": 64}  # bc-image's subset on a CPU


def policies(quick: bool) -> dict[str, dict[str, Any]]:
    """Each learned policy's training options; "camera_demos" marks those trained on the camera demos."""
    size = {"epochs": 1, "hidden": 32, "layers": 2} if quick else {}
    return {
        "bc-state": {"language": "instruction", **size},
        "bc-state-no-language": {"language": "none", **size},
        "bc-image": {"policy": "bc-image", "camera_demos": True, "epochs": 12, **size},
        "bc-image-no-language": {"policy": "bc-image", "language": "none", "camera_demos": True, "epochs": 12, **size},
    }


def agents(models: Path, quick: bool) -> dict[str, tuple[str, dict[str, Any]]]:
    table: dict[str, tuple[str, dict[str, Any]]] = {
        "oracle": ("oracle", {}),
        "memorizer": ("memorizer", {}),
        "blind": ("blind", {}),
    }
    for name in policies(quick):
        table[name] = ("bc", {"model": str(models / name)})
    return table


def evaluate_all(
    work: Path, models: Path, workers: int, quick: bool, only: set[str] | None = None
) -> dict[str, dict[str, Path]]:
    runs: dict[str, dict[str, Path]] = {}
    for name, (agent, args) in agents(models, quick).items():
        if only and name not in only:
            continue
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


def simulator_ms_per_step(steps: int = 2000, image_size: int | None = None) -> float:
    """The tabletop env's own control step, holding still in the default scene: without cameras, or rendering
    both cameras at `image_size` pixels every step."""
    import numpy as np

    from heedful.sims.tabletop.config import RenderConfig, SimConfig
    from heedful.sims.tabletop.env import TabletopEnv

    if image_size is None:
        config = SimConfig(cameras=())
    else:
        config = SimConfig(render=RenderConfig(width=image_size, height=image_size))
    env = TabletopEnv(config=config)
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
    parser.add_argument(
        "--camera-demos", type=Path, default=Path("data/demos64"), help="bc-image's camera demos (recorded if missing)"
    )
    parser.add_argument("--work", type=Path, default=Path("runs/learned"), help="models and runs go here")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: 2 tasks x 2 demos, 1 epoch, 4 trials a run")
    parser.add_argument(
        "--only",
        action="append",
        metavar="AGENT",
        help="only this agent's training and runs (repeatable), e.g. bc-image",
    )
    args = parser.parse_args()
    only = set(args.only or ())
    unknown = only - set(agents(Path(), args.quick))
    if unknown:
        parser.error(f"--only: unknown agents {sorted(unknown)}; choose from {', '.join(agents(Path(), args.quick))}")
    chosen = {name: options for name, options in policies(args.quick).items() if not only or name in only}
    models = args.work / "models"
    quick_tasks = ["s1_t00_pickup", "s2_t04_stack"]
    if args.quick:
        api.demos(args.demos, per_task=2, tasks=quick_tasks)
        api.demos(args.camera_demos, **{**CAMERA_DEMOS, "per_task": 2}, tasks=quick_tasks)
    else:
        cameras_needed = {bool(options.get("camera_demos")) for options in chosen.values()}
        if False in cameras_needed and not any(args.demos.glob("*_demo.hdf5")):
            api.demos(args.demos)
        if True in cameras_needed and not any(args.camera_demos.glob("*_demo.hdf5")):
            api.demos(args.camera_demos, **CAMERA_DEMOS)
    for name, options in chosen.items():
        start = time.perf_counter()
        options = dict(options)
        demos = args.camera_demos if options.pop("camera_demos", False) else args.demos
        result = api.train(demos, models / name, **options)
        print(
            f"trained {name}: {result['epochs_done']} epochs, final L1 {result['final_train_l1']:.4f}, held out "
            f"{result['final_val_l1']}, {result['parameters']:,} parameters, {result['weights_bytes'] / 1e6:.1f} MB, "
            f"{result['epoch_seconds_total']:.0f} s of epochs ({time.perf_counter() - start:.0f} s this call)",
            flush=True,
        )
    runs = evaluate_all(args.work, models, args.workers, args.quick, only)
    print("\n".join(table(runs)))
    steps = 200 if args.quick else 2000
    sim_ms = simulator_ms_per_step(steps)
    camera_ms = simulator_ms_per_step(steps, image_size=CAMERA_DEMOS["image_size"])
    print(f"\nsimulator control step: {sim_ms:.3f} ms without cameras, {camera_ms:.3f} ms rendering both 64 px cameras")
    for name in chosen:
        per_step, per_call = policy_ms_per_step(runs[name]["L0"])
        print(
            f"{name}: {per_call:.3f} ms per prediction, {per_step:.3f} ms per control step "
            f"({per_step / sim_ms:.2f}x the simulator's step without cameras)"
        )


if __name__ == "__main__":
    main()
