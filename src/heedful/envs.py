"""Gymnasium ids of heedful's environments, registered by entry-point string when `heedful` is imported.

Gymnasium 1.x no longer loads plugin entry points by itself, so `heedful/__init__` calls `install()`:
- gymnasium already imported: the ids are registered at once;
- gymnasium not imported yet: a one-shot import hook registers them right after gymnasium's own import
  finishes, so `import heedful` stays cheap (it imports neither gymnasium nor MuJoCo) and both
  `import heedful; import gymnasium as gym; gym.make("heedful/Tabletop-v0")` and, in a fresh interpreter,
  `gym.make("heedful:heedful/Tabletop-v0")` work, in either import order.
Registering by string imports nothing: the simulator loads on the first `gym.make`.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # importlib.abc imports importlib.resources, tempfile, ...: a fifth of the CLI's start-up
    import importlib.abc
    import importlib.machinery

TASK_ENTRY_POINT = "heedful.suites.tabletop.task_env:TabletopTaskEnv"
TABLETOP_ID = "heedful/Tabletop-v0"
SCENES = (1, 2, 3, 4)


def scene_id(scene: int) -> str:
    """The id of the env whose resets draw only tasks of RoboFollow scene `scene` (1..4)."""
    return f"heedful/TabletopScene{scene}-v0"


def env_ids() -> tuple[str, ...]:
    """Every id heedful registers."""
    return (TABLETOP_ID, *(scene_id(s) for s in SCENES))


def register_all() -> None:
    """Register every heedful id with Gymnasium (idempotent; imports gymnasium, not the simulator)."""
    import gymnasium as gym

    if TABLETOP_ID not in gym.registry:
        gym.register(id=TABLETOP_ID, entry_point=TASK_ENTRY_POINT)
    for s in SCENES:
        if scene_id(s) not in gym.registry:
            gym.register(id=scene_id(s), entry_point=TASK_ENTRY_POINT, kwargs={"scene": s})


class _RegisterAfterImport:
    """Finds nothing itself: hands out gymnasium's own spec with a loader that registers after executing it.

    It stays in `sys.meta_path` until gymnasium is really imported: `importlib.util.find_spec("gymnasium")`, an
    availability check that imports nothing (heedful.requirements makes one), passes through it harmlessly.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        for finder in sys.meta_path:  # the other finders, in order: gymnasium's real spec
            if finder is self or isinstance(finder, _RegisterAfterImport):
                continue
            find = getattr(finder, "find_spec", None)
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = cast("importlib.abc.Loader", _RegisteringLoader(spec.loader))
                return spec
        return None


class _RegisteringLoader:
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        _remove_hook()
        try:
            register_all()
        except Exception as exc:  # never fail the user's `import gymnasium` over heedful's ids
            warnings.warn(f"heedful could not register its Gymnasium ids: {exc}", stacklevel=2)

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self.inner, name)


def _remove_hook() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _RegisterAfterImport)]


def install() -> None:
    """Register now if gymnasium is loaded, else once it is; nothing when gymnasium is not installed."""
    if "gymnasium" in sys.modules:
        register_all()
    elif not any(isinstance(f, _RegisterAfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterImport())
