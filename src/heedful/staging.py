"""Write a directory whole or not at all: build it beside its final place, then rename it into place.

`heedful generate` writes through this, so an interrupted or failed generation never leaves half a dataset, and
an existing non-empty directory is replaced only when asked (`--force`).
"""

from __future__ import annotations

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
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
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
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.replace(out, retired / out.name)
            os.replace(staging, out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
