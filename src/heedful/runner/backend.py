"""The backend contract: where a run's episodes roll out, found by name in a registry.

A backend is built from the run's raw flags (`BackendFlags`: `--workers`, `--address`, `--resources`) by its own
factory, which parses and checks the options it takes and refuses the others with a typed error, before the run
directory is touched. The run then asks it where it runs (for the manifest), whether it keeps the agent in this
process (a budget is enforced in one process only), and to execute the work: batches of records as they finish,
never touching the store. Every backend rolls episodes out through `heedful.runner.rollouts`, so a record is the
same on each. Built in: `local` (this process, or a pool of `--workers` spawned processes,
`heedful.runner.backends`) and `ray` (`--workers` actors on a Ray cluster, `heedful.runner.ray_run`);
third parties add one through the `heedful.backends` entry-point group.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from heedful.records import Record
from heedful.registry import Registry
from heedful.runner.rollouts import Work

Resources = str | Mapping[str, object]
"""What each remote worker reserves: JSON text (`'{"CPU": 1}'`) or a mapping."""


@dataclass(frozen=True)
class BackendFlags:
    """The backend flags of one run as given (unparsed): each backend parses those it takes."""

    workers: int = 1
    address: str | None = None
    resources: Resources | None = None


class Backend(Protocol):
    """Where a run's episodes roll out (see the module docstring)."""

    @property
    def workers(self) -> int:
        """Worker processes (or actors) the backend runs the episodes on; 1: this process."""
        ...

    @property
    def on_this_machine(self) -> bool:
        """Whether every worker runs on this machine (its EGL devices are checked here, before the run starts)."""
        ...

    @property
    def in_this_process(self) -> bool:
        """Whether the agent the run built is the one that answers (a budget is enforced in one process only)."""
        ...

    def where(self) -> str:
        """Where the run ran, for its manifest: `local`, or `ray (ADDRESS)`."""
        ...

    def execute(self, work: Work) -> Generator[list[Record], None, None]:
        """Run `work`, yielding records in batches as they finish; closing the generator stops the workers."""
        ...

    def session(self) -> AbstractContextManager[None]:
        """A block several runs share one connection in (a sweep's cells on one Ray instance)."""
        ...


class BackendFactory(Protocol):
    """What the backend registry holds: builds a backend from the run's flags.

    Raises:
        ConfigError: a flag the backend does not take, or a malformed one.
        MissingDependencyError: the backend's optional dependency is not installed.
        RunError: the backend's cluster does not answer.
    """

    def __call__(self, flags: BackendFlags) -> Backend: ...


BUILTIN_BACKENDS = {
    "local": "heedful.runner.backends:LocalBackend.from_flags",
    "ray": "heedful.runner.ray_run:RayBackend.from_flags",
}
"""The built-in backends' factories, by `module:attr` (nothing is imported to list them)."""

BACKENDS: Registry[BackendFactory] = Registry(kind="backend", group="heedful.backends", builtins=BUILTIN_BACKENDS)


def make_backend(name: str, flags: BackendFlags | None = None) -> Backend:
    """The backend registered as `name`, built from `flags` (its own checks run here).

    Raises:
        UnknownNameError: no backend has that name (with a did-you-mean).
        ConfigError, MissingDependencyError, RunError: see `BackendFactory`.
    """
    return BACKENDS.get(name)(flags or BackendFlags())
