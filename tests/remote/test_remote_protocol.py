"""heedful's policy server and client link against openpi-client itself, on 127.0.0.1: metadata on connect,
msgpack arrays both ways, server timing, the one-line reply on error, health check, timeouts, and the bounds: a frame
too large, a malformed frame, an idle connection, too many connections, a reply too large."""

from __future__ import annotations

import socket
import sys
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from openpi_client import msgpack_numpy
from openpi_client.websocket_client_policy import WebsocketClientPolicy
from remote_doubles import SilentTcpServer

from heedful.errors import AgentInterfaceError, AgentTimeoutError, ConfigError, MissingDependencyError
from heedful.remote.link import PolicyLink
from heedful.remote.server import PolicyServer
from heedful.remote.wire import jsonable, openpi_module

# websockets >= 14 deprecates how openpi-client opens its connection (heedful.remote.link silences it at run time).
pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")


class EchoPolicy:
    """Replies with a (4, 7) chunk built from the observation, and raises on request."""

    def __init__(self) -> None:
        self.metadata = {"policy": "echo", "action_horizon": 4, "stats": np.arange(3.0)}

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        if obs.get("explode"):
            raise ValueError("the policy exploded on purpose")
        if obs.get("sleep"):
            time.sleep(float(obs["sleep"]))
        state = np.asarray(obs["observation/state"])
        reply = {"actions": np.tile(state[:7], (4, 1)), "policy_timing": {"infer_ms": 1.5}, "seen": sorted(obs)}
        if obs.get("big"):  # a reply of that many bytes more
            reply["blob"] = np.zeros(int(obs["big"]), np.uint8)
        return reply


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def obs(**extra: Any) -> dict[str, Any]:
    return {
        "observation/image": np.zeros((224, 224, 3), np.uint8),
        "observation/state": np.arange(8, dtype=np.float64),
        "prompt": "pick up the block",
        **extra,
    }


def test_openpi_client_talks_to_our_server_with_metadata_arrays_and_timing() -> None:
    with PolicyServer(EchoPolicy(), port=0) as server:
        client = WebsocketClientPolicy(host="127.0.0.1", port=server.port)
        meta = client.get_server_metadata()
        assert meta["policy"] == "echo" and np.array_equal(meta["stats"], np.arange(3.0))
        first, second = client.infer(obs()), client.infer(obs())
        client._ws.close()
    assert first["actions"].dtype == np.float64 and first["actions"].shape == (4, 7)
    assert np.array_equal(first["actions"][2], np.arange(7.0))
    assert first["seen"] == ["observation/image", "observation/state", "prompt"]
    assert first["server_timing"]["infer_ms"] >= 0 and "prev_total_ms" not in first["server_timing"]
    assert second["server_timing"]["prev_total_ms"] > 0  # the first request's time from receipt to reply
    assert server.requests == 2


def test_an_error_in_the_policy_reaches_the_client_as_one_line_then_the_connection_closes() -> None:
    with PolicyServer(EchoPolicy(), port=0) as server:
        client = WebsocketClientPolicy(host=server.url)
        with pytest.raises(RuntimeError, match="Error in inference server") as raised:
            client.infer(obs(explode=True))
        told = str(raised.value).split("\n", 1)[1]
        assert told == "ValueError: the policy exploded on purpose"  # one line: no traceback, no file path
        link = PolicyLink(server.url, connect_timeout=5, request_timeout=5, connect_retries=0)
        link.ensure()
        with pytest.raises(AgentInterfaceError, match="replied with an error") as failed:
            link.infer(obs(explode=True))
        assert "ValueError: the policy exploded on purpose" in str(failed.value)
        assert not link.connected  # dropped; the next episode reconnects
        assert link.ensure()["policy"] == "echo" and link.connections == 2
        link.close()


def test_health_check_answers_ok() -> None:
    with PolicyServer(EchoPolicy(), port=0) as server:
        response = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5)
        assert response.status == 200 and response.read() == b"OK\n"


def test_a_request_that_gets_no_reply_times_out_and_drops_the_connection() -> None:
    with PolicyServer(EchoPolicy(), port=0) as server:
        link = PolicyLink(server.url, connect_timeout=5, request_timeout=0.3, connect_retries=0)
        link.ensure()
        start = time.monotonic()
        with pytest.raises(AgentTimeoutError, match=r"no reply within 0\.3 s"):
            link.infer(obs(sleep=1.5))
        assert time.monotonic() - start < 1.0 and not link.connected
        link.ensure()
        assert link.infer(obs())["actions"].shape == (4, 7)
        link.close()


def test_connecting_to_nothing_fails_after_the_retries_with_a_hint() -> None:
    link = PolicyLink(f"ws://127.0.0.1:{free_port()}", connect_timeout=2, request_timeout=2, connect_retries=1)
    start = time.monotonic()
    with pytest.raises(AgentInterfaceError, match=r"could not connect .*2 attempts.*heedful serve"):
        link.ensure()
    assert time.monotonic() - start < 2.0


def test_a_port_that_never_completes_the_handshake_does_not_hang_the_client() -> None:
    with SilentTcpServer() as silent:
        link = PolicyLink(f"ws://127.0.0.1:{silent.port}", connect_timeout=0.5, request_timeout=1, connect_retries=0)
        start = time.monotonic()
        with pytest.raises(AgentInterfaceError, match=r"no connection and metadata within 0\.5 s"):
            link.ensure()
        assert time.monotonic() - start < 1.5


def test_link_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="ws://HOST:PORT"):
        PolicyLink("http://127.0.0.1:8000", 1, 1, 0)
    with pytest.raises(ConfigError, match="request_timeout"):
        PolicyLink("ws://127.0.0.1:8000", 1, 0, 0)


def test_a_missing_openpi_client_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openpi_client.websocket_client_policy", None)
    with pytest.raises(MissingDependencyError, match=r"pip install --no-deps openpi-client"):
        openpi_module("websocket_client_policy")


def test_metadata_becomes_json_safe() -> None:
    meta = msgpack_numpy.unpackb(msgpack_numpy.packb({"a": np.arange(3), "big": np.zeros(1000), "x": float("nan")}))
    assert jsonable(meta) == {"a": [0, 1, 2], "big": {"array": {"shape": [1000], "dtype": "<f8"}}, "x": "nan"}


def test_a_server_that_shuts_down_closes_the_connection_with_its_code() -> None:
    server = PolicyServer(EchoPolicy(), port=0)
    server.start()
    link = PolicyLink(server.url, connect_timeout=5, request_timeout=5, connect_retries=0)
    link.ensure()
    server.stop()  # what Ctrl-C on `heedful serve` does: close code 1001 (going away)
    with pytest.raises(AgentInterfaceError, match=r"closed the connection \(close code 1001"):
        link.infer(obs())
    assert not link.connected


def test_the_server_bounds_frames_idle_connections_and_connections_and_answers_malformed_frames_in_one_line() -> None:
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    with PolicyServer(EchoPolicy(), port=0, max_frame_bytes=1_000_000, idle_timeout_s=0.5, max_connections=2) as server:
        with connect(server.url, max_size=None) as ws:
            ws.recv()  # the metadata
            with pytest.raises(ConnectionClosed) as closed:  # 300 MB announced: refused before it is read
                ws.send(b"\0" * 1_000_001)
                ws.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        with connect(server.url) as ws:
            ws.recv()
            ws.send(b"\xc1 not msgpack")
            told = ws.recv(timeout=5)
            assert isinstance(told, str) and told.startswith("ValueError: the request is not an openpi msgpack")
            assert "\n" not in told and "Traceback" not in told
        with connect(server.url) as idle:
            idle.recv()
            with pytest.raises(ConnectionClosed) as closed:
                idle.recv(timeout=5)  # it sends nothing: closed after the idle timeout
            assert closed.value.rcvd is not None and "idle" in closed.value.rcvd.reason
        # a connection counts from when its handler thread starts, a moment after the handshake (later under
        # load): wait for the earlier ones to be let go and the two new ones to be counted before the third
        _wait_for(lambda: server.open_connections == 0)
        first, second = connect(server.url), connect(server.url)
        _wait_for(lambda: server.open_connections == 2)
        with pytest.raises(InvalidStatus, match="503"):
            connect(server.url, open_timeout=5)
        first.close()
        second.close()


def _wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the server did not reach the expected connection count"
        time.sleep(0.01)


def test_the_client_refuses_a_reply_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    import heedful.remote.link as link_module

    monkeypatch.setattr(link_module, "MAX_REPLY_BYTES", 10_000)
    with PolicyServer(EchoPolicy(), port=0) as server:
        link = PolicyLink(server.url, connect_timeout=5, request_timeout=5, connect_retries=0)
        link.ensure()
        with pytest.raises(AgentInterfaceError, match="1009"):
            link.infer(obs(big=20_000))
        link.close()
