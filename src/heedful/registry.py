"""Name registries with lazy `module:attr` targets, entry-point discovery and did-you-mean misses."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from typing import Generic, TypeVar

from heedful.errors import UnknownNameError

T = TypeVar("T")


def suggest(name: str, choices: Iterable[str]) -> str:
    """Return ' (did you mean X?)' for a near miss, or ''."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Registry(Generic[T]):
    """Maps names to lazily imported objects.

    Built-ins are registered as `"package.module:attr"` strings so that listing names imports nothing.
    Third parties add entries through the entry-point group `group` in their package metadata.
    """

    def __init__(self, kind: str, group: str, builtins: dict[str, str]) -> None:
        self.kind = kind
        self.group = group
        self._targets: dict[str, str] = dict(builtins)
        self._discovered = False

    def register(self, name: str, target: str) -> None:
        """Register `target` ("module:attr") under `name`, replacing any earlier entry."""
        self._targets[name] = target

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        from importlib.metadata import entry_points  # only when a name is looked up: costly to import

        for ep in entry_points(group=self.group):
            self._targets.setdefault(ep.name, ep.value)

    def names(self) -> list[str]:
        self._discover()
        return sorted(self._targets)

    def get(self, name: str) -> T:
        """Import and return the object registered as `name`; raise UnknownNameError with a suggestion."""
        module_name, _, attr = self.target(name).partition(":")
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj  # type: ignore[return-value]

    def target(self, name: str) -> str:
        """The `"module:attr"` registered as `name` (what a spawned worker imports); raise UnknownNameError."""
        target = self._targets.get(name)
        if target is None:  # built-ins win over entry points, so only another name needs the (costly) discovery
            self._discover()
            target = self._targets.get(name)
        if target is None:
            raise UnknownNameError(
                f"unknown {self.kind} {name!r}{suggest(name, self._targets)}; "
                f"choose one of: {', '.join(sorted(self._targets))}"
            )
        return target
