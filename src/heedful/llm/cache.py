"""The response cache: one SQLite file mapping a request's key to the server's answer.

Keys come from `heedful.llm.request.cache_key`, which covers the whole request and the backend's identity.
Only answers are stored (never an API key, never a failure). Several threads and processes may share one
file: SQLite in WAL mode serializes the writers.
"""

from __future__ import annotations

import sqlite3
import threading
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
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                with conn:
                    conn.execute(_SCHEMA)
            except (OSError, sqlite3.Error) as err:
                raise ConfigError(
                    f"cannot open the response cache {self.path}: {err}; pass --cache PATH or --no-cache"
                ) from err
            self._conn = conn
        return self._conn

    def get(self, key: str) -> ChatResult | None:
        """The cached result of `key`, or None."""
        with self._lock:
            row = self._connection().execute("SELECT result FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else ChatResult.from_json(row[0])

    def put(self, key: str, model: str, result: ChatResult) -> None:
        """Store `result` under `key` (an existing entry is kept: equal requests give equal answers)."""
        with self._lock:
            conn = self._connection()
            with conn:
                conn.execute(
                    "INSERT OR IGNORE INTO responses (key, model, result) VALUES (?, ?, ?)",
                    (key, model, result.to_json()),
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
