"""An agent's arguments as `heedful list SUITE` shows them: name, type, default and meaning.

Name, type and default come from the class's signature; the meaning from its docstring's `Args:` section
(Google style, `name: text` with indented continuation lines), else from a sentence of the docstring that
names the argument. A `**session` argument (the language-model agents) points to the language-model flags.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    default: str
    meaning: str

    def line(self) -> str:
        typed = f"{self.name}: {self.type}" if self.type else self.name
        return f"{typed} = {self.default}" + (f"  {self.meaning}" if self.meaning else "")


def agent_arguments(cls: Any) -> list[Argument]:
    """The keyword arguments of agent class `cls` (see the module docstring)."""
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):  # a class without an inspectable signature
        return []
    meanings = _documented(inspect.getdoc(cls) or "")
    found = []
    for param in params:
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            text = meanings.get(param.name) or "the language-model options (flags under heedful run SUITE --help)"
            found.append(Argument(f"**{param.name}", "", "...", text))
            continue
        default = "(required)" if param.default is inspect.Parameter.empty else repr(param.default)
        kind = "" if param.annotation is inspect.Parameter.empty else _type_name(param.annotation)
        meaning = meanings.get(param.name) or _mentioned(inspect.getdoc(cls) or "", param.name)
        found.append(Argument(param.name, kind, default, meaning))
    return found


def _mentioned(doc: str, name: str) -> str:
    """The docstring's first sentence that names `name` (as `name=` or in backquotes), else ""."""
    text = " ".join(doc.split())
    for sentence in re.split(r"(?<=[.;])\s+", text):
        if f"{name}=" in sentence or f"`{name}" in sentence:
            return sentence
    return ""


def _type_name(annotation: Any) -> str:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    return str(text).replace("typing.", "")


def _documented(doc: str) -> dict[str, str]:
    """`name -> meaning` from an `Args:` section."""
    meanings: dict[str, str] = {}
    lines = doc.splitlines()
    if "Args:" not in [line.strip() for line in lines]:
        return meanings
    start = [line.strip() for line in lines].index("Args:") + 1
    current = None
    for line in lines[start:]:
        if not line.strip():
            break
        match = re.match(r"^\s{2,8}(\*{0,2}\w+)(?: \([^)]*\))?:\s*(.*)$", line)
        if match and (current is None or len(line) - len(line.lstrip()) <= 4):
            current = match.group(1).lstrip("*")
            meanings[current] = match.group(2).strip()
        elif current is not None:
            meanings[current] += " " + line.strip()
    return meanings
