"""Lazy imports of openpi-client (with an install hint) and JSON-safe copies of what servers send."""

from __future__ import annotations

import hashlib
import importlib
import json
from types import ModuleType
from typing import Any

import numpy as np

from heedful.errors import MissingDependencyError

INSTALL_HINT = (
    'pip install "heedful[remote]" && pip install --no-deps openpi-client '
    "(--no-deps: openpi-client 0.1.2 declares numpy<2 and dm-tree, which its client code does not use)"
)

EPISODE_KEY = "heedful/episode"
"""Observation key of the privileged episode description that heedful's own served agents ask for."""

NEEDS_KEY = "heedful/needs"
"""Metadata key in which a server lists the heedful-specific observation keys it needs."""


def openpi_module(name: str) -> ModuleType:
    """Import `openpi_client.<name>` (e.g. `msgpack_numpy`, `websocket_client_policy`)."""
    try:
        return importlib.import_module(f"openpi_client.{name}")
    except ImportError as exc:
        raise MissingDependencyError(f"remote policies need openpi-client and its transport: {INSTALL_HINT}") from exc


def packb(obj: Any) -> bytes:
    """openpi's msgpack encoding of `obj` (numpy arrays as {"__ndarray__", "data", "dtype", "shape"})."""
    data: bytes = openpi_module("msgpack_numpy").packb(obj)
    return data


def unpackb(data: bytes) -> Any:
    """Decode a message packed with openpi's msgpack encoding."""
    return openpi_module("msgpack_numpy").unpackb(data)


def jsonable(value: Any, max_items: int = 64) -> Any:
    """A JSON-safe copy of server metadata: arrays and numpy scalars become lists and numbers, bytes a
    short description, keys text; long arrays are summarized (shape and dtype) so a manifest stays small."""
    if isinstance(value, dict):
        return {str(k.decode() if isinstance(k, bytes) else k): jsonable(v, max_items) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, max_items) for v in value]
    if isinstance(value, np.ndarray):
        if value.size > max_items:
            return {"array": {"shape": list(value.shape), "dtype": value.dtype.str}}
        return jsonable(value.tolist(), max_items)
    if isinstance(value, np.generic):
        return jsonable(value.item(), max_items)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


METADATA_CHARS = 65_536
"""The most characters of a server's metadata (as JSON) a manifest keeps; a larger one keeps its sha256, its size
and its first keys (a 50,000-key metadata made a 3.2 MB manifest)."""


def metadata_summary(metadata: Any) -> tuple[Any, str]:
    """(what the manifest keeps of a server's metadata, the sha256 of all of it as canonical JSON).

    The digest names the policy behind a server: records refer to it, a resume and a pool compare it."""
    safe = jsonable(metadata)
    text = json.dumps(safe, sort_keys=True, separators=(",", ":"), default=str)
    digest = "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if len(text) <= METADATA_CHARS:
        return safe, digest
    keys = list(safe)[:20] if isinstance(safe, dict) else []
    return {"heedful/truncated": {"chars": len(text), "sha256": digest, "first_keys": keys}}, digest
