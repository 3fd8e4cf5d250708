"""The backend flags are checked before a run directory is touched: typed errors that say how to fix them."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest
from runner_toy import make_episodes, toy_spec

from heedful.errors import ConfigError, MissingDependencyError, RunError
from heedful.runner import run
from heedful.runner.backend import BackendFlags, make_backend
from heedful.runner.backends import LocalBackend
from heedful.runner.ray_options import RayOptions, parse_resources
from heedful.runner.ray_run import RayBackend

pytestmark = pytest.mark.usefixtures("toy")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": "dask"}, "unknown backend 'dask'; choose one of: local, ray"),
        ({"address": "auto"}, "--address only applies to --backend ray"),
        ({"resources": '{"CPU": 1}'}, "--resources only applies to --backend ray"),
        ({"backend": "ray", "resources": "{CPU: 1}"}, "is not JSON"),
        ({"backend": "ray", "resources": "[1]"}, "must be a JSON object"),
        ({"backend": "ray", "resources": '{"GPU": -1}'}, "'GPU': -1 is not a non-negative amount"),
        ({"backend": "ray", "resources": '{"node_b": 1}'}, "only a cluster started with them has"),
        ({"backend": "ray", "address": "http://x:1/y"}, "is not a Ray address"),
    ],
)
def test_bad_backend_flags_stop_the_run_before_its_directory_exists(
    tmp_path: Path, kwargs: dict[str, str], message: str
) -> None:
    if kwargs.get("backend") == "ray":
        pytest.importorskip("ray")  # without ray, the missing install is the error (tested below)
    episodes = make_episodes(4)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")):
        run(toy_spec(episodes), episodes, tmp_path / "run", progress=False, **kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()


def test_an_unreachable_address_is_named_with_how_to_start_a_cluster(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    address = f"127.0.0.1:{_free_port()}"
    episodes = make_episodes(4)
    started = time.monotonic()
    with pytest.raises(RunError, match=f"no Ray cluster answers at --address {address}") as caught:
        run(toy_spec(episodes), episodes, tmp_path / "run", progress=False, backend="ray", address=address)
    assert time.monotonic() - started < 10  # ray itself would retry for minutes
    assert "ray start --head" in str(caught.value) and not (tmp_path / "run").exists()


def test_the_ray_backend_without_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without ray looks like to an import
    with pytest.raises(MissingDependencyError, match=r"pip install 'heedful\[ray\]'"):
        make_backend("ray")
    from heedful.runner.ray_backend import import_ray

    with pytest.raises(MissingDependencyError, match=r"pip install 'heedful\[ray\]'"):
        import_ray()


def test_a_ray_client_address_without_rays_client_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    monkeypatch.setitem(sys.modules, "grpc", None)  # plain `ray` does not install grpcio, which ray:// needs
    with pytest.raises(MissingDependencyError, match=r"pip install 'ray\[client\]'"):
        make_backend("ray", BackendFlags(address="ray://127.0.0.1:10001"))


def test_resources_become_the_actor_options() -> None:
    assert parse_resources(None) == {"CPU": 1.0}
    assert parse_resources({"GPU": 0.25}) == {"GPU": 0.25, "CPU": 1.0}
    options = RayOptions(resources=parse_resources('{"CPU": 2, "GPU": 0.5, "node_b": 1}')).actor_options()
    assert options == {"num_cpus": 2.0, "num_gpus": 0.5, "resources": {"node_b": 1.0}}
    assert make_backend("local", BackendFlags(workers=3)) == LocalBackend(3)
    assert RayBackend(2, RayOptions()).where() == "ray (a local instance)" and LocalBackend().where() == "local"
