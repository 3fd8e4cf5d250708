"""Batched policy inference on the tabletop protocol: trials/s against `--batch` and `--workers`, with the peak
memory of each worker.

    MUJOCO_GL=egl python benchmarks/batched_policy.py [--workers 1 2] [--batch 1 4 16 32] [--limit 64]
    MUJOCO_GL=egl python benchmarks/batched_policy.py --agent bc --agent-arg model=DIR --agent-arg device=cuda \
        --all --workers 16 --batch 1 32          # a trained bc policy on the whole L0-L3 set (554 trials)

The default agent, `heavy-net`, stands for an expensive learned policy on a CPU: a seeded torch network on one
thread whose single call costs at least 10 ms here (its costs at batch 1 and 32 are printed first), reading the
proprio state and the instruction and answering `--chunk` actions per call. `--profile` says what its cost is made
of:

- `latency` (the default): a deep narrow network (1600 layers of 32 units), whose call costs about the same at
  batch 1 and 32 (about 1.2x here): its time is per-layer dispatch, not arithmetic, as a GPU forward pass's is
  kernel launches (the issue measured bc-image on an H200 at 1.6 ms for batch 1 and for batch 512). Its weights are
  ternary and its activations integers in [-127, 127] (an int8-style quantized network computed in float32):
  every sum is exact, so a row's answer is bit for bit the same in a batch as alone, and a batched run's records
  equal the unbatched run's.
- `compute`: a wide MLP (24 layers of 1408, tanh), compute-bound on a CPU: a batch of 32 costs 3.3-3.7 calls
  here. torch's kernels are not batch-invariant, so a batched run's actions may differ from an unbatched run's in
  the last bits, and rarely its outcomes.

Every configuration's records (all but the timing) are compared with the same workers' batch-1 records
("records = batch 1" in the table).

Every configuration runs the same stratified sample of trials (1 trial per task, `--limit` of the 554 tasks, or all
of them) in a fresh process: trials/s is trials over the run's wall time (worker start-up included), and the peak
memory is the largest VmHWM of the process that runs the trials (the run's process with one worker, each pool worker
with more), read every half second. `cpu_s` is the CPU time (user and system) of the configuration's process and its
pool workers, start-up included; "x unbatched (cpu)" compares trials per CPU second, which moves much less than the
wall ratio with other jobs' load on a shared machine (where the workers keep every core busy, as two workers on two
cores do, the two ratios agree on an idle machine).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.threads import inherit_torch_threads

HERE = Path(__file__).resolve().parent
IMAGE_KEYS = {"agentview": "image", "wrist": "wrist_image"}  # heedful.sims.tabletop.config's, without importing it
AGENT = "heavy-net"
TARGET = "batched_policy:HeavyNetPolicy"
PROFILES = {"latency": (1600, 32), "compute": (24, 1408)}
"""heavy-net's default (depth, width) for each profile: one call at least 10 ms on this project's 2-core machine."""
LEVELS = 127  # the latency profile's activations are integers in [-LEVELS, LEVELS]


class HeavyNetPolicy:
    """A stateless controller whose every answer costs one pass through its network (`profile`: see the module
    docstring)."""

    name = AGENT
    cameras: tuple[str, ...] = ()  # reads the proprio state and the instruction: nothing is rendered for it

    def __init__(
        self,
        *,
        profile: str = "latency",
        depth: int | None = None,
        width: int | None = None,
        chunk: int = 1,
        device: str = "cpu",
        cameras: str = "",
        image_size: int | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"heavy-net: profile must be one of {sorted(PROFILES)}, got {profile!r}")
        depth = PROFILES[profile][0] if depth is None else depth
        width = PROFILES[profile][1] if width is None else width
        # Cameras to render (comma-separated), read into the features as each image's mean colour: the trials
        # then pay for rendering as a vision policy's do.
        self.cameras = tuple(c for c in cameras.split(",") if c)
        self.image_size = image_size
        if width < max(16 + 3 * len(self.cameras), 7 * chunk):
            raise ValueError(f"heavy-net: width {width} is too narrow for its inputs and {chunk} action(s) a call")

        self.profile, self.depth, self.width, self.chunk, self.device = profile, depth, width, chunk, device
        # torch is imported and the network built at the first call: a pool run's own process builds a copy of the
        # agent that never predicts (importing torch and building the compute network took 2.7 s there), and each
        # worker builds its own from the same seeds.
        self._built = False
        self._building = threading.Lock()
        self.calls = 0

    def _build(self) -> None:
        import torch

        with self._building:
            if self._built:
                return
            torch.set_num_threads(1)
            depth, width, device = self.depth, self.width, self.device
            if self.profile == "compute":
                torch.manual_seed(0)
                layers: list[Any] = []
                for _ in range(depth):
                    layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
                self.net = torch.nn.Sequential(*layers).eval().to(device)
            else:
                generator = torch.Generator().manual_seed(0)
                self.weights = [
                    torch.randint(-1, 2, (width, width), generator=generator).to(device, torch.float32)
                    for _ in range(depth)
                ]
                # A power of two near a layer's gain (sqrt(2/3 * width) for ternary weights), so that the
                # activations neither die out nor all saturate; multiplying by it is exact.
                self.scale = 2.0 ** -math.floor(math.log2(math.sqrt(2.0 * width / 3.0)))
            self._built = True

    def reset(self) -> None:
        self.calls = 0

    def set_instruction(self, instruction: str) -> None:
        """Not needed: the instruction is read from each observation's prompt."""

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        self.calls += 1
        return self.predict_batch([observation])[0]

    def predict_batch(self, observations: Sequence[dict[str, Any]]) -> list[NDArray[np.float64]]:
        import torch

        if not self._built:
            self._build()
        inherit_torch_threads()  # a lockstep thread that started before torch was imported has not taken its count
        features = np.zeros((len(observations), self.width), dtype=np.float32)
        for row, observation in enumerate(observations):
            features[row, :8] = np.asarray(observation["state"], dtype=np.float32)[:8]
            code = zlib.crc32(str(observation["prompt"]).encode())
            features[row, 8:16] = [((code >> (4 * k)) & 15) / 15.0 for k in range(8)]
            for k, camera in enumerate(self.cameras):
                image = np.asarray(observation[IMAGE_KEYS[camera]], dtype=np.float32)
                features[row, 16 + 3 * k : 19 + 3 * k] = image.mean(axis=(0, 1)) / 255.0
        with torch.no_grad():
            if self.profile == "compute":
                out = self.net(torch.from_numpy(features).to(self.device)).cpu().numpy().astype(np.float64)
            else:
                out = self._quantized(features)
        chunks = []
        for row in out:
            chunk = 0.5 * row[: 7 * self.chunk].reshape(self.chunk, 7)
            chunk[:, 3:6] = 0.0  # no rotation
            chunk[:, 6] = np.sign(chunk[:, 6]) + (chunk[:, 6] == 0)  # the gripper opens or closes
            chunks.append(chunk)
        return chunks

    def _quantized(self, features: NDArray[np.float32]) -> NDArray[np.float64]:
        """The latency profile's forward pass: integers times ternary weights, so every sum is exact in float32
        (below 2**24) whatever the order torch adds in, and a row's answer does not depend on its batch-mates."""
        import torch

        x = torch.from_numpy(np.clip(np.rint(features * LEVELS), -LEVELS, LEVELS)).to(self.device)
        for weight in self.weights:
            x = torch.mm(x, weight).mul_(self.scale).round_().clamp_(-LEVELS, LEVELS)
        out: NDArray[np.float64] = x.cpu().numpy().astype(np.float64) / LEVELS
        return out

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        return {"predictions": self.calls}, {}


def call_costs(policy: HeavyNetPolicy, sizes: Sequence[int] = (1, 32), repeats: int = 7) -> dict[int, float]:
    """The median wall time (ms) of one predict_batch call at each size."""
    rng = np.random.default_rng(0)
    costs = {}
    for size in sizes:
        observations = [{"state": rng.normal(size=8), "prompt": f"task {i}"} for i in range(size)]
        policy.predict_batch(observations)  # warm-up
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            policy.predict_batch(observations)
            times.append((time.perf_counter() - start) * 1000.0)
        costs[size] = float(np.median(times))
    return costs


# --- one configuration, in its own process ------------------------------------------------------------------


class GLContextCount:
    """OpenGL contexts made and alive in this process: MuJoCo's `GLContext` class (EGL, OSMesa or GLFW, whichever
    MUJOCO_GL chose) replaced by a counting subclass, which every renderer made afterwards uses."""

    def __init__(self) -> None:
        from mujoco.rendering.classic import gl_context

        self.made = self.alive = self.peak = 0
        base, count = gl_context.GLContext, self
        if base is None:
            return

        class Counting(base):  # type: ignore[misc, valid-type]
            def __init__(self, *size: int) -> None:
                super().__init__(*size)
                count.made += 1
                count.alive += 1
                count.peak = max(count.peak, count.alive)
                self._counted = True

            def free(self) -> None:
                if getattr(self, "_counted", False):
                    self._counted = False
                    count.alive -= 1
                super().free()

        gl_context.GLContext = Counting


def run_one(args: argparse.Namespace) -> dict[str, Any]:
    from heedful.agents.registry import AGENTS
    from heedful.api import evaluate
    from heedful.runner import load_run

    AGENTS.register(f"tabletop/{AGENT}", TARGET)
    contexts = GLContextCount() if args.workers[0] <= 1 else None  # pool workers are other processes
    start = time.perf_counter()
    result = evaluate(
        suite="tabletop",
        agent=args.agent,
        agent_args=agent_args(args),
        out=args.out,
        limit=args.limit,
        options={"trials": 1},
        workers=args.workers[0],
        batch=args.batch[0],
        progress=False,
    )
    wall = time.perf_counter() - start
    records = load_run(args.out)[1]
    bodies = sorted((r.deterministic_dict() for r in records), key=lambda body: json.dumps(body, sort_keys=True))
    batches = [r.timing["predict_batch_mean"] for r in records if "predict_batch_mean" in r.timing]
    return {
        "wall_s": wall,
        "trials": len(records),
        "steps": sum(int(r.prediction.get("steps", 0)) for r in records if r.prediction),
        "counts": result.counts,
        "mean_batch": float(np.mean(batches)) if batches else 1.0,
        "complete": float(np.mean([r.scores.get("complete", 0.0) for r in records])),
        "records_sha256": hashlib.sha256(json.dumps(bodies, sort_keys=True).encode()).hexdigest(),
        "errors": Counter(f"{r.status}: {(r.error or '')[:300]}" for r in records if r.error).most_common(3),
        "gl_contexts_made": contexts.made if contexts else None,
        "gl_contexts_peak": contexts.peak if contexts else None,
    }


def agent_args(args: argparse.Namespace) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if args.agent == AGENT:
        values = {"profile": args.profile, "chunk": args.chunk, "cameras": args.cameras}
        values |= {"depth": args.depth, "width": args.width}
        if args.image_size:
            values["image_size"] = args.image_size
    for item in args.agent_arg:
        key, _, text = item.partition("=")
        try:
            values[key] = json.loads(text)
        except json.JSONDecodeError:
            values[key] = text
    return values


# --- the driver ----------------------------------------------------------------------------------------------


def _tree(root: int) -> list[int]:
    """`root` and its descendants (from /proc's parent ids)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _hwm_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(argv: list[str], workers: int) -> tuple[dict[str, Any], float, float]:
    """Run one configuration's process; its result, the peak memory (MB) of a process running trials, and the CPU
    seconds of the configuration's process and its workers (all of them waited for, so counted in RUSAGE_CHILDREN)."""
    cpu_before = _children_cpu_s()
    child = subprocess.Popen([sys.executable, __file__, "--one", *argv], stdout=subprocess.PIPE, text=True)
    peaks: dict[int, float] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for pid in _tree(child.pid):
                peaks[pid] = max(peaks.get(pid, 0.0), _hwm_mb(pid))
            done.wait(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, _ = child.communicate()
    done.set()
    watcher.join()
    if child.returncode != 0:
        raise SystemExit(f"configuration {argv} failed (exit {child.returncode})")
    cpu_s = _children_cpu_s() - cpu_before
    runners = [mb for pid, mb in peaks.items() if pid != child.pid] if workers > 1 else [peaks.get(child.pid, 0.0)]
    return json.loads(out.strip().splitlines()[-1]), max(runners, default=0.0), cpu_s


def summary(rows: list[dict[str, Any]]) -> None:
    """Print the table (trials/s against the same workers' unbatched run), adding trials_per_s and speedup, and the
    same ratio in CPU seconds (trials per CPU second of the run's processes, `cpu_speedup`): on a machine shared
    with other jobs the wall ratio moves with their load between configurations, the CPU ratio much less."""
    print(
        "workers  batch  trials  wall_s  trials/s  x unbatched  cpu_s  x unbatched (cpu)  mean batch  "
        "peak MB/worker  complete  records = batch 1  GL made/peak"
    )
    for row in rows:
        row["trials_per_s"] = row["trials"] / row["wall_s"]
        row["trials_per_cpu_s"] = row["trials"] / row["cpu_s"] if row.get("cpu_s") else None
    for row in rows:
        base = [r for r in rows if r["workers"] == row["workers"] and r["batch"] == 1]
        row["speedup"] = row["trials_per_s"] / base[0]["trials_per_s"] if base else None
        cpu_base = base[0]["trials_per_cpu_s"] if base else None
        same = "-" if not base else "yes" if row.get("records_sha256") == base[0].get("records_sha256") else "NO"
        row["records_equal_batch_1"] = None if not base else same == "yes"
        row["cpu_speedup"] = row["trials_per_cpu_s"] / cpu_base if cpu_base and row["trials_per_cpu_s"] else None
        print(
            f"{row['workers']:7d}  {row['batch']:5d}  {row['trials']:6d}  {row['wall_s']:6.1f}  "
            f"{row['trials_per_s']:8.2f}  {row['speedup'] or float('nan'):11.2f}  "
            f"{row.get('cpu_s', float('nan')):5.1f}  {row['cpu_speedup'] or float('nan'):17.2f}  "
            f"{row['mean_batch']:10.1f}  "
            f"{row['peak_mb']:14.0f}  {row['complete']:8.3f}  {same:>17}  "
            f"{row.get('gl_contexts_made')}/{row.get('gl_contexts_peak')}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default=AGENT)
    parser.add_argument("--agent-arg", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 4, 16, 32])
    parser.add_argument("--limit", type=int, default=64, help="trials (one per task, stratified over scene x level)")
    parser.add_argument("--all", action="store_true", help="every task of L0-L3 (554 trials)")
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="latency",
        help="heavy-net's network: 'latency' (default) a deep narrow quantized network whose call costs about the "
        "same at batch 1 and 32, as a GPU policy's does; 'compute' a wide MLP whose batch of 32 costs 3-4 calls "
        "on a CPU core (see above)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        help=f"heavy-net: layers (default per profile: {', '.join(f'{k} {v[0]}' for k, v in PROFILES.items())})",
    )
    parser.add_argument(
        "--width",
        type=int,
        help=f"heavy-net: units a layer (default per profile: {', '.join(f'{k} {v[1]}' for k, v in PROFILES.items())})",
    )
    parser.add_argument("--chunk", type=int, default=1, help="heavy-net: actions per call")
    parser.add_argument("--cameras", default="", help="heavy-net: cameras it reads, e.g. agentview,wrist")
    parser.add_argument("--image-size", type=int, help="heavy-net: the size its images are rendered at")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.all:
        args.limit = None
    paths = [str(HERE), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)  # pool workers import the policy from here
    args.depth = PROFILES[args.profile][0] if args.depth is None else args.depth
    args.width = PROFILES[args.profile][1] if args.width is None else args.width
    if args.one:
        print(json.dumps(run_one(args)))
        return
    if args.agent == AGENT:
        policy = HeavyNetPolicy(profile=args.profile, depth=args.depth, width=args.width, chunk=args.chunk)
        costs = call_costs(policy)
        print(
            f"{AGENT} ({args.profile}: {args.depth} x {args.width}, 1 thread): one call {costs[1]:.1f} ms, a batch "
            f"of 32 {costs[32]:.1f} ms ({costs[32] / costs[1]:.2f}x)",
            flush=True,
        )
        del policy
    common = ["--agent", args.agent, "--profile", args.profile, "--depth", str(args.depth), "--width", str(args.width)]
    common += ["--chunk", str(args.chunk)]
    common += ["--cameras", args.cameras] + (["--image-size", str(args.image_size)] if args.image_size else [])
    common += [x for item in args.agent_arg for x in ("--agent-arg", item)]
    common += ["--all"] if args.limit is None else ["--limit", str(args.limit)]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="batched-policy-") as tmp:
        for workers in args.workers:
            for batch in args.batch:
                out = Path(tmp) / f"w{workers}-b{batch}-{len(rows)}"
                argv = [*common, "--workers", str(workers), "--batch", str(batch), "--out", str(out)]
                result, peak, cpu_s = measure(argv, workers)
                rows.append({"workers": workers, "batch": batch, **result, "peak_mb": peak, "cpu_s": cpu_s})
                print(f"workers {workers} batch {batch}: {json.dumps(rows[-1])}", flush=True)
                if args.json:  # after each configuration: a run stopped later keeps what was measured
                    args.json.write_text(json.dumps(rows, indent=2) + "\n")
    summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
