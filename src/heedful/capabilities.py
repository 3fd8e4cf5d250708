"""What an agent declares besides answering, read in one place.

Agents are plain classes; what the runner, the backends and the rollouts need to know about one beyond its
answers is declared as optional class attributes and methods, and read here only, by `capabilities(agent)`
(works on an agent class too). Nothing else in the package probes agents attribute by attribute.

Declared attributes: `privileged` (the rollout hands it the ground truth: the decisions constraint set, the
tabletop task, layout and trial, the household live state; every suite hands it to no other agent, and the run's
manifest and every report mark such an agent as "privileged: not a language agent"), `concurrency` (rollouts in
flight), `has_budget` (it enforces a cost budget in its own process, so runs use one worker), `session_args`
(argument names a resume may change), `cameras` (the images a controller reads), `image_size` (the square size
a controller's images are rendered at, when not the suite's own), `object_state` (a controller reads every
object's pose and attributes, as LIBERO's `obs/object`). Declared methods: `requirements(agent_args)` (the
optional modules it imports, heedful.extras; checked before a run writes anything), `fit`
(trains on the suite's training episodes), `check_training`, `cannot_read`, `charge_previous_usage`,
`begin_trial` / `trial_report` / `predict_batch` (controllers; `predict_batch` answers many observations in one
call, see `heedful.runner.lockstep`), `describe`, `close`, `server_counts` (a pool of servers: each one's
answered / failed / out-of-rotation counts, for the manifest). The kind comes from the answering method:
`predict` (a controller, closed loop over actions), `act` (a planner, one call at a time) or `decide` (one
decision).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from heedful.errors import ConfigError, UnknownDeclarationError

if TYPE_CHECKING:  # for annotations only: this module imports no other heedful layer
    from heedful.requirements import Requirement

AgentKind = Literal["controller", "planner", "decision", "unknown"]

AGENT_KINDS: tuple[AgentKind, ...] = ("decision", "planner", "controller")
"""The kinds of agent a suite may run (`Suite.agent_kinds`), listed here only."""


def _declared(agent: object, name: str, default: Any) -> Any:
    """A declared attribute; on an agent class, a property (set per instance) reads as the default."""
    value = getattr(agent, name, default)
    return default if isinstance(value, property) else value


def _method(agent: object, name: str) -> Callable[..., Any] | None:
    found = getattr(agent, name, None)
    return found if callable(found) else None


@dataclass(frozen=True)
class Capabilities:
    """An agent's declarations (see the module docstring); absent methods are None."""

    name: str
    kind: AgentKind
    privileged: bool
    concurrency: int
    has_budget: bool
    session_args: frozenset[str]
    cameras: tuple[str, ...] | None
    image_size: int | None
    object_state: bool
    requirements: Callable[[dict[str, Any]], tuple[Requirement, ...]] | None
    fit: Callable[[Sequence[Any]], None] | None
    check_training: Callable[[Sequence[Any], Sequence[Any]], None] | None
    cannot_read: Callable[[str, dict[str, Any]], str | None] | None
    charge_previous_usage: Callable[[dict[str, int]], None] | None
    begin_trial: Callable[[Any, int], None] | None
    trial_report: Callable[[], tuple[dict[str, Any], dict[str, float]]] | None
    predict_batch: Callable[[Sequence[dict[str, Any]]], Sequence[Any]] | None
    describe: Callable[[], dict[str, Any]] | None
    close: Callable[[], None] | None
    server_counts: Callable[[], dict[str, dict[str, Any]]] | None = None

    @property
    def fittable(self) -> bool:
        return self.fit is not None

    def required(self, agent_args: dict[str, Any]) -> tuple[Requirement, ...]:
        """The optional modules the agent built with `agent_args` imports (none declared: none)."""
        return tuple(self.requirements(dict(agent_args))) if self.requirements is not None else ()

    def description(self) -> dict[str, Any]:
        """Metadata for the run manifest: the agent's `describe()`, or its name."""
        return dict(self.describe()) if self.describe is not None else {"name": self.name}


ANSWERING = ("predict", "act", "decide")
"""The methods that give an agent its kind."""


def declarations() -> frozenset[str]:
    """Every name `capabilities` reads from an agent: its declarations, its answering methods and `name`."""
    return frozenset({f.name for f in fields(Capabilities)} - {"kind"}) | set(ANSWERING)


@functools.cache
def _check_declarations(cls: type) -> None:
    # once per class: a public class attribute that is not a declaration but close to one is a misspelling
    known = declarations()
    for klass in cls.__mro__[:-1]:  # object's own names are no declarations
        for attribute in vars(klass):
            if attribute.startswith("_") or attribute in known:
                continue
            close = difflib.get_close_matches(attribute, known, n=1, cutoff=0.85)
            if close:
                raise UnknownDeclarationError(
                    f"agent class {cls.__name__} declares {attribute!r}, which heedful does not read "
                    f"(did you mean {close[0]!r}?); rename it, or give it a name further from the declarations "
                    "of heedful.capabilities"
                )


def capabilities(agent: object) -> Capabilities:
    """Read an agent's (or agent class's) declarations once.

    Raises:
        UnknownDeclarationError: the agent's class declares a near miss of a declaration (`concurency = 4`).
        ConfigError: `concurrency` is not a positive integer.
    """
    _check_declarations(agent if isinstance(agent, type) else type(agent))
    concurrency = _declared(agent, "concurrency", 1)
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise ConfigError(f"agent concurrency must be a positive integer, got {concurrency!r}")
    kind: AgentKind = (
        "controller"
        if _method(agent, "predict")
        else "planner"
        if _method(agent, "act")
        else "decision"
        if _method(agent, "decide")
        else "unknown"
    )
    cameras = getattr(agent, "cameras", None)
    image_size = _declared(agent, "image_size", None)
    if image_size is not None and (
        not isinstance(image_size, int) or isinstance(image_size, bool) or not 16 <= image_size <= 2048
    ):
        raise ConfigError(f"agent image_size must be an integer from 16 to 2048 pixels, got {image_size!r}")
    return Capabilities(
        name=str(getattr(agent, "name", getattr(agent, "__name__", type(agent).__name__))),
        kind=kind,
        privileged=bool(_declared(agent, "privileged", False)),
        concurrency=concurrency,
        has_budget=bool(_declared(agent, "has_budget", False)),
        session_args=frozenset(getattr(agent, "session_args", ())),
        cameras=None if cameras is None else tuple(cameras),
        image_size=image_size,
        object_state=bool(_declared(agent, "object_state", False)),
        requirements=_method(agent, "requirements"),
        fit=_method(agent, "fit"),
        check_training=_method(agent, "check_training"),
        cannot_read=_method(agent, "cannot_read"),
        charge_previous_usage=_method(agent, "charge_previous_usage"),
        begin_trial=_method(agent, "begin_trial"),
        trial_report=_method(agent, "trial_report"),
        predict_batch=_method(agent, "predict_batch"),
        describe=_method(agent, "describe"),
        close=_method(agent, "close"),
        server_counts=_method(agent, "server_counts"),
    )
