"""heedful's installed version and source directory, for the modules that stamp them on what they write (run
manifests, remote handshakes): they import this, not the package root, which sits above every layer."""

from __future__ import annotations

import functools
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
"""The directory of the heedful package that is running."""


@functools.cache
def installed_version() -> str:
    """`heedful.__version__`, read from the installed metadata when first asked for: importing importlib.metadata
    costs a third of the command line's start-up."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("heedful")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+unknown"
