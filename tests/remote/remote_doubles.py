"""Test doubles of the remote-policy tests, all on 127.0.0.1.

- `FaultyPolicyServer`: a test double of a policy server. It is its own small websockets server (not
  heedful's `PolicyServer`, so the client is also checked against a second implementation of openpi's
  protocol) that answers with the served oracle's actions, but misbehaves on chosen episodes from a
  chosen step: `close` drops the TCP connection without a close frame (a crashed server), `nan` puts a NaN
  into the chunk, `silent` never answers, `shape` sends (H, 6) actions.
- `SilentTcpServer`: a test double that accepts TCP connections and never answers the websocket
  handshake (a port held by something that is not a policy server).
- `ServeProcess`: the real `heedful serve` in its own process.
- `ScaledAdapter`: a user adapter (module:Class) for the adapter hook test.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from openpi_client import msgpack_numpy
from websockets.sync.server import ServerConnection, serve

from heedful.remote.adapters import LiberoAdapter
from heedful.remote.mirror import MirrorPolicy

SRC = Path(__file__).resolve().parents[2] / "src"
FAULTS = ("close", "nan", "silent", "shape")


class FaultyPolicyServer:
    """Test double: the served oracle, except on `episodes` from `at_step` on (see the module docstring)."""

    def __init__(self, fault: str, episodes: set[str], at_step: int = 20, mirror: MirrorPolicy | None = None) -> None:
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}")
        self.fault, self.episodes, self.at_step = fault, episodes, at_step
        self.mirror = mirror or MirrorPolicy("oracle")
        self.faults_done = 0
        self._release = threading.Event()
        self._server = serve(self._handle, "127.0.0.1", 0, compression=None, max_size=None)
        self.port = int(self._server.socket.getsockname()[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def __enter__(self) -> FaultyPolicyServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()  # let silent handlers return so shutdown can join them
        self._server.shutdown()
        self._thread.join(timeout=10)

    def _handle(self, ws: ServerConnection) -> None:
        ws.send(msgpack_numpy.packb(self.mirror.metadata))
        for message in ws:
            obs = msgpack_numpy.unpackb(message)
            episode = obs["heedful/episode"]
            faulty = episode["episode_id"] in self.episodes and episode["step"] >= self.at_step
            if faulty:
                self.faults_done += 1
            if faulty and self.fault == "close":
                ws.socket.shutdown(socket.SHUT_RDWR)
                return
            if faulty and self.fault == "silent":
                self._release.wait()
                return
            reply = self.mirror.infer(obs)
            if faulty and self.fault == "nan":
                reply["actions"][2, 3] = np.nan
            if faulty and self.fault == "shape":
                reply["actions"] = reply["actions"][:, :6]
            ws.send(msgpack_numpy.packb(reply))


class SilentTcpServer:
    """Test double: listens on 127.0.0.1 and accepts connections, but never says a word."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def __enter__(self) -> SilentTcpServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


class ServeProcess:
    """`heedful serve --agent AGENT --port 0` in its own process; `port` is read from its first line."""

    def __init__(self, agent: str = "oracle", *extra: str, cwd: Path | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "heedful", "serve", "--agent", agent, "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=cwd,
        )
        self.first_line = self.proc.stdout.readline() if self.proc.stdout else ""
        match = re.search(r"ws://127\.0\.0\.1:(\d+)", self.first_line)
        if not match:
            self.stop()
            raise RuntimeError(f"heedful serve did not start: {self.first_line!r}")
        self.port = int(match.group(1))

    def stop(self, timeout: float = 20.0) -> tuple[int | None, str]:
        """SIGTERM, then wait; return (exit code, the rest of its output)."""
        if self.proc.poll() is None:
            self.proc.terminate()
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.proc.poll() is None:
            self.proc.kill()
        rest = self.proc.stdout.read() if self.proc.stdout else ""
        return self.proc.poll(), rest


class ScaledAdapter(LiberoAdapter):
    """A user adapter: LIBERO keys without the wrist camera, and the policy's actions multiplied by `scale`."""

    def __init__(self, scale: float = 1.0, **kwargs: Any) -> None:
        super().__init__(wrist_image_key=None, **kwargs)
        self.scale = scale

    def actions(self, reply: dict[str, Any]) -> Any:
        return np.asarray(super().actions(reply)) * self.scale
