"""Test helpers of the Ray backend: agents that kill their own Ray worker, and a local cluster's set-up.

A real module, so that Ray worker processes can import it (the cluster's PYTHONPATH names this directory).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

from runner_toy import ToyAgent, ToyEpisode

KILLER_NAME = "toy-runner-killer"
KILLER_TARGET = "runner_ray_toy:KillerAgent"
HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
RAY_ENV = {
    "RAY_DISABLE_USAGE_STATS": "1",
    "RAY_AUTH_MODE": "disabled",  # no token written to ~/.ray by a test
    "PYTHONPATH": os.pathsep.join(p for p in (str(SRC), str(HERE), os.environ.get("PYTHONPATH", "")) if p),
}
"""What the test clusters' processes need: the toy modules importable, nothing sent home, nothing written home."""


def require_ray() -> Any:
    """ray, or a skip outside CI (CI installs it: a skip there would hide a missing install)."""
    import pytest

    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("ray is not installed: pip install 'heedful[ray]'")
        pytest.skip("ray is not installed: pip install 'heedful[ray]'")
    return ray


def in_ray_actor() -> bool:
    """True inside a Ray worker actor (never in the driver, so a serial reference run is never killed)."""
    try:
        import ray
    except ImportError:
        return False
    return ray.is_initialized() and ray.get_runtime_context().get_actor_id() is not None


class KillerAgent(ToyAgent):
    """The toy agent, whose Ray worker process exits abruptly (os._exit) on episode number `kill_at`.

    With `marker`, only the first time: the file is created before the exit, and its presence spares later tries.
    With `delay`, every episode first sleeps that long (so that a test can kill a worker mid-run). With `broken`,
    it cannot be built inside a Ray actor. `padding` (unused) makes its arguments, and so the actors' set-up data,
    as large as a fittable agent's training data: larger than Ray passes inline.
    """

    def __init__(
        self,
        kill_at: int = -1,
        marker: str = "",
        delay: float = 0.0,
        pid_dir: str = "",
        broken: bool = False,
        padding: str = "",
    ) -> None:
        if broken and in_ray_actor():
            raise RuntimeError("the toy agent refuses to start in a Ray actor")
        super().__init__()
        self.kill_at, self.marker, self.delay, self.pid_dir = kill_at, marker, delay, pid_dir

    def act(self, episode: ToyEpisode, seed: int) -> tuple[int, float]:
        if self.pid_dir and in_ray_actor():
            (Path(self.pid_dir) / str(os.getpid())).touch()
        if self.delay:
            time.sleep(self.delay)
        if episode.number == self.kill_at and in_ray_actor():
            if not self.marker:
                os._exit(7)
            if not os.path.exists(self.marker):
                Path(self.marker).touch()
                os._exit(7)
        return super().act(episode, seed)

    def describe(self) -> dict[str, Any]:
        return {"name": "killer", "kill_at": self.kill_at}


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process, read from /proc (Linux)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            stat = (entry / "stat").read_text()
        except OSError:  # it exited meanwhile
            continue
        fields = stat.rpartition(")")[2].split()
        if fields[0] != "Z":
            table[int(entry.name)] = (int(fields[1]), cmdline)
    return table


def descendants(roots: set[int], table: dict[int, tuple[int, str]]) -> set[int]:
    """`roots` and every process below them."""
    found = set(roots)
    while True:
        more = {pid for pid, (parent, _) in table.items() if parent in found} - found
        if not more:
            return found
        found |= more


def cluster_pids(temp_dir: str) -> set[int]:
    """The processes of the Ray cluster whose files live in `temp_dir`: its daemons and their workers."""
    table = processes()
    roots = {pid for pid, (_, cmd) in table.items() if temp_dir in cmd and pid != os.getpid()}
    return descendants(roots, table) - {os.getpid()}


def cluster_workers(temp_dir: str) -> list[int]:
    """The heedful worker actors' processes of the Ray cluster whose files live in `temp_dir`."""
    table = processes()
    return sorted(pid for pid in cluster_pids(temp_dir) if table.get(pid, (0, ""))[1].startswith("ray::RayWorker"))


def node_workers(resource: str) -> list[int]:
    """The heedful worker actors' processes of the node that has the custom `resource` (its raylet's children)."""
    table = processes()
    raylets = {pid for pid, (_, cmd) in table.items() if "raylet" in cmd.split(" ")[0] and f"{resource}," in cmd}
    return sorted(pid for pid, (parent, cmd) in table.items() if parent in raylets and cmd.startswith("ray::RayWorker"))


def stop_cluster(temp_dir: str) -> None:
    """Stop only this cluster (`ray stop` would stop every Ray process of the machine, other tests' included)."""
    pids = cluster_pids(temp_dir)
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while (pids := pids & set(processes())) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not pids:
            return


def main() -> None:
    """Subprocess entry point: `python -c "import runner_ray_toy; runner_ray_toy.main()" SPEC DIR WORKERS N ADDRESS
    [resume]`, a toy run on the Ray cluster at ADDRESS."""
    import sys

    from runner_toy import AGENT_NAME, AGENT_TARGET, SUITE_NAME, SUITE_TARGET, make_episodes

    from heedful.agents.registry import AGENTS
    from heedful.runner import RunSpec, run
    from heedful.suites.registry import SUITES

    spec_json, run_dir, workers, n, address = sys.argv[1:6]
    resume = sys.argv[6:] == ["resume"]
    SUITES.register(SUITE_NAME, SUITE_TARGET)
    AGENTS.register(AGENT_NAME, AGENT_TARGET)
    AGENTS.register(KILLER_NAME, KILLER_TARGET)
    spec = RunSpec.model_validate_json(spec_json)
    episodes = make_episodes(int(n))
    workers_n = int(workers)
    run(spec, episodes, Path(run_dir), workers=workers_n, resume=resume, progress=False, backend="ray", address=address)
