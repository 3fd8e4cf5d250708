"""A watchdog that stops the Ray processes a killed driver started.

`ray.shutdown()` stops a local Ray instance when the driver ends normally, on Ctrl-C or SIGTERM; a driver killed
outright (SIGKILL, out of memory) runs no code, and Ray's per-node agents (`ray::DashboardAgent`,
`ray::RuntimeEnvAgent`) outlive it for good. So when heedful starts a local instance it also starts this watchdog: a
small process that notes, every second, the Ray processes below the driver (their pid and start time), and
waits on a pipe from the driver. The driver says `done` before it shuts Ray down itself; a pipe that closes without
it means the driver died, and the watchdog kills the Ray processes it noted (still running, with the same start
time: never a reused pid). Linux only (it reads /proc); elsewhere nothing is started.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

DONE = b"done\n"
POLL_S = 1.0

_WATCHDOG = r"""
import os, select, signal, sys
from pathlib import Path

driver, poll = int(sys.argv[1]), float(sys.argv[2])

def table():
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rpartition(")")[2].split()
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            found[int(entry.name)] = (int(stat[1]), stat[19], cmd)
    return found

def ray_below(found):
    below, todo = set(), [driver]
    while todo:
        parent = todo.pop()
        for pid, (ppid, _, _) in found.items():
            if ppid == parent and pid not in below:
                below.add(pid)
                todo.append(pid)
    below.discard(os.getpid())
    return {pid: found[pid][1] for pid in below if "ray::" in found[pid][2] or "/ray/" in found[pid][2]}

noted = {}
while True:
    ready, _, _ = select.select([sys.stdin.buffer], [], [], poll)
    if ready:
        data = os.read(sys.stdin.fileno(), 64)
        if data.startswith(b"done"):
            sys.exit(0)
        if not data:
            break
    try:
        noted.update(ray_below(table()))
    except Exception:  # a process table read mid-change: the next poll reads it again
        pass
found = table()
for pid, started in noted.items():
    if pid in found and found[pid][1] == started:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""


class RayReaper:
    """The watchdog of one local Ray instance (see the module); `done()` before `ray.shutdown()`.

    Args:
        poll_s: How often it notes the Ray processes below the driver.
    """

    def __init__(self, poll_s: float = POLL_S) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        if not Path("/proc/self/stat").exists():
            return
        self._process = subprocess.Popen(
            # -I -S: no site-packages to scan at start (seconds on a busy machine): the watchdog needs the stdlib only
            [sys.executable, "-I", "-S", "-c", _WATCHDOG, str(os.getpid()), str(poll_s)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in the terminal reaches the driver, not the watchdog
        )

    def done(self) -> None:
        """The driver shuts Ray down itself: the watchdog leaves without killing anything."""
        process, self._process = self._process, None
        if process is None:
            return
        stdin: IO[bytes] | None = process.stdin
        try:
            if stdin is not None:
                stdin.write(DONE)
                stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
