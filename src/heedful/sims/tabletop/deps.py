"""Lazy imports of the simulator's optional dependencies, with install hints."""

from __future__ import annotations

import os
from types import ModuleType

from heedful.errors import MissingDependencyError

_HINT = 'install the tabletop extra: pip install "heedful[tabletop]"'


def require_mujoco() -> ModuleType:
    """Import and return `mujoco`; headless machines default to EGL rendering (MUJOCO_GL=egl)."""
    if "DISPLAY" not in os.environ:
        # Must be decided before mujoco is first imported; an explicit MUJOCO_GL always wins.
        os.environ.setdefault("MUJOCO_GL", "egl")
    try:
        import mujoco  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(f"the tabletop simulator needs mujoco: {_HINT}") from exc
    module: ModuleType = mujoco
    return module
