"""Helpers of the language-model tests.

- `FakeOpenAIServer`: a test double of an OpenAI-compatible server, answering from a script (canned
  completions, error statuses, delays), recording every request it gets.
- `CountingProxy`: a real HTTP forwarder in front of a real server, counting the requests that pass.
- `ServeProcess`: a real llama.cpp server in its own process (`python -m heedful.llm.serve`).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

SRC = Path(__file__).resolve().parents[2] / "src"


def completion(
    text: str, finish_reason: str = "stop", prompt_tokens: int = 11, completion_tokens: int = 7
) -> dict[str, Any]:
    """An OpenAI chat completion body."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


@dataclass
class Reply:
    """One scripted answer of the fake server."""

    status: int = 200
    body: dict[str, Any] | str = field(default_factory=lambda: completion('{"decision": "a1"}'))
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str = "application/json"


Script = Callable[[dict[str, Any]], Reply]


def ok(text: str = '{"decision": "a1"}', **kwargs: Any) -> Reply:
    return Reply(body=completion(text, **kwargs))


def sequence(*replies: Reply) -> Script:
    """Answer with `replies` in order, then repeat the last one."""
    queue = list(replies)
    lock = threading.Lock()

    def script(_: dict[str, Any]) -> Reply:
        with lock:
            return queue.pop(0) if len(queue) > 1 else queue[0]

    return script


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


class FakeOpenAIServer:  # test double
    """A scripted OpenAI-compatible HTTP server on 127.0.0.1 (a test double, not a model)."""

    def __init__(self, script: Script | None = None, models: list[str] | None = None) -> None:
        self.script: Script = script or (lambda _: ok())
        self.models = models  # listed at GET /v1/models (None: 404, as servers without the endpoint)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                found = self.path.rstrip("/").endswith("/models") and fake.models is not None
                listing = {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models or []]}
                data = json.dumps(listing).encode() if found else b'{"error": "not found"}'
                self.send_response(200 if found else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = fake.script(body)
                time.sleep(reply.delay_s)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                    pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FakeSlowServer(FakeOpenAIServer):  # test double
    """A test double that answers correctly but only after `delay_s` seconds."""

    def __init__(self, delay_s: float) -> None:
        super().__init__(lambda _: Reply(body=completion('{"decision": "a1"}'), delay_s=delay_s))


class CountingProxy:
    """A real HTTP forwarder to `upstream` (host:port) that counts the requests per path."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                with proxy._lock:
                    proxy.counts[self.path] = proxy.counts.get(self.path, 0) + 1
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length) if length else None
                host, port = proxy.upstream.split(":")
                conn = http.client.HTTPConnection(host, int(port), timeout=300)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                    conn.request(self.command, self.path, body=body, headers=headers)
                    response = conn.getresponse()
                    data = response.read()
                    self.send_response(response.status)
                    for key, value in response.getheaders():
                        if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                            self.send_header(key, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    conn.close()

            def do_GET(self) -> None:
                self._forward()

            def do_POST(self) -> None:
                self._forward()

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def chat_requests(self) -> int:
        with self._lock:
            return self.counts.get("/v1/chat/completions", 0)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class ServeProcess:
    """`python -m heedful.llm.serve` in its own process: a real llama.cpp server on loopback."""

    def __init__(self, *args: str, port: int = 0) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)}
        command = [sys.executable, "-m", "heedful.llm.serve", "--port", str(port), *args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until the server is ready (or the process died)
        if not line.startswith("listening on "):
            self.process.kill()
            raise RuntimeError(
                f"serve did not start: {line!r} {self.process.stderr.read() if self.process.stderr else ''}"
            )
        self.url = line.split()[2]
        self.model = line.split()[4]
        # Read both pipes from now on: a full pipe would block the server mid-request.
        self.output: list[str] = []
        for pipe in (self.process.stdout, self.process.stderr):
            threading.Thread(target=self.output.extend, args=(pipe,), daemon=True).start()

    @property
    def host_port(self) -> str:
        parsed = urlparse(self.url)
        return f"{parsed.hostname}:{parsed.port}"

    @property
    def port(self) -> int:
        return int(urlparse(self.url).port or 0)

    def metric(self, name: str) -> float:
        """A Prometheus counter from the server's /metrics (needs --metrics)."""
        conn = http.client.HTTPConnection(self.host_port.split(":")[0], self.port, timeout=10)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.split()[-1])
        raise KeyError(f"{name} not in /metrics:\n{text[:2000]}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return int(self.process.returncode)


def free_port() -> int:
    """A loopback port nothing listens on (bound and released: a connection to it is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], what: str, process: subprocess.Popen[str]) -> None:
    """Wait for `condition` as long as `process` (the run that makes it true) is alive: no fixed time, which a
    loaded machine outlasts; a process that ended without it fails at once, with its output. The test's own
    pytest timeout bounds the wait."""
    while not condition():
        if process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(f"the process ended ({process.returncode}) before {what}:\n{out[-2000:]}{err[-2000:]}")
        time.sleep(0.05)


def iter_json_rows(text: str) -> Iterator[dict[str, Any]]:
    yield from json.loads(text)
