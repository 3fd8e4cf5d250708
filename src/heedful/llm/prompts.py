"""Prompt templates kept as files: `NAME.system.txt` and `NAME.user.txt` with `$field` placeholders.

The built-in templates live in `heedful/agents/prompts/`; an agent may read its own from another folder.
The server applies the model's chat template to the system and user messages.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from heedful.errors import ConfigError

BUILTIN_PROMPTS = "heedful.agents"


@dataclass(frozen=True)
class PromptTemplate:
    """A system message and a user-message template."""

    name: str
    system: str
    user: str

    @property
    def sha256(self) -> str:
        """Hash of both texts, stored in the run manifest so a prompt change is visible."""
        return hashlib.sha256(f"{self.system}\0{self.user}".encode()).hexdigest()

    def messages(self, **fields: str) -> tuple[tuple[str, str], ...]:
        """The (role, content) messages with `fields` filled in.

        Raises:
            ConfigError: the template names a field that was not given, or has a stray `$`.
        """
        try:
            user = string.Template(self.user).substitute(fields)
        except KeyError as err:
            raise ConfigError(
                f"prompt template {self.name}.user.txt uses ${err.args[0]}, which is not one of: {', '.join(fields)}"
            ) from err
        except ValueError as err:
            raise ConfigError(f"prompt template {self.name}.user.txt: {err} (write $$ for a literal $)") from err
        return (("system", self.system), ("user", user))


def load_prompt(name: str, folder: Path | str | None = None) -> PromptTemplate:
    """Read the template pair `name` from `folder`, or from the built-in prompts.

    Raises:
        ConfigError: a file of the pair is missing.
    """
    root = Path(folder) if folder is not None else Path(str(files(BUILTIN_PROMPTS) / "prompts"))
    texts = []
    for part in ("system", "user"):
        path = root / f"{name}.{part}.txt"
        try:
            texts.append(path.read_text(encoding="utf-8").rstrip())
        except OSError as err:
            raise ConfigError(
                f"cannot read prompt template {path}: {err}; a prompt needs {name}.system.txt and {name}.user.txt"
            ) from err
    return PromptTemplate(name=name, system=texts[0], user=texts[1])
