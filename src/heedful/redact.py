"""Secrets out of everything heedful stores or shows: the API keys it sent, and any credential header's value.

heedful never writes a key itself, but a server may echo it (`401: invalid key Bearer sk-...`) into an error that
would then reach every record, the manifest, the terminal and a published site. `register_secret` is called with each
key heedful sends (the language-model backend, the remote policy link); `redact` removes those keys and the value of
any `Authorization` / `api-key` header or `Bearer` token from a text. Records, manifests, the site's data and the
command line's error lines pass through it.
"""

from __future__ import annotations

import re
import threading
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 6
"""A shorter "key" (a placeholder for a local server such as "k") would redact ordinary words."""

_SECRETS: set[str] = set()
_LOCK = threading.Lock()
_HINT = re.compile(r"(?i)bearer|authorization|api[-_ ]?key|token")
# `Authorization: Bearer X`, `"api-key": "X"`, `X-Api-Key=X`, `api_key='X'`: the header's (or field's) value
_HEADER = re.compile(
    r"(?i)(\b(?:proxy-)?authorization|\bx?-?api[-_ ]?key|\baccess[-_]token)"
    r"(['\"]?\s*[:=]\s*['\"]?)((?:bearer|basic|api-key|token)\s+)?([^\s'\",;}\]]+)"
)
_BEARER = re.compile(r"(?i)\b(bearer|api-key)(\s+)([A-Za-z0-9._~+/=-]{6,})")


def register_secret(value: str | None) -> None:
    """Remember `value` (a key heedful sends) so that `redact` removes it from every text of this process."""
    if value and len(value) >= MIN_SECRET_CHARS:
        with _LOCK:
            _SECRETS.add(value)


def redact(text: str) -> str:
    """`text` without any registered secret and without the value of a credential header or `Bearer` token."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if _HINT.search(text) is None:
        return text
    text = _HEADER.sub(_keep_name, text)
    return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)


def has_secret(value: Any) -> bool:
    """Whether `redact_value` would change `value` (a cheap scan: most texts hold no credential word at all)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _HINT.search(item) is not None or any(secret in item for secret in _SECRETS):
                return redact(item) != item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def redact_value(value: Any) -> Any:
    """A JSON value with `redact` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_value(item) for item in value)
    return value


def _keep_name(match: re.Match[str]) -> str:
    if match.group(4) == REDACTED or match.group(4).startswith(REDACTED.rstrip("]")):
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{match.group(3) or ''}{REDACTED}"
