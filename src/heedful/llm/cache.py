"""The response cache: one SQLite file mapping a request's key to the server's answer.

Keys come from `heedful.llm.request.cache_key`, which covers the whole request and the backend's identity.
Only answers are stored (never an API key, never a failure). Several threads and processes may share one
file: SQLite in WAL mode serializes the writers.

An entry is served only when it verifies: its stored answer carries the key (the hash of the whole request) it was
stored under, and that must be the key asked for, so two swapped answers are never served for each other's
prompts. An entry that does not verify (swapped, garbage, the wrong schema) is deleted with a warning and the model
is asked again; a cache file that is not a database (truncated, overwritten) is set aside beside it
(`llm-cache.sqlite.damaged-TIME`) and a new one started. A guard against accidents and casual edits, not forgers.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

from heedful.cache_home import cache_home
from heedful.errors import ConfigError
from heedful.llm.request import ChatResult

CACHE_FILE = "llm-cache.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    result TEXT NOT NULL,
    created TEXT NOT NULL DEFAULT (datetime('now'))
)
"""


class _DamagedFileError(Exception):
    """The cache file is not a database, or a damaged one."""


REQUEST_FIELD = "request_sha256"
"""Inside a stored answer: the key (the sha256 of the whole request) it answers."""


def _verified(text: str, key: str) -> ChatResult:
    """The answer stored as `text`, if it answers the request `key` names.

    Raises:
        ValueError: not JSON, the wrong schema, or the answer to another request.
    """
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get(REQUEST_FIELD) != key:
        raise ValueError(f"it answers request {str(data.get(REQUEST_FIELD))[:12]}..., not this one")
    if not isinstance(data.get("text"), str) or not isinstance(data.get("finish_reason"), str | None):
        raise ValueError("text or finish_reason of the wrong type")
    return ChatResult.from_json(text)


def default_cache_path() -> Path:
    """`$HEEDFUL_CACHE_DIR/llm-cache.sqlite`, else `$XDG_CACHE_HOME/heedful/...`, else `~/.cache/heedful/...`."""
    return cache_home() / CACHE_FILE


class ResponseCache:
    """A thread-safe SQLite cache of chat results. The file is opened on first use."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self._conn = self._open()
            except _DamagedFileError as err:  # not a database (truncated, overwritten): set aside, start anew
                self._set_aside_file(err)
                self._conn = self._open()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            with conn:
                conn.execute(_SCHEMA)
                conn.execute("SELECT key, result FROM responses LIMIT 1").fetchall()  # the wrong table shape fails here
        except sqlite3.DatabaseError as err:
            if not isinstance(err, sqlite3.OperationalError):  # locked, busy, no such column: not damage
                raise _DamagedFileError(str(err)) from err
            raise ConfigError(
                f"cannot open the response cache {self.path}: {err}; pass --cache PATH or --no-cache"
            ) from err
        except (OSError, sqlite3.Error) as err:
            raise ConfigError(
                f"cannot open the response cache {self.path}: {err}; pass --cache PATH or --no-cache"
            ) from err
        return conn

    def _set_aside_file(self, err: Exception) -> None:
        aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        try:
            self.path.replace(aside)
        except OSError as move:
            raise ConfigError(
                f"the response cache {self.path} is damaged ({err}) and cannot be moved aside ({move}); "
                "delete it, or pass --cache PATH or --no-cache"
            ) from err
        for suffix in ("-wal", "-shm"):
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        print(
            f"heedful: the response cache {self.path} is damaged ({err}); set aside as {aside.name}, "
            "starting a new one",
            file=sys.stderr,
        )

    def get(self, key: str) -> ChatResult | None:
        """The cached result of `key`, or None (also for an entry that does not verify: it is deleted, with a
        warning, and the caller asks the model again)."""
        with self._lock:
            conn = self._connection()
            try:
                row = conn.execute("SELECT result FROM responses WHERE key = ?", (key,)).fetchone()
            except sqlite3.DatabaseError as err:  # damaged pages found on reading
                if isinstance(err, sqlite3.OperationalError):
                    raise
                conn.close()
                self._conn = None
                self._set_aside_file(err)
                return None
            if row is None:
                return None
            try:
                return _verified(row[0], key)
            except (ValueError, KeyError, TypeError) as err:
                with conn:
                    conn.execute("DELETE FROM responses WHERE key = ?", (key,))
                print(
                    f"heedful: response cache entry {key[:12]}... of {self.path} does not verify ({err}); "
                    "deleted, asking the model again",
                    file=sys.stderr,
                )
                return None

    def put(self, key: str, model: str, result: ChatResult) -> None:
        """Store `result` under `key`, with the key inside the stored answer (an existing entry is kept: equal
        requests give equal answers)."""
        entry = json.dumps({**json.loads(result.to_json()), REQUEST_FIELD: key}, sort_keys=True)
        with self._lock:
            conn = self._connection()
            with conn:
                conn.execute(
                    "INSERT OR IGNORE INTO responses (key, model, result) VALUES (?, ?, ?)", (key, model, entry)
                )

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(count)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
