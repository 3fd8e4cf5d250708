"""The test session's record of the heedful processes tests start, so that none outlives the session.

`install()` (called by tests/conftest.py) wraps `subprocess.Popen`: every command line that names heedful (a
`heedful serve`, a `python -m heedful.llm.serve`, a `heedful run`) is recorded. `kill_leftovers()` kills the
recorded ones still running; conftest calls it when the session ends, whether it passed, failed or was
interrupted. Only heedful's own commands are recorded: Ray and xdist manage their processes themselves.
"""

from __future__ import annotations

import contextlib
import subprocess
from typing import Any

STARTED: list[subprocess.Popen[Any]] = []
_popen_init = subprocess.Popen.__init__


def _recording_init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
    _popen_init(self, args, *rest, **kwargs)
    if "heedful" in " ".join(map(str, args if isinstance(args, list | tuple) else [args])):
        STARTED.append(self)


def install() -> None:
    """Record the heedful processes started from now on (once per process)."""
    if subprocess.Popen.__init__ is not _recording_init:
        subprocess.Popen.__init__ = _recording_init  # type: ignore[method-assign]


def kill_leftovers(processes: list[subprocess.Popen[Any]] | None = None) -> list[int]:
    """Kill the recorded processes (or those of `processes`) still running; return their PIDs."""
    chosen = list(STARTED if processes is None else processes)
    killed = []
    for process in chosen:
        if process.poll() is None:
            process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            killed.append(process.pid)
        if process in STARTED:
            STARTED.remove(process)
    return killed
