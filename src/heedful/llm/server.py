"""A real llama.cpp server in this process (`xllamacpp`), on a free loopback port, started on demand.

Prompt caching is off and one request is decoded at a time by default: llama.cpp's reuse of a cached
prompt prefix and its batching of concurrent requests change the floating-point rounding, which at
temperature 0 can change an answer. With both off, an answer does not depend on what was sent before or
beside it.

Shutting down: llama.cpp's server hangs if it is destroyed while it still answers a request, or before its
HTTP loop runs. So `start()` waits until /health answers, requests are counted (`request()`), and `close()`
destroys the server at once when it is idle, or else when the last request in flight returns. The same
release runs at garbage collection and at exit (also in pool workers, whose exit skips plain atexit hooks).
"""

from __future__ import annotations

import http.client
import importlib
import multiprocessing.util
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from heedful.errors import AgentInterfaceError, ConfigError, MissingDependencyError
from heedful.llm.client import LLM_INSTALL_HINT

DEFAULT_CTX_PER_SLOT = 4096
START_TRIES = 3
READY_TIMEOUT_S = 60.0


class ServerClosedError(AgentInterfaceError):
    """A request reached an embedded server that was shut down (a request left over from an interrupt)."""


WORKERS_ENV = "HEEDFUL_WORKERS"
"""Set by the runner for a run's duration: how many worker processes share this machine's free cores."""


def default_threads(workers: int | None = None) -> int:
    """Threads for the embedded server: the cores this process may use that the machine's load leaves free
    (minus the 1-minute load average), shared among the run's workers (`workers`, else $HEEDFUL_WORKERS),
    at least 1 and at most 8. On a busy machine more threads than free cores make llama.cpp's threads wait
    for each other at every token: one thread answered 5.6x faster than two on a loaded 2-core machine."""
    return thread_choice(workers)[0]


_CHOSEN: dict[int, tuple[int, str]] = {}


def thread_choice(workers: int | None = None) -> tuple[int, str]:
    """(threads, why): the default of `default_threads` and a short account of it for the user. Chosen once per
    process and worker count: the thread count is part of the response cache's key (heedful.llm.embedded), so a
    process keeps one, and the manifest states the one its server uses."""
    if workers is None:
        try:
            workers = max(1, int(os.environ.get(WORKERS_ENV, "1")))
        except ValueError:
            workers = 1
    if workers not in _CHOSEN:
        _CHOSEN[workers] = _choose(workers)
    return _CHOSEN[workers]


def _choose(workers: int) -> tuple[int, str]:
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 2
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform
        load = 0.0
    free = max(1, available - round(load))
    threads = max(1, min(8, free // workers))
    shared = f", shared by {workers} workers" if workers > 1 else ""
    return threads, f"{available} cores, load {load:.1f}: {free} free{shared}"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _import_xllamacpp() -> Any:
    try:
        return importlib.import_module("xllamacpp")  # by name: it ships no type information
    except ImportError as err:
        raise MissingDependencyError(
            f"the embedded model server needs xllamacpp: {LLM_INSTALL_HINT} (or pip install xllamacpp)"
        ) from err


def server_params(gguf: Path, port: int, threads: int, parallel: int, ctx_per_slot: int, metrics: bool) -> Any:
    """xllamacpp server parameters: loopback only, prompt cache off, quiet unless HEEDFUL_LLAMA_LOG is set."""
    params = _import_xllamacpp().CommonParams()
    params.model.path = str(gguf)
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_parallel = parallel
    params.n_ctx = ctx_per_slot * parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.cache_prompt = False
    params.endpoint_metrics = metrics
    params.verbosity = 3 if os.environ.get("HEEDFUL_LLAMA_LOG") else -1
    return params


def wait_ready(port: int, timeout_s: float = READY_TIMEOUT_S) -> bool:
    """Poll http://127.0.0.1:PORT/health until it answers 200; False if it never does within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2.0)
        try:
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return True
        except OSError:
            pass
        finally:
            conn.close()
        time.sleep(0.01)
    return False


class _Handle:
    """One live xllamacpp server and the requests in flight, shared with the finalizer."""

    def __init__(self, server: Any) -> None:
        self.server: Any = server
        self.in_flight = 0
        self.closing = False
        self.lock = threading.Lock()


def _release(handle: _Handle) -> None:
    """Destroy the server now if idle, else let the last request in flight do it."""
    with handle.lock:
        handle.closing = True
        server = handle.server if handle.in_flight == 0 else None
        if server is not None:
            handle.server = None
    del server  # the last reference: the C++ destructor stops the HTTP server and its threads


class EmbeddedServer:
    """A llama.cpp server in this process. Use it as a context manager, or call `start()` and `close()`."""

    starts = 0
    """Servers started in this process (tests use it to prove that a cached rerun starts none)."""

    def __init__(
        self,
        gguf: Path,
        *,
        threads: int | None = None,
        parallel: int = 1,
        ctx_per_slot: int = DEFAULT_CTX_PER_SLOT,
        port: int = 0,
        metrics: bool = False,
        announce: bool = True,
    ) -> None:
        if parallel < 1 or ctx_per_slot < 256:
            raise ConfigError(f"the server needs parallel >= 1 and ctx >= 256, got {parallel} and {ctx_per_slot}")
        self.gguf = gguf
        self.threads, self.why = (threads, "chosen with --threads") if threads else thread_choice()
        self.announce = announce
        self.parallel = parallel
        self.ctx_per_slot = ctx_per_slot
        self.port = port
        self.metrics = metrics
        self._handle: _Handle | None = None
        self._url: str | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        handle = self._handle
        return handle is not None and handle.server is not None and not handle.closing

    def start(self) -> str:
        """Start the server if needed and return its API root, e.g. http://127.0.0.1:PORT/v1.

        Raises:
            AgentInterfaceError: llama.cpp could not start (set HEEDFUL_LLAMA_LOG=1 to see its log).
        """
        with self._lock:
            if self.running and self._url is not None:
                return self._url
            xllamacpp = _import_xllamacpp()
            error: Exception | None = None
            for _ in range(START_TRIES if self.port == 0 else 1):
                port = self.port or free_port()
                params = server_params(self.gguf, port, self.threads, self.parallel, self.ctx_per_slot, self.metrics)
                try:
                    server = xllamacpp.Server(params)
                except Exception as exc:  # llama.cpp reports every start failure as a bare exception
                    error = exc
                    continue
                self._handle = _Handle(server)
                # Runs at garbage collection and at exit, in the main process and in pool workers.
                multiprocessing.util.Finalize(self, _release, args=(self._handle,), exitpriority=10)
                EmbeddedServer.starts += 1
                if self.announce:
                    print(
                        f"heedful: the embedded model {self.gguf.stem} answers with {self.threads} "
                        f"thread{'s' if self.threads > 1 else ''} "
                        f"({self.why}); --threads N sets them",
                        file=sys.stderr,
                        flush=True,
                    )
                if not wait_ready(port):
                    raise AgentInterfaceError(f"the embedded llama.cpp server on port {port} never became ready")
                self._url = f"http://127.0.0.1:{port}/v1"
                return self._url
            raise AgentInterfaceError(
                f"the embedded llama.cpp server did not start with {self.gguf}: {error}; "
                "set HEEDFUL_LLAMA_LOG=1 to see llama.cpp's log"
            )

    @contextmanager
    def request(self) -> Iterator[None]:
        """Count one request in flight, so that `close()` never destroys a busy server.

        Raises:
            ServerClosedError: the server was closed (or never started).
        """
        handle = self._handle
        if handle is None:
            raise ServerClosedError("the embedded llama.cpp server is not running")
        with handle.lock:
            if handle.closing or handle.server is None:
                raise ServerClosedError("the embedded llama.cpp server was shut down")
            handle.in_flight += 1
        try:
            yield
        finally:
            with handle.lock:
                handle.in_flight -= 1
                last = handle.closing and handle.in_flight == 0
            if last:
                _release(handle)

    def close(self) -> None:
        """Stop the server: now if idle, else when its last request returns. `start()` may start a new one."""
        with self._lock:
            if self._handle is not None:
                _release(self._handle)
            self._url = None

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
