"""One writer per run directory: an OS file lock on `RUN/.heedful.lock`, held while a process writes the run.

The lock is `flock` on an open file, so the kernel releases it when the holder exits, however it exits: a run
killed with SIGKILL never leaves a stale lock behind, and the file itself may stay (it is never removed, since
removing a lock file races with the next process that opens it). The file holds the holder's PID and start
time, read only to name the holder in the error a second writer gets.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from heedful.errors import RunError
from heedful.runner.manifest import utc_now

LOCK_NAME = ".heedful.lock"


class RunLockedError(RunError):
    """Another process is writing this run directory."""


class RunLock:
    """Hold the run directory's writer lock (a context manager); `RunLockedError` if another process holds it."""

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise RunError(f"cannot create the run lock {self.path}: {err.strerror}; choose another --out") from err
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise RunLockedError(
                f"run directory {self.path.parent} is being written by another heedful process ({holder}); "
                "wait for it to finish (then --resume), or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} since {utc_now()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "pid unknown"
