"""Argument parsing with one-line errors and did-you-mean suggestions."""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from heedful.errors import ConfigError
from heedful.registry import suggest


class CliUsageError(ConfigError):
    """A command-line usage problem (exit code 2)."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises one-line errors with suggestions instead of printing usage."""

    def error(self, message: str) -> NoReturn:
        match = re.search(r"unrecognized arguments: (\S+)", message)
        if match:
            option = match.group(1)
            options = [s for a in self._actions for s in a.option_strings]
            message = f"unknown option {option}{suggest(option, options)} (see `{self.prog} --help`)"
        choice = re.search(r"invalid choice: '([^']+)' \(choose from (.+)\)", message)
        if choice:
            picks = [c.strip(" '") for c in choice.group(2).split(",")]
            message = f"{message}{suggest(choice.group(1), picks)}"
        raise CliUsageError(f"{self.prog}: error: {message}")


def key_values(items: list[str] | None, what: str) -> dict[str, object]:
    """Parse KEY=VALUE pairs; values are read as JSON when they parse (numbers, true, lists), else text."""
    import json

    out: dict[str, object] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise CliUsageError(f"{what} must look like KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out
