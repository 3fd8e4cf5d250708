"""Several OpenAI-compatible servers serving one model, used as one backend (`--base-url A --base-url B`).

Each request goes to the server with the fewest requests in flight, and among those to the one sent the fewest so
far, so with `--concurrency N` the N requests in flight spread evenly over the servers. A chat request carries its whole
conversation, so any server can answer any request of an episode. A server that cannot be reached, times out or
answers with a server error leaves rotation for the rest of the run, and the request goes at once to the next
server: the episode does not notice. A request that the server refused as such (HTTP 400, a body that is not an
answer) is the request's failure, not the server's, and is raised as it is. With every server out of rotation the
request fails with each server's reason, as one server's failure does (retried with backoff by the engine, then
an interface error that `--resume` runs again).

The servers must serve the same model with the same weights: the cache key names the model and the pool, not the
server that answered, and records are equal only if every server answers a seeded request alike.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from heedful.errors import ConfigError
from heedful.llm.client import CallError, OpenAIBackend
from heedful.llm.request import ChatRequest, ChatResult


class ServerPoolBackend:
    """One `OpenAIBackend` per server; see the module.

    Args:
        base_urls: The servers' API roots, each once.
        model, api_key, timeout: As for `OpenAIBackend`, shared by every server.
    """

    kind = "openai"

    def __init__(self, base_urls: Sequence[str], model: str, api_key: str, timeout: float) -> None:
        if not base_urls or len(set(base_urls)) != len(base_urls):
            raise ConfigError(f"a server pool needs distinct --base-url values, got {list(base_urls)!r}")
        self.model = model
        self.members = [OpenAIBackend(url, model, api_key, timeout) for url in base_urls]
        self.in_flight = [0] * len(self.members)
        self.sent = [0] * len(self.members)
        self.answered = [0] * len(self.members)
        self.out_of_rotation: dict[str, str] = {}
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        """The cache key's part for the backend: the model and the pool (any of its servers may answer)."""
        return {"kind": self.kind, "base_url": " ".join(m.base_url or "" for m in self.members), "model": self.model}

    def send(self, request: ChatRequest) -> ChatResult:
        """Send `request` to the least busy server in rotation; a failing server leaves rotation and the next one
        is tried. Raises CallError when none is left (transient, with every server's reason)."""
        while True:
            index = self._checkout()
            if index is None:
                reasons = "; ".join(f"{url}: {why}" for url, why in self.out_of_rotation.items())
                raise CallError(f"every server of the pool is out of rotation ({reasons})", True)
            member = self.members[index]
            try:
                result = member.send(request)
            except CallError as exc:
                if not _server_failure(exc):
                    raise
                self._retire(index, exc.message)
                continue
            finally:
                with self._lock:
                    self.in_flight[index] -= 1
            with self._lock:
                self.answered[index] += 1
            return result

    def _checkout(self) -> int | None:
        with self._lock:
            live = [i for i, m in enumerate(self.members) if (m.base_url or "") not in self.out_of_rotation]
            if not live:
                return None
            index = min(live, key=lambda i: (self.in_flight[i], self.sent[i]))
            self.in_flight[index] += 1
            self.sent[index] += 1
            return index

    def _retire(self, index: int, reason: str) -> None:
        with self._lock:
            self.out_of_rotation.setdefault(self.members[index].base_url or "", reason)

    def describe(self) -> dict[str, Any]:
        """For the manifest: the servers, how many answers each gave, and those taken out of rotation (why)."""
        with self._lock:
            return {
                "servers": [m.base_url for m in self.members],
                "answered": list(self.answered),
                "out_of_rotation": dict(self.out_of_rotation),
            }

    def close(self) -> None:
        for member in self.members:
            member.close()


def _server_failure(exc: CallError) -> bool:
    """A failure of the server rather than of the request: no connection, no answer in time, HTTP 5xx or 429."""
    return exc.transient
