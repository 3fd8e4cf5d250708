"""Peak memory of bc-image training on a set of camera demos, with the frames memory-mapped (the trainer's way) or
held in memory.

    MUJOCO_GL=egl python benchmarks/train_memory.py --demos DIR [--per-task N] [--in-memory] [--train-seconds 60]

Runs `heedful.learning.trainer.train` (bc-image, both cameras at 64 px, the default options, one epoch) in a child
process and reads the child's /proc status every 0.2 s: VmHWM is its peak resident set; RssAnon is the memory the
process itself holds (heap, arrays, tensors, the network), which must fit in the machine; RssFile is the pages of
mapped files it has touched (the frames' map, the libraries): page cache, which the kernel drops under pressure and
reads again. The child is stopped `--train-seconds` after its epoch starts (the trainer writes config.json with
status "training" just before it; 0: let the epoch finish). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FIELDS = ("VmHWM", "VmRSS", "RssAnon", "RssFile")


def _status(pid: int) -> dict[str, int]:
    """The child's memory fields in MB (empty once it has exited)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in FIELDS:
            found[name] = int(value.split()[0]) // 1024
    return found


def _child(demos: Path, out: Path, per_task: int | None, map_frames: bool) -> None:
    from heedful.learning.trainer import TrainConfig, train

    config = TrainConfig(policy="bc-image", epochs=1, per_task=per_task)
    result = train(demos, out, config, map_frames=map_frames, log=lambda line: print(line, flush=True))
    print(json.dumps({"epoch_s": result["history"][-1]["seconds"], "threads": result["threads"]}), flush=True)


def measure(demos: Path, per_task: int | None, map_frames: bool, train_seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=demos.parent) as tmp:  # the map's file lands on the demos' disk
        out = Path(tmp) / "model"
        argv = [sys.executable, __file__, "--child", "--demos", str(demos), "--out", str(out)]
        argv += ["--per-task", str(per_task)] if per_task else []
        argv += [] if map_frames else ["--in-memory"]
        started = time.monotonic()
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        peak: dict[str, int] = {}
        at_load: dict[str, int] = {}
        training_since: float | None = None
        stopped = False
        while child.poll() is None:
            now = _status(child.pid)
            peak.update({k: max(peak.get(k, 0), v) for k, v in now.items()})  # nothing once it has exited
            if training_since is None and (out / "config.json").is_file():
                training_since, at_load = time.monotonic(), now
            if training_since is not None and train_seconds and time.monotonic() - training_since > train_seconds:
                child.kill()
                stopped = True
                break
            time.sleep(0.2)
        output = child.communicate()[0]
        data = json.loads((out / "config.json").read_text())["data"] if (out / "config.json").is_file() else {}
    if child.returncode not in (0, None) and not stopped:
        raise SystemExit(f"the training failed ({child.returncode}):\n{output[-2000:]}")
    last = output.strip().splitlines()[-1] if output.strip() else "{}"
    return {
        "frames": "memory-mapped" if map_frames else "in memory",
        "demos": data.get("demos"),
        "samples": data.get("samples"),
        "frames_gb": round(data.get("samples", 0) * 2 * 64 * 64 * 3 / 1e9, 2),
        "load_s": round(training_since - started, 1) if training_since else None,
        "trained_s": round(time.monotonic() - training_since, 1) if training_since else None,
        "epoch_finished": not stopped,
        **({"epoch": json.loads(last)} if last.startswith("{") else {}),
        "mb_at_epoch_start": at_load,
        "mb_peak": peak,
        "load_average": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demos", type=Path, required=True)
    parser.add_argument("--per-task", type=int, help="the first N demos of each task (default: all)")
    parser.add_argument("--in-memory", action="store_true", help="hold the frames in memory instead of a map")
    parser.add_argument("--train-seconds", type=float, default=60.0, help="stop this long into the epoch (0: finish)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.demos, args.out, args.per_task, not args.in_memory)
        return
    print(json.dumps(measure(args.demos.resolve(), args.per_task, not args.in_memory, args.train_seconds)))


if __name__ == "__main__":
    main()
