"""The embedded backend: a GGUF model in an in-process llama.cpp server, reached over the same
OpenAI-compatible path as any external server.

The server starts on the first request (building the agent stays cheap) and stops when the backend is
closed, at garbage collection and at exit, also after Ctrl-C and in worker processes: each worker of a
`--workers N` run loads its own copy of the model and runs its own server threads.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from heedful.llm.client import LOCAL_PLACEHOLDER_KEY, OpenAIBackend
from heedful.llm.models import gguf_sha256, xllamacpp_version
from heedful.llm.request import ChatRequest, ChatResult
from heedful.llm.server import EmbeddedServer


class EmbeddedBackend:
    """A GGUF model served by an embedded llama.cpp server, called through `OpenAIBackend`."""

    kind = "embedded"

    def __init__(
        self,
        gguf: Path,
        *,
        timeout: float,
        model: str | None = None,
        threads: int | None = None,
        parallel: int = 1,
    ) -> None:
        self.gguf = gguf
        self.model = model or gguf.stem
        self.timeout = timeout
        self.server = EmbeddedServer(gguf, threads=threads, parallel=parallel)
        self._http: OpenAIBackend | None = None
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        """The model file's hash (not its path or port) and the llama.cpp build: part of the cache key."""
        return {
            "kind": self.kind,
            "model": self.model,
            "gguf_sha256": gguf_sha256(self.gguf),
            "xllamacpp": xllamacpp_version(),
            # Thread count and batching change llama.cpp's rounding, hence (rarely) a temperature-0 answer.
            "threads": self.server.threads,
            "parallel": self.server.parallel,
        }

    def send(self, request: ChatRequest) -> ChatResult:
        backend = self._backend()
        with self.server.request():
            return backend.send(request)

    def _backend(self) -> OpenAIBackend:
        with self._lock:
            if self._http is None or not self.server.running:
                url = self.server.start()
                self._http = OpenAIBackend(url, self.model, LOCAL_PLACEHOLDER_KEY, self.timeout, kind=self.kind)
            return self._http

    def close(self) -> None:
        """Stop the server (once idle). Requests still in flight finish first; later ones are refused."""
        with self._lock:
            self.server.close()
            # Not closed here: a thread may still be reading its answer; the client's sockets close when
            # the last reference goes.
            self._http = None
