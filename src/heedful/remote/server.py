"""A policy server speaking openpi's websocket protocol, for any object with `infer(obs) -> dict`.

openpi's own server lives in the `openpi` package (with JAX and the models), which is not on PyPI, so this
one is ours; on the wire it does what openpi's `WebsocketPolicyServer` does:

- on connect it sends the metadata dict (msgpack via `openpi_client.msgpack_numpy`);
- each binary message is an observation dict; the reply is the policy's dict plus `server_timing`
  (`infer_ms`, and `prev_total_ms` of the previous request from receipt to sent reply);
- when the policy raises, it sends one line (the error's type and message, file paths masked) as a text frame, then
  closes with code 1011; the traceback goes to the server's log only, never over the wire;
- `GET /healthz` answers 200 OK.

It uses websockets' threaded server, so each connection has its own thread (the policy must be thread-safe). Bounds:
a frame larger than `max_frame_bytes` closes its connection (code 1009) before it is read; a connection that sends
nothing for `idle_timeout_s` is closed (and the handshake must finish within OPEN_TIMEOUT_S); beyond
`max_connections` open connections a new one is answered HTTP 503.
"""

from __future__ import annotations

import http
import logging
import re
import threading
import time
import traceback
from typing import Any, Protocol

from heedful.errors import ConfigError
from heedful.remote.wire import packb, unpackb
from heedful.threads import inherit_torch_threads

logger = logging.getLogger(__name__)

ERROR_CLOSE_REASON = "Internal server error. The error is in the previous frame."
MAX_FRAME_BYTES = 64 * 2**20
"""The largest observation frame accepted (LIBERO's two 224x224 images and state are about 0.3 MB)."""
IDLE_TIMEOUT_S = 300.0
"""A connection that sends no request for this long is closed (an idle client holds a thread)."""
OPEN_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 64
ERROR_CHARS = 300
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}[\\/]?")


def one_line_error(exc: BaseException) -> str:
    """What a client is told of a failed request: the error's type and the first line of its message, file paths
    masked, at most ERROR_CHARS characters (no traceback: it would show the server's files)."""
    lines = str(exc).strip().splitlines()
    text = _PATH.sub("<path>", f"{type(exc).__name__}: {lines[0] if lines else ''}".strip())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "..."


class InferPolicy(Protocol):
    """openpi's `BasePolicy.infer`: an observation dict in, a dict with `actions` out."""

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]: ...


class PolicyServer:
    """Serve `policy` on ws://HOST:PORT until `stop()` (or use it as a context manager).

    Args:
        policy: Answers each observation.
        host: Interface to listen on (127.0.0.1: this machine only).
        port: TCP port; 0 picks a free one (see `port` after `start()`).
        metadata: Sent to every client on connect; defaults to `policy.metadata` when it has one.
        max_frame_bytes, idle_timeout_s, max_connections: The bounds (see the module).
    """

    def __init__(
        self,
        policy: InferPolicy,
        host: str = "127.0.0.1",
        port: int = 8000,
        metadata: dict[str, Any] | None = None,
        *,
        max_frame_bytes: int = MAX_FRAME_BYTES,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        if max_frame_bytes < 1 or not idle_timeout_s > 0 or max_connections < 1:
            raise ConfigError(
                "max_frame_bytes, idle_timeout_s and max_connections must be positive, got "
                f"{max_frame_bytes}, {idle_timeout_s}, {max_connections}"
            )
        self.policy = policy
        self.host = host
        self.port = port
        self.max_frame_bytes = max_frame_bytes
        self.idle_timeout_s = idle_timeout_s
        self.max_connections = max_connections
        self.open_connections = 0
        self._count_lock = threading.Lock()
        self.metadata = dict(metadata if metadata is not None else getattr(policy, "metadata", {}) or {})
        self.requests = 0
        self.connections = 0
        """Connections accepted so far (each client's session), beside `requests`: observations answered."""
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
                max_size=self.max_frame_bytes,
                open_timeout=OPEN_TIMEOUT_S,
                process_request=self._process_request,
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

    def _process_request(self, connection: Any, request: Any) -> Any:
        """`/healthz` answers 200; a connection beyond `max_connections` is refused with 503 before its handshake."""
        if request.path == "/healthz":
            return connection.respond(http.HTTPStatus.OK, "OK\n")
        with self._count_lock:
            full = self.open_connections >= self.max_connections
        if full:
            return connection.respond(
                http.HTTPStatus.SERVICE_UNAVAILABLE, f"too many connections (at most {self.max_connections})\n"
            )
        return None

    def _handle(self, websocket: Any) -> None:
        with self._count_lock:
            self.open_connections += 1
            self.connections += 1
        try:
            inherit_torch_threads()  # each connection's requests are answered on its own thread
            self._serve(websocket)
        finally:
            with self._count_lock:
                self.open_connections -= 1

    def _serve(self, websocket: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        websocket.send(packb(self.metadata))
        prev_total_s: float | None = None
        while True:
            try:
                try:
                    message = websocket.recv(timeout=self.idle_timeout_s)
                except TimeoutError:
                    websocket.close(code=1000, reason=f"idle for {self.idle_timeout_s:g} s")
                    return
                start = time.monotonic()
                try:
                    obs = unpackb(message)
                except Exception as exc:  # a frame that is not msgpack: the client's error, told in one line
                    what = type(exc).__name__
                    raise ValueError(f"the request is not an openpi msgpack observation ({what})") from exc
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
            except Exception as exc:
                logger.error("policy server: a request failed:\n%s", traceback.format_exc())
                try:
                    websocket.send(one_line_error(exc))
                    websocket.close(code=1011, reason=ERROR_CLOSE_REASON)
                except ConnectionClosed:
                    pass
                return
