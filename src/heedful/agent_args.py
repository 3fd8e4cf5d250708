"""Checks an agent's constructor arguments (`--agent-arg KEY=VALUE`, a sweep file's `args`) against its class
without building it: the name must be a parameter, the value must pass the parameter's type hint. Below the agents
and the language-model sessions, which both check with it."""

from __future__ import annotations

import inspect
from typing import Any

from heedful.errors import ConfigError
from heedful.registry import suggest


def check_agent_args(name: str, cls: Any, args: dict[str, Any]) -> None:
    """Raise ConfigError for an argument `cls` does not take, or a value its type hint refuses (a list where a
    number belongs: `--agent-arg temperature=[1]`), without building the agent."""
    params = inspect.signature(cls).parameters
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if not accepts_any:
        for key in args:
            if key not in params:
                raise ConfigError(
                    f"agent {name!r} has no argument {key!r}{suggest(key, params)}; "
                    f"it accepts: {', '.join(params) or 'no arguments'}"
                )
    hints = _init_hints(cls)
    for key, value in args.items():
        if key in hints and key in params and _json_like(value):  # a Path or an object from Python: the agent's
            _check_value(name, key, hints[key], value)
    forwarded = {k: v for k, v in args.items() if k not in params}
    check_kwargs = getattr(cls, "check_kwargs", None)  # an agent passing **kwargs on (a model session) checks them
    if accepts_any and forwarded and callable(check_kwargs):
        check_kwargs(name, forwarded)


def _json_like(value: Any) -> bool:
    """A value as `--agent-arg` or a sweep file gives it (JSON); values built in Python are left to the agent."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list):
        return all(_json_like(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v) for k, v in value.items())
    return False


def _init_hints(cls: Any) -> dict[str, Any]:
    import typing

    try:
        return typing.get_type_hints(cls.__init__)
    except Exception:  # a hint that does not resolve here: the agent checks its own arguments
        return {}


def _check_value(name: str, key: str, hint: Any, value: Any) -> None:
    from pydantic import TypeAdapter, ValidationError

    try:
        adapter: TypeAdapter[Any] = TypeAdapter(hint)
    except Exception:  # a type pydantic cannot check (a client object): left to the agent
        return
    try:
        adapter.validate_python(value)
    except ValidationError as err:
        first = err.errors()[0]["msg"] if err.errors() else str(err)
        raise ConfigError(
            f"agent {name!r} argument {key}={value!r} is not a valid {getattr(hint, '__name__', hint)}: {first}"
        ) from None
