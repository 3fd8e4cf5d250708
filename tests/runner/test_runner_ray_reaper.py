"""The watchdog of a local Ray instance (`heedful.runner.ray_reaper`): a driver killed outright leaves none of the Ray
processes below it running; a driver that says `done` leaves them to its own shutdown. Real processes stand in for
Ray's (named `ray::...`, as Ray names its agents): starting a Ray instance to kill its driver would take a minute."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from heedful.runner import ray_reaper

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the watchdog reads /proc (Linux)")

DRIVER = """
import subprocess, sys, time
from heedful.runner.ray_reaper import RayReaper
reaper = RayReaper(poll_s=0.1)
agent = subprocess.Popen(["bash", "-c", "exec -a ray::TestAgent sleep 120"])
other = subprocess.Popen(["bash", "-c", "exec -a not-ray sleep 120"])
print(agent.pid, other.pid, flush=True)
if sys.argv[1] == "done":
    time.sleep(1.5)
    reaper.done()
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _driver(mode: str) -> tuple[subprocess.Popen[str], int, int]:
    env = {**os.environ, "PYTHONPATH": str(Path(ray_reaper.__file__).parents[2])}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, mode], stdout=subprocess.PIPE, text=True, env=env)
    assert driver.stdout is not None
    agent, other = (int(pid) for pid in driver.stdout.readline().split())
    return driver, agent, other


def _wait(condition: object, within_s: float = 15.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


def test_a_killed_driver_leaves_no_ray_process_and_a_done_one_leaves_them_to_its_shutdown() -> None:
    driver, agent, other = _driver("kill")
    try:
        time.sleep(1.5)  # the watchdog has noted the agent
        driver.kill()
        driver.wait()
        assert _wait(lambda: not _alive(agent)), "the Ray process outlived its killed driver"
        assert _alive(other)  # only Ray's processes are the watchdog's
    finally:
        for pid in (agent, other):
            if _alive(pid):
                os.kill(pid, 9)
    driver, agent, other = _driver("done")
    try:
        time.sleep(2.0)  # the driver said done, then it is killed
        driver.kill()
        driver.wait()
        time.sleep(0.5)
        assert _alive(agent)
    finally:
        for pid in (agent, other):
            if _alive(pid):
                os.kill(pid, 9)
