"""Write a directory whole or not at all: build it beside its final place, then rename it into place.

`heedful generate` writes through this, so an interrupted or failed generation never leaves half a dataset, and
an existing non-empty directory is replaced only when asked (`--force`). The staging directory's name carries the
writing process's id: one left by a killed process (SIGKILL leaves it behind) is removed by the next writer of the
same directory.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from heedful.errors import ConfigError


@contextmanager
def staged_directory(out: Path, *, force: bool = False, flag: str = "--out") -> Iterator[Path]:
    """Yield an empty directory to fill; on success it becomes `out` (replacing it when `force`), on any error
    (Ctrl-C included) it is removed and `out` is untouched.

    Raises:
        ConfigError: `out` is a file, is a non-empty directory and `force` is False, or cannot be created.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{flag} {out} is a file; choose a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ConfigError(
            f"{flag} {out} is not empty; pass --force to replace it (runs made on the old files can then no longer "
            f"resume), or choose another {flag}"
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(out)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.{os.getpid()}.", suffix=".partial", dir=out.parent))
    except (FileExistsError, NotADirectoryError):
        raise ConfigError(
            f"cannot write {flag} {out}: a file stands where a directory must; choose another {flag}"
        ) from None
    except OSError as err:
        raise ConfigError(f"cannot write {flag} {out}: {err.strerror}; choose another {flag}") from None
    try:
        yield staging
        os.chmod(staging, 0o777 & ~_umask())  # mkdtemp makes it private; the result is an ordinary directory
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.{os.getpid()}.", suffix=".old", dir=out.parent))
            os.replace(out, retired / out.name)
            os.replace(staging, out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def remove_stale(out: Path) -> list[Path]:
    """Remove the staging (`.partial`) and retired (`.old`) directories of `out` whose writing process is gone (on
    this machine; a name without a process id is from before ids were recorded and is left alone). Returns them."""
    removed = []
    for path in Path(out).parent.glob(f".{glob.escape(out.name)}.*"):
        parts = path.name[len(out.name) + 2 :].split(".")
        if path.suffix not in (".partial", ".old") or len(parts) < 3 or not parts[0].isdigit():
            continue
        if not _alive(int(parts[0])):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's live process, or not a pid
        return True
    return True


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
