"""The root of heedful's caches: the dataset cache (`datasets/`) and the language-model response cache."""

from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    """`$HEEDFUL_CACHE_DIR`, else `$XDG_CACHE_HOME/heedful`, else `~/.cache/heedful`."""
    root = os.environ.get("HEEDFUL_CACHE_DIR")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "heedful"
