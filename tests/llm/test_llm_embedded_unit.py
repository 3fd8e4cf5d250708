"""Embedded-backend helpers that need no model run: model file checks, hashing, ports."""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path
from typing import ClassVar

import pytest

from heedful.errors import ConfigError
from heedful.llm import server as server_module
from heedful.llm.embedded import EmbeddedBackend
from heedful.llm.models import check_gguf, gguf_sha256
from heedful.llm.server import EmbeddedServer, ServerClosedError, free_port


def test_model_files_are_hashed_once_per_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 5000)
    assert gguf_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    opened: list[Path] = []
    original = Path.open

    def spy(self: Path, *args: object, **kwargs: object) -> object:
        opened.append(self)
        return original(self, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", spy)
    gguf_sha256(path)
    assert opened == []  # memoized
    changed = b"GGUF" + b"\1" * 5000
    path.write_bytes(changed)
    os.utime(path, ns=(1, 1))
    opened.clear()
    assert gguf_sha256(path) == hashlib.sha256(changed).hexdigest() and opened == [path]


def test_check_gguf_reads_the_magic_bytes(tmp_path: Path) -> None:
    good = tmp_path / "good.bin"
    good.write_bytes(b"GGUF rest")
    assert check_gguf(good) == good
    with pytest.raises(ConfigError, match="no such file"):
        check_gguf(tmp_path / "missing.gguf")


def test_free_ports_are_free_loopback_ports() -> None:
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_the_embedded_identity_names_the_model_by_hash_not_by_path_or_port(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF tiny model")
    identity = EmbeddedBackend(path, timeout=5, threads=2).identity()
    assert identity["kind"] == "embedded" and identity["model"] == "tiny"
    assert identity["gguf_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert identity["threads"] == 2 and identity["parallel"] == 1
    assert str(tmp_path) not in str(identity) and "port" not in identity


def test_servers_are_checked_and_not_started_when_built(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        EmbeddedServer(tmp_path / "m.gguf", parallel=0)
    server = EmbeddedServer(tmp_path / "m.gguf")
    assert not server.running and server.threads == server_module.default_threads()
    server.close()  # closing a server that never started is fine


class DummyServer:  # test double
    """Stands in for an xllamacpp.Server: records when it is destroyed."""

    destroyed: ClassVar[list[str]] = []

    def __init__(self, name: str) -> None:
        self.name = name

    def __del__(self) -> None:
        DummyServer.destroyed.append(self.name)


def test_a_busy_server_is_destroyed_when_its_last_request_returns(tmp_path: Path) -> None:
    DummyServer.destroyed = []
    server = EmbeddedServer(tmp_path / "m.gguf")
    server._handle = server_module._Handle(DummyServer("busy"))
    with server.request(), server.request():
        server.close()
        assert DummyServer.destroyed == [] and not server.running
        with pytest.raises(ServerClosedError), server.request():
            pass
    assert DummyServer.destroyed == ["busy"]
    server._handle = server_module._Handle(DummyServer("idle"))
    server.close()
    assert DummyServer.destroyed == ["busy", "idle"]


@pytest.mark.parametrize(
    ("cores", "load", "workers", "threads"),
    [(2, 0.1, 1, 2), (2, 2.3, 1, 1), (2, 12.8, 1, 1), (16, 3.0, 1, 8), (16, 4.0, 3, 4), (8, 0.0, 16, 1)],
)
def test_the_default_threads_are_the_free_cores_shared_among_the_workers(
    cores: int, load: float, workers: int, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module.os, "sched_getaffinity", lambda _pid: set(range(cores)))
    monkeypatch.setattr(server_module.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(server_module, "_CHOSEN", {})
    monkeypatch.setenv(server_module.WORKERS_ENV, str(workers))
    chosen, why = server_module.thread_choice()
    assert chosen == threads and f"{cores} cores, load {load:.1f}" in why
    monkeypatch.setattr(server_module.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert server_module.thread_choice() == (chosen, why)  # chosen once per process: the cache key keeps it


def test_the_runner_tells_the_model_server_how_many_workers_share_the_machine() -> None:
    import importlib

    run_module = importlib.import_module("heedful.runner.run")

    assert run_module.WORKERS_ENV == server_module.WORKERS_ENV
