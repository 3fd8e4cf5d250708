"""A policy server speaking openpi's websocket protocol, for any object with `infer(obs) -> dict`.

openpi's own server lives in the `openpi` package (with JAX and the models), which is not on PyPI, so this
one is ours; on the wire it does what openpi's `WebsocketPolicyServer` does:

- on connect it sends the metadata dict (msgpack via `openpi_client.msgpack_numpy`);
- each binary message is an observation dict; the reply is the policy's dict plus `server_timing`
  (`infer_ms`, and `prev_total_ms` of the previous request from receipt to sent reply);
- when the policy raises, it sends the traceback as a text frame, then closes with code 1011;
- `GET /healthz` answers 200 OK.

It uses websockets' threaded server, so each connection has its own thread (the policy must be thread-safe).
"""

from __future__ import annotations

import http
import logging
import threading
import time
import traceback
from typing import Any, Protocol

from heedful.errors import ConfigError
from heedful.remote.wire import packb, unpackb

logger = logging.getLogger(__name__)

ERROR_CLOSE_REASON = "Internal server error. Traceback included in previous frame."


class InferPolicy(Protocol):
    """openpi's `BasePolicy.infer`: an observation dict in, a dict with `actions` out."""

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]: ...


def _health_check(connection: Any, request: Any) -> Any:
    if request.path == "/healthz":
        return connection.respond(http.HTTPStatus.OK, "OK\n")
    return None


class PolicyServer:
    """Serve `policy` on ws://HOST:PORT until `stop()` (or use it as a context manager).

    Args:
        policy: Answers each observation.
        host: Interface to listen on (127.0.0.1: this machine only).
        port: TCP port; 0 picks a free one (see `port` after `start()`).
        metadata: Sent to every client on connect; defaults to `policy.metadata` when it has one.
    """

    def __init__(
        self, policy: InferPolicy, host: str = "127.0.0.1", port: int = 8000, metadata: dict[str, Any] | None = None
    ) -> None:
        self.policy = policy
        self.host = host
        self.port = port
        self.metadata = dict(metadata if metadata is not None else getattr(policy, "metadata", {}) or {})
        self.requests = 0
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def start(self) -> str:
        """Listen and serve in a background thread; return the server's ws:// address."""
        from websockets.sync.server import serve

        try:
            server = serve(
                self._handle,
                self.host,
                self.port,
                compression=None,
                max_size=None,
                process_request=_health_check,
            )
        except OSError as exc:
            raise ConfigError(f"cannot listen on {self.host}:{self.port}: {exc}; choose another --port") from exc
        self._server = server
        self.port = int(server.socket.getsockname()[1])
        self._thread = threading.Thread(target=server.serve_forever, name="heedful-policy-server", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop listening, close open connections (code 1001) and wait for their handlers."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=10.0)
            self._thread = None

    def __enter__(self) -> PolicyServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, websocket: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        websocket.send(packb(self.metadata))
        prev_total_s: float | None = None
        while True:
            try:
                start = time.monotonic()
                obs = unpackb(websocket.recv())
                infer_start = time.monotonic()
                reply = dict(self.policy.infer(obs))
                timing = {"infer_ms": (time.monotonic() - infer_start) * 1000.0}
                if prev_total_s is not None:
                    timing["prev_total_ms"] = prev_total_s * 1000.0
                reply["server_timing"] = timing
                websocket.send(packb(reply))
                self.requests += 1
                prev_total_s = time.monotonic() - start
            except ConnectionClosed:
                return
            except Exception:
                logger.exception("policy server: a request failed; the traceback goes to the client")
                try:
                    websocket.send(traceback.format_exc())
                    websocket.close(code=1011, reason=ERROR_CLOSE_REASON)
                except ConnectionClosed:
                    pass
                return
