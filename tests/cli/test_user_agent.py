"""`--agent MODULE:CLASS` with a module in the directory the command starts in (not installed, not on
PYTHONPATH) works wherever a built-in agent does: spawned pool workers, sweeps and `heedful check agent`.
(Ray actors: tests/runner/test_runner_ray.py; `heedful serve`: tests/remote/test_remote_cli.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
USER_MODULE = """
from heedful.agents.decisions import RandomValidAgent


class MyRandom(RandomValidAgent):
    name = "my-random"
"""


def heedful_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}  # the user's directory is on no path: heedful must add it
    command = [sys.executable, "-m", "heedful", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_own_class_runs_in_worker_processes_sweeps_and_check(tmp_path: Path) -> None:
    (tmp_path / "h45_user_policy.py").write_text(USER_MODULE)
    agent = "h45_user_policy:MyRandom"
    done = heedful_in(tmp_path, "run", "decisions", "--agent", agent, "--workers", "2", "--limit", "4", "--out", "r")
    assert done.returncode == 0, done.stderr
    assert "ok 4" in done.stdout and "Traceback" not in done.stderr
    (tmp_path / "sweep.toml").write_text(
        f'out = "sw"\n[run]\nlimit = 2\nworkers = 2\n[matrix]\nsuites = ["decisions"]\nagents = ["{agent}"]\n'
    )
    done = heedful_in(tmp_path, "sweep", "sweep.toml", "--no-progress", "--resamples", "100")
    assert done.returncode == 0, done.stderr
    (cell,) = json.loads((tmp_path / "sw" / "sweep.json").read_text())["cells"]
    assert cell["state"] == "finished" and cell["counts"] == {"ok": 2}
    done = heedful_in(tmp_path, "check", "agent", f"decisions/{agent}", "--episodes", "2")
    assert done.returncode == 0 and "keeps the contract" in done.stdout, done.stdout + done.stderr
