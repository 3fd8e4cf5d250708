"""heedful: measure whether embodied agents actually follow instructions.

Importing this package is cheap: suites, agents and simulators load lazily. Its one side effect is to
register heedful's Gymnasium ids (`heedful/Tabletop-v0`, `heedful/TabletopScene1-v0` ... `Scene4-v0`) by
entry-point string, now if gymnasium is loaded, else right after it is (see `heedful.envs`).
"""

from typing import Any

from heedful import envs as _envs
from heedful.version import installed_version as _installed_version

_envs.install()


def __getattr__(name: str) -> str:
    # `heedful.__version__` is read from the installed metadata when first asked for (heedful.version)
    if name != "__version__":
        raise AttributeError(f"module 'heedful' has no attribute {name!r}")
    return _installed_version()


def tasks(suite: str, **filters: object) -> list[Any]:
    """The tasks of `suite`, filtered by their groups: `heedful.tasks("tabletop", level="L1", scene=2)`.

    Returns `heedful.task_catalog.TaskInfo` items (id, instruction, description, groups, the dataset line);
    `dataset=DIR` and `seed=N` choose the dataset (default: the suite's default dataset, cached).
    """
    from heedful.task_catalog import tasks as _tasks

    return _tasks(suite, **filters)  # type: ignore[arg-type]


__all__ = ["__version__", "tasks"]
