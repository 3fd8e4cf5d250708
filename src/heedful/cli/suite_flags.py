"""A suite's run options as flags of `heedful run SUITE`, derived from its pydantic model.

A field becomes `--field-name` (or the flag its `cli_flag` names): a bool a switch, a Literal a choice, a list
a repeatable choice, an int or float a typed value. Fields of one `group` share a repeatable `--GROUP KEY=VALUE`
flag; an `out_subdir` field is a switch that points the option into the run directory. Only options given on
the command line enter the run's options (and so its manifest), as they were before the models existed.
"""

from __future__ import annotations

import argparse
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic.fields import FieldInfo

from heedful.cli.parser import CliUsageError, key_values
from heedful.errors import ConfigError
from heedful.registry import suggest
from heedful.suites.options import RunOptions


@dataclass(frozen=True)
class _Shape:
    """What argparse needs to know about a field's type."""

    kind: str  # "switch", "value", "repeat"
    type: Any = str
    choices: tuple[Any, ...] | None = None


def _members(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _base(annotation: Any) -> Any:
    """The type under Annotated[...]."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _shape(field: FieldInfo) -> _Shape:
    members = [_base(m) for m in _members(field.annotation)]
    lists = [m for m in members if typing.get_origin(m) is list]
    inner = _base(typing.get_args(lists[0])[0]) if lists else members[0]
    choices = tuple(typing.get_args(inner)) if typing.get_origin(inner) is Literal else None
    value_type = type(choices[0]) if choices else inner
    if lists:
        return _Shape("repeat", value_type, choices)
    if value_type is bool:
        return _Shape("switch")
    return _Shape("value", value_type if value_type in (int, float) else str, choices)


def _cli(field: FieldInfo) -> dict[str, Any]:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    spec = extra.get("cli", {})
    return dict(spec) if isinstance(spec, dict) else {}


def _flag(name: str, spec: dict[str, Any]) -> str:
    return str(spec.get("flag") or "--" + name.replace("_", "-"))


def _flags_of(model: type[RunOptions]) -> tuple[list[tuple[str, FieldInfo, dict[str, Any]]], dict[str, list[str]]]:
    """The fields with a flag of their own (name, field, cli spec), and the fields of each `--GROUP` flag."""
    singles: list[tuple[str, FieldInfo, dict[str, Any]]] = []
    groups: dict[str, list[str]] = {}
    for name, field in model.model_fields.items():
        spec = _cli(field)
        if "group" in spec:
            groups.setdefault(spec["group"], []).append(name)
        elif not spec.get("hidden"):
            singles.append((name, field, spec))
    return singles, groups


def add_suite_flags(parser: argparse.ArgumentParser, model: type[RunOptions], suite: str) -> None:
    """Add one flag per visible field of `model` (and one per group) to `parser`, in a group of their own.

    Raises:
        ConfigError: a field whose flag clashes with one every run has (`--seed`, `--limit`, ...), or a switch
            whose default is True (a switch can only turn an option on).
    """
    try:
        _add_suite_flags(parser, model, suite)
    except argparse.ArgumentError as exc:
        raise ConfigError(
            f"suite {suite}: a run option's flag clashes with another flag ({exc}); rename the field or give it "
            "another flag with cli_flag(flag=...)"
        ) from None


def _add_suite_flags(parser: argparse.ArgumentParser, model: type[RunOptions], suite: str) -> None:
    section = parser.add_argument_group(f"{suite} run options")
    singles, groups = _flags_of(model)
    for name, field, spec in singles:
        help_text = field.description or name
        # defaults are written into the help here (the formatter would print argparse's None)
        flag: dict[str, Any] = {"dest": f"option_{name}", "default": argparse.SUPPRESS}
        shape = _shape(field)
        if shape.kind == "switch" and field.default is not False:
            raise ConfigError(
                f"suite {suite}: run option {name} is a switch with default {field.default!r}; a switch can only "
                "turn an option on, so make its default False (e.g. no_" + name + ")"
            )
        if shape.kind == "switch" or "out_subdir" in spec:
            section.add_argument(_flag(name, spec), action="store_true", help=help_text, **flag)
        elif shape.kind == "repeat":
            section.add_argument(
                _flag(name, spec), action="append", type=shape.type, choices=shape.choices, help=help_text, **flag
            )
        else:
            default = "" if field.default is None else f" (default {field.default})"
            section.add_argument(
                _flag(name, spec),
                type=shape.type,
                choices=shape.choices,
                metavar=spec.get("metavar") or (None if shape.choices else "N" if shape.type is int else "VALUE"),
                help=help_text + default,
                **flag,
            )
    for group, names in groups.items():
        described = "; ".join(f"{n}: {model.model_fields[n].description}" for n in names)
        section.add_argument(
            f"--{group}",
            dest=f"group_{group}",
            action="append",
            default=argparse.SUPPRESS,
            metavar="KEY=VALUE",
            help=f"repeatable; keys {', '.join(names)} ({described})",
        )


def suite_options(args: argparse.Namespace, model: type[RunOptions], out: Path) -> dict[str, Any]:
    """The run options the command line gave (a switch only when it is on)."""
    options: dict[str, Any] = {}
    singles, groups = _flags_of(model)
    for name, _field, spec in singles:
        value = getattr(args, f"option_{name}", None)
        if value is None or value is False:
            continue
        if "out_subdir" in spec:
            value = str(out / spec["out_subdir"])
        elif isinstance(value, list):
            value = sorted(set(value))
        options[name] = value  # what was given, also when it equals the default (a resume compares them)
    for group, names in groups.items():
        given = key_values(getattr(args, f"group_{group}", None), f"--{group}")
        for key, value in given.items():
            if key not in names:
                raise CliUsageError(
                    f"--{group} has no key {key!r}{suggest(key, names)}; keys: {', '.join(names)} "
                    f"(e.g. --{group} {names[0]}=0.2)"
                )
            options[key] = value
    return options
