"""heedful: measure whether embodied agents actually follow instructions.

Importing this package is cheap: suites, agents and simulators load lazily. Its one side effect is to
register heedful's Gymnasium ids (`heedful/Tabletop-v0`, `heedful/TabletopScene1-v0` ... `Scene4-v0`) by
entry-point string, now if gymnasium is loaded, else right after it is (see `heedful.envs`).
"""

import functools
from typing import Any

from heedful import envs as _envs

_envs.install()


def __getattr__(name: str) -> str:
    # `heedful.__version__` is read from the installed metadata when first asked for: importing
    # importlib.metadata costs a third of the command line's start-up
    if name != "__version__":
        raise AttributeError(f"module 'heedful' has no attribute {name!r}")
    return _installed_version()


@functools.cache
def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("heedful")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+unknown"


def tasks(suite: str, **filters: object) -> list[Any]:
    """The tasks of `suite`, filtered by their groups: `heedful.tasks("tabletop", level="L1", scene=2)`.

    Returns `heedful.task_catalog.TaskInfo` items (id, instruction, description, groups, the dataset line);
    `dataset=DIR` and `seed=N` choose the dataset (default: the suite's default dataset, cached).
    """
    from heedful.task_catalog import tasks as _tasks

    return _tasks(suite, **filters)  # type: ignore[arg-type]


__all__ = ["__version__", "tasks"]
