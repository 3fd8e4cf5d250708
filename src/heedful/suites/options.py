"""Run options: each suite declares its own as a pydantic model, and everything else is derived from it.

The model is the one list of a suite's run options. The command line turns its fields into flags of
`heedful run SUITE` (`heedful.cli.suite_flags`), `check_options` validates a run's options against it, and
`heedful list SUITE` prints it. A run stores only the options that were given (the manifest and the records
stay as small as the command), so a field's default here is documentation and the suite's code applies it.

How a field becomes a flag is said in `cli_flag(...)`, stored in the field's JSON-schema extras, so that the
suites do not import the command line.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from heedful.errors import ConfigError
from heedful.registry import suggest


class RunOptions(BaseModel):
    """Base of a suite's run options: unknown keys are errors, values are checked by type."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def cli_flag(
    *,
    flag: str | None = None,
    hidden: bool = False,
    group: str | None = None,
    out_subdir: str | None = None,
    metavar: str | None = None,
) -> dict[str, Any]:
    """How a run-option field appears on the command line (pass as `json_schema_extra`).

    flag: the option string (default `--field-name`).
    hidden: no flag; the suite sets the option itself (e.g. decisions' `image_root`).
    group: fields given together through one repeatable `--GROUP KEY=VALUE` flag (household `--noise`).
    out_subdir: a switch that sets the option to this directory inside the run directory (tabletop `--video`).
    """
    spec = {"flag": flag, "hidden": hidden, "group": group, "out_subdir": out_subdir, "metavar": metavar}
    return {"cli": {key: value for key, value in spec.items() if value not in (None, False)}}


def option_names(model: type[RunOptions]) -> list[str]:
    return list(model.model_fields)


def check_unknown(suite: str, model: type[RunOptions], options: dict[str, Any]) -> None:
    """Raise ConfigError naming the first option the suite does not know, with a did-you-mean."""
    names = option_names(model)
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise ConfigError(
            f"{suite} has no run option {unknown[0]!r}{suggest(unknown[0], names)}; options: {', '.join(names)}"
        )


def validate(suite: str, model: type[RunOptions], options: dict[str, Any]) -> RunOptions:
    """The options as the suite's model; ConfigError naming the option and what it must be.

    The built-in models use strict integer and boolean fields: a count is not coerced from `"3"` nor a switch
    from `"yes"`. The run stores the options as given (not the model's coercions), so a field that pydantic
    would coerce should be strict.
    """
    check_unknown(suite, model, options)
    try:
        return model.model_validate(options)
    except ValidationError as exc:
        error = exc.errors()[0]
        # union members name themselves in the location (scene.list[literal[1,2,3,4]].0): keep the field path
        where = ".".join(str(p) for p in error["loc"] if "[" not in str(p) and "literal" not in str(p)) or "options"
        message = str(error["msg"]).removeprefix("Value error, ")
        raise ConfigError(
            f"{suite} run option {where}: {message}, got {error.get('input')!r} (see `heedful list {suite}`)"
        ) from None


def describe(model: type[RunOptions]) -> dict[str, str]:
    """Option name -> its description, for `heedful list SUITE`."""
    return {name: field.description or "" for name, field in model.model_fields.items()}
