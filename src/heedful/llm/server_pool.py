"""Several OpenAI-compatible servers serving one model, used as one backend (`--base-url A --base-url B`).

Each request goes to the server with the fewest requests in flight, and among those to the one sent the fewest so
far, so with `--concurrency N` the N requests in flight spread evenly over the servers. A chat request carries its whole
conversation, so any server can answer any request of an episode. A server that cannot be reached, times out or
answers with a server error (5xx, 429) sits out a cool-down (COOL_DOWN_S, doubled after each further failure in a row,
at most MAX_COOL_DOWN_S) and the request goes at once to another server; with every server cooling down, the request
waits for the first to come back. Only PERSISTENT_FAILURES failures in a row take a server out of rotation for the
run, so a transient fault costs nothing and a pool is never less reliable than its best server. A request that the
server refused as such (HTTP 400, a body that is not an answer) is the request's failure, not the server's, and is
raised as it is. A request that found no server to answer it after ATTEMPTS_PER_SERVER tries per server fails with
each server's last reason, as one server's failure does (retried with backoff by the engine, then an interface error
that `--resume` runs again).

The servers must serve the same model with the same weights: the cache key names the model and the pool, not the
server that answered, and records are equal only if every server answers a seeded request alike. `check_models`
asks each server's `/v1/models` before the run and refuses a pool whose servers list different models.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from heedful.errors import ConfigError
from heedful.llm.client import CallError, OpenAIBackend
from heedful.llm.request import ChatRequest, ChatResult
from heedful.redact import redact

COOL_DOWN_S = 1.0
"""How long a server that failed once sits out; doubled after each further failure in a row."""
MAX_COOL_DOWN_S = 30.0
PERSISTENT_FAILURES = 5
"""Failures in a row (no answer between them) that take a server out of rotation for the rest of the run."""
ATTEMPTS_PER_SERVER = 2
"""Tries one request gets per server of the pool before it fails (the engine then retries it with backoff)."""
MODELS_TIMEOUT_S = 10.0
MODELS_REPLY_BYTES = 1_000_000


@dataclass
class ServerState:
    """One server's counts and health: answers, failures, failures in a row, cooling until, and out (why)."""

    answered: int = 0
    failed: int = 0
    in_a_row: int = 0
    cool_until: float = 0.0
    out: str | None = None
    last_error: str | None = None
    reasons: list[str] = field(default_factory=list)


class ServerPoolBackend:
    """One `OpenAIBackend` per server; see the module.

    Args:
        base_urls: The servers' API roots, each once.
        model, api_key, timeout: As for `OpenAIBackend`, shared by every server.
        cool_down_s: The first cool-down of a server that failed (COOL_DOWN_S).
    """

    kind = "openai"

    def __init__(
        self, base_urls: Sequence[str], model: str, api_key: str, timeout: float, cool_down_s: float = COOL_DOWN_S
    ) -> None:
        if not base_urls or len(set(base_urls)) != len(base_urls):
            raise ConfigError(f"a server pool needs distinct --base-url values, got {list(base_urls)!r}")
        self.model = model
        self.cool_down_s = cool_down_s
        self.members = [OpenAIBackend(url, model, api_key, timeout) for url in base_urls]
        self.in_flight = [0] * len(self.members)
        self.sent = [0] * len(self.members)
        self.states = [ServerState() for _ in self.members]
        self._local = threading.local()
        self._lock = threading.Lock()

    @property
    def answered(self) -> list[int]:
        return [state.answered for state in self.states]

    @property
    def out_of_rotation(self) -> dict[str, str]:
        """The servers taken out for the run, with the last reason."""
        return {self._url(i): state.out for i, state in enumerate(self.states) if state.out is not None}

    def identity(self) -> dict[str, Any]:
        """The cache key's part for the backend: the model and the pool (any of its servers may answer)."""
        return {"kind": self.kind, "base_url": " ".join(m.base_url or "" for m in self.members), "model": self.model}

    @property
    def last_server(self) -> str | None:
        """The server that answered this thread's last request (a record names it)."""
        server: str | None = getattr(self._local, "server", None)
        return server

    def send(self, request: ChatRequest) -> ChatResult:
        """Send `request` to the least busy server in rotation; a failing server cools down and another one is
        tried. Raises CallError when no server answered (transient, with every server's reason)."""
        attempts = 0
        while attempts < ATTEMPTS_PER_SERVER * len(self.members):
            index, wait = self._checkout()
            if index is None:
                if wait is None:
                    break  # every server is out for the run
                time.sleep(wait)
                continue
            attempts += 1
            try:
                result = self.members[index].send(request)
            except CallError as exc:
                if not _server_failure(exc):
                    raise
                self._failed(index, exc)
                continue
            finally:
                with self._lock:
                    self.in_flight[index] -= 1
            with self._lock:
                state = self.states[index]
                state.answered += 1
                state.in_a_row = 0
                state.cool_until = 0.0
            self._local.server = self._url(index)
            return result
        raise CallError(f"no server of the pool answered ({self._reasons()})", True)

    def _checkout(self) -> tuple[int | None, float | None]:
        """(the server to send to, None) or (None, seconds until one cools down) or (None, None): all are out."""
        with self._lock:
            now = time.monotonic()
            alive = [i for i, state in enumerate(self.states) if state.out is None]
            if not alive:
                return None, None
            ready = [i for i in alive if self.states[i].cool_until <= now]
            if not ready:
                return None, min(self.states[i].cool_until for i in alive) - now
            index = min(ready, key=lambda i: (self.in_flight[i], self.sent[i]))
            self.in_flight[index] += 1
            self.sent[index] += 1
            return index, None

    def _failed(self, index: int, exc: CallError) -> None:
        with self._lock:
            state = self.states[index]
            state.failed += 1
            state.in_a_row += 1
            state.last_error = exc.message
            if state.in_a_row >= PERSISTENT_FAILURES:
                state.out = f"{state.in_a_row} failures in a row; last: {exc.message}"
                return
            pause = min(MAX_COOL_DOWN_S, self.cool_down_s * 2 ** (state.in_a_row - 1))
            state.cool_until = time.monotonic() + max(pause, exc.retry_after or 0.0)

    def _url(self, index: int) -> str:
        return self.members[index].base_url or ""

    def _reasons(self) -> str:
        with self._lock:
            return "; ".join(
                f"{self._url(i)}: {state.out or state.last_error}"
                for i, state in enumerate(self.states)
                if state.out or state.last_error
            )

    def describe(self) -> dict[str, Any]:
        """For the manifest: each server's answered / failed counts, and the ones out of rotation (why)."""
        with self._lock:
            return {
                "servers": [m.base_url for m in self.members],
                "answered": [state.answered for state in self.states],
                "failed": [state.failed for state in self.states],
                "out_of_rotation": {
                    self._url(i): state.out for i, state in enumerate(self.states) if state.out is not None
                },
            }

    def server_counts(self) -> dict[str, dict[str, Any]]:
        """Per server: answered, failed, and out_of_rotation (the reason, or None)."""
        with self._lock:
            return {
                self._url(i): {"answered": state.answered, "failed": state.failed, "out_of_rotation": state.out}
                for i, state in enumerate(self.states)
            }

    def check_models(self) -> None:
        """Ask every server's `/v1/models`; refuse a pool whose servers list different models (another model behind
        the same name would answer part of the run). A server without the endpoint is not judged.

        Raises:
            ConfigError: two servers list different models, or a server does not list the model.
        """
        listed: dict[str, list[str]] = {}
        for member in self.members:
            models = _list_models(member.base_url or "", member._api_key)
            if models is not None:
                listed[member.base_url or ""] = models
        missing = [url for url, models in listed.items() if not any(_names(model, self.model) for model in models)]
        if missing:
            raise ConfigError(
                f"--model {self.model!r} is not among the models of {', '.join(missing)} "
                f"({'; '.join(f'{url}: {listed[url]}' for url in missing)}); every server of a pool must serve it"
            )
        if len({tuple(models) for models in listed.values()}) > 1:
            described = "; ".join(f"{url}: {models}" for url, models in listed.items())
            raise ConfigError(
                f"the servers of the pool serve different models ({described}): the answers would come from "
                "different models under one name; give servers that serve the same model"
            )

    def close(self) -> None:
        for member in self.members:
            member.close()


def _names(listed: str, model: str) -> bool:
    """Whether a listed model id names `model`: the same id, or a model file whose name (with or without its
    extension) is `model` (llama.cpp's server lists the path of the GGUF file it serves and answers any name)."""
    if listed == model:
        return True
    name = listed.replace("\\", "/").rsplit("/", 1)[-1]
    return name == model or name.rsplit(".", 1)[0] == model


def _list_models(base_url: str, api_key: str) -> list[str] | None:
    """The sorted model ids `GET base_url/models` lists, or None when the server does not answer it."""
    request = urllib.request.Request(base_url.rstrip("/") + "/models", headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=MODELS_TIMEOUT_S) as reply:
            data = json.loads(reply.read(MODELS_REPLY_BYTES))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    return sorted(redact(str(e.get("id"))) for e in entries if isinstance(e, dict) and e.get("id") is not None)


def _server_failure(exc: CallError) -> bool:
    """A failure of the server rather than of the request: no connection, no answer in time, HTTP 5xx or 429."""
    return exc.transient
