"""A connection to an openpi policy server: openpi-client's `WebsocketClientPolicy`, with the timeouts and
retries it lacks.

openpi-client waits without limit: its constructor blocks until the server sends its metadata (openpi's
own checkout even retries a refused connection forever) and `infer` blocks until a reply arrives. Both run
here in a daemon thread that we stop waiting for after `connect_timeout` / `request_timeout`; a connection
whose request timed out is closed (which also ends the waiting thread) and never reused.

What is retried: only opening a connection (`connect_retries` times, with a short backoff), which is safe
because nothing was sent yet. A request is never resent: a policy server may keep state between requests,
so a resent observation could act twice. The episode is recorded as failed instead, and `--resume` runs it
again from its start.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from heedful.errors import AgentInterfaceError, AgentTimeoutError, ConfigError
from heedful.remote.wire import openpi_module

# websockets >= 14 deprecates calling connect() outside a `with` block, which openpi-client does; harmless here.
warnings.filterwarnings(
    "ignore",
    message=r"connect\(\) must be used as a context manager",
    category=DeprecationWarning,
    module="openpi_client",
)

MAX_ERROR_CHARS = 4000  # a server traceback is kept up to this length (its end, where the error is)
RETRY_WAIT_S = 0.5
MAX_REPLY_BYTES = 64 * 2**20
"""The largest reply (or metadata) a policy server may send: a larger one closes the connection (code 1009) before it
is read, and the episode fails as `interface_error` (openpi-client itself accepts any size)."""


def bounded_client_class() -> Any:
    """openpi-client's `WebsocketClientPolicy`, connecting with a bounded message size and handshake time."""
    base = openpi_module("websocket_client_policy").WebsocketClientPolicy
    websockets_client = importlib.import_module("websockets.sync.client")

    class BoundedClientPolicy(base):  # type: ignore[misc, valid-type]
        def _wait_for_server(self) -> tuple[Any, Any]:
            headers = {"Authorization": f"Api-Key {self._api_key}"} if self._api_key else None
            conn = websockets_client.connect(
                self._uri, compression=None, max_size=MAX_REPLY_BYTES, additional_headers=headers
            )
            return conn, openpi_module("msgpack_numpy").unpackb(conn.recv())

    return BoundedClientPolicy


def _tail(text: str) -> str:
    return text if len(text) <= MAX_ERROR_CHARS else "..." + text[-MAX_ERROR_CHARS:]


def describe_failure(exc: BaseException) -> str:
    """One message for whatever openpi-client raised while a request was in flight."""
    text = str(exc)
    if isinstance(exc, RuntimeError) and text.startswith("Error in inference server"):
        # openpi-client's way of saying the server replied with a str: the server's traceback.
        return "the policy server replied with an error:\n" + _tail(text.split("\n", 1)[-1])
    if type(exc).__name__.startswith("ConnectionClosed"):  # websockets.exceptions.ConnectionClosed*
        sent = getattr(exc, "sent", None)
        if getattr(sent, "code", None) == 1009:  # we closed it: the reply was over our bound
            return (
                f"the policy server's reply is larger than {MAX_REPLY_BYTES} bytes (heedful's bound, close code "
                "1009); the connection was closed before it was read"
            )
        rcvd = getattr(exc, "rcvd", None)
        if rcvd is None:
            return "the policy server closed the connection without a close frame (server crashed or network failed)"
        reason = getattr(rcvd, "reason", "") or "no reason given"
        return f"the policy server closed the connection (close code {getattr(rcvd, 'code', None)}, {reason})"
    return f"the request to the policy server failed: {type(exc).__name__}: {_tail(text)}"


def _close_quietly(client: Any) -> None:
    # openpi-client has no close(); its websocket connection is the attribute `_ws`.
    ws = getattr(client, "_ws", None)
    if ws is not None:
        with contextlib.suppress(Exception):  # the connection is being dropped either way
            ws.close()


def _in_thread(fn: Callable[[], Any], timeout: float, name: str) -> tuple[bool, Any, BaseException | None]:
    """Run `fn` in a daemon thread; (finished, result, error), finished False when `timeout` passed first."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name=name, daemon=True).start()
    if not done.wait(timeout):
        return False, None, None
    return True, box.get("result"), box.get("error")


class PolicyLink:
    """One (re)connectable client of a policy server at `url` (ws://HOST:PORT).

    Args:
        url: The server's websocket address.
        connect_timeout: Seconds to wait for the connection and the server's metadata.
        request_timeout: Seconds to wait for one reply.
        connect_retries: Further attempts after a failed connection.
        api_key: Sent as `Authorization: Api-Key ...` (openpi-client's way), for servers behind a gateway.
    """

    def __init__(
        self,
        url: str,
        connect_timeout: float,
        request_timeout: float,
        connect_retries: int,
        api_key: str | None = None,
    ) -> None:
        if not url.startswith(("ws://", "wss://")):
            raise ConfigError(f"a policy server address looks like ws://HOST:PORT, got {url!r}")
        for name, value in (("connect_timeout", connect_timeout), ("request_timeout", request_timeout)):
            if not value > 0:
                raise ConfigError(f"{name} must be a positive number of seconds, got {value!r}")
        if connect_retries < 0:
            raise ConfigError(f"connect_retries must be 0 or more, got {connect_retries}")
        self.url = url
        self.connect_timeout = connect_timeout
        self.request_timeout = request_timeout
        self.connect_retries = connect_retries
        self._api_key = api_key
        self.metadata: dict[str, Any] = {}
        self.connections = 0
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def connected(self) -> bool:
        return self._client is not None

    def ensure(self) -> dict[str, Any]:
        """Connect unless connected; return the server's metadata.

        Raises:
            AgentInterfaceError: no connection after every attempt (the message says why).
        """
        if self._client is not None:
            return self.metadata
        errors: list[str] = []
        for attempt in range(self.connect_retries + 1):
            if attempt:
                time.sleep(RETRY_WAIT_S * 2 ** (attempt - 1))
            try:
                self._client, metadata = self._open()
            except AgentInterfaceError as exc:
                errors.append(str(exc))
                continue
            self.metadata = metadata if isinstance(metadata, dict) else {"metadata": metadata}
            self.connections += 1
            return self.metadata
        tries = f"{len(errors)} attempt{'s' * (len(errors) > 1)}"
        raise AgentInterfaceError(
            f"could not connect to the policy server at {self.url} ({tries}; last: {errors[-1]}); start the server "
            "(heedful serve, or openpi's scripts/serve_policy.py) or check --url / --host / --port"
        )

    def _open(self) -> tuple[Any, Any]:
        client_cls = bounded_client_class()
        abandoned = threading.Event()

        def connect() -> Any:
            client = client_cls(host=self.url, api_key=self._api_key)
            with self._lock:
                if abandoned.is_set():  # we stopped waiting: do not leak the late connection
                    _close_quietly(client)
            return client

        finished, client, error = _in_thread(connect, self.connect_timeout, "heedful-remote-connect")
        if not finished:
            with self._lock:
                abandoned.set()
            raise AgentInterfaceError(f"no connection and metadata within {self.connect_timeout:g} s")
        if error is not None:
            raise AgentInterfaceError(f"{type(error).__name__}: {error}") from error
        return client, client.get_server_metadata()

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Send one observation and return the server's reply dict.

        Raises:
            AgentTimeoutError: no reply within `request_timeout` (the connection is dropped).
            AgentInterfaceError: the server replied with an error, closed the connection, or sent something
                that is not a dict (the connection is dropped).
        """
        client = self._client
        if client is None:
            raise AgentInterfaceError(f"not connected to the policy server at {self.url}")
        finished, reply, error = _in_thread(lambda: client.infer(obs), self.request_timeout, "heedful-remote-infer")
        if not finished:
            self.drop()
            raise AgentTimeoutError(
                f"the policy server at {self.url} sent no reply within {self.request_timeout:g} s "
                "(raise --request-timeout if the policy is slow)"
            )
        if error is not None:
            self.drop()
            raise AgentInterfaceError(describe_failure(error)) from error
        if not isinstance(reply, dict):
            self.drop()
            raise AgentInterfaceError(f"the policy server replied with {type(reply).__name__}, not a dict")
        return reply

    def drop(self) -> None:
        """Forget the connection, closing it in the background (a stuck server may delay the close)."""
        client, self._client = self._client, None
        if client is not None:
            threading.Thread(target=_close_quietly, args=(client,), name="heedful-remote-close", daemon=True).start()

    def close(self) -> None:
        """Close the connection and wait for the close handshake (bounded by the websocket close timeout)."""
        client, self._client = self._client, None
        if client is not None:
            _close_quietly(client)
