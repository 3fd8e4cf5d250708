"""The `ray` backend (`heedful.runner.backend`): its options, parsed and checked before the run directory is touched.

The backend runs on a Ray cluster (`heedful.runner.ray_backend`). This module never imports ray, so a bad flag, a
missing install or an unreachable address is one typed error before anything is written.
"""

from __future__ import annotations

import importlib.util
import json
import math
import socket
from collections.abc import Generator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from heedful.errors import ConfigError, MissingDependencyError, RunError
from heedful.records import Record
from heedful.runner.backend import BackendFlags
from heedful.runner.rollouts import Work

INSTALL_HINT = "pip install 'heedful[ray]'"
CONNECT_TIMEOUT_S = 5.0
"""How long a probe of `--address` waits: ray itself retries an unreachable cluster for minutes."""
DEFAULT_PORTS = {"ray": 10001, "gcs": 6379}
START_HINT = (
    "start a cluster with `ray start --head` on its first machine (and `ray start --address HEAD:6379` on the "
    "others), then pass --address HEAD:6379 (or --address auto on one of its machines, or ray://HEAD:10001 for a "
    "Ray client server); without --address heedful starts a Ray instance on this machine"
)


@dataclass(frozen=True)
class RayOptions:
    """Where and how the Ray backend runs.

    `address` is None to start a Ray instance on this machine, else `auto`, `HOST:PORT` (the cluster's GCS) or
    `ray://HOST:PORT` (a Ray client server). `resources` is what each worker actor reserves (Ray's `CPU`, `GPU`
    and custom resource names; CPU defaults to 1).
    """

    address: str | None = None
    resources: dict[str, float] = field(default_factory=lambda: {"CPU": 1.0})

    def actor_options(self) -> dict[str, Any]:
        """The `ray.remote(...).options(...)` keywords that reserve `resources` for one worker actor."""
        custom = {k: v for k, v in self.resources.items() if k not in ("CPU", "GPU")}
        options: dict[str, Any] = {"num_cpus": self.resources.get("CPU", 1.0)}
        if self.resources.get("GPU"):
            options["num_gpus"] = self.resources["GPU"]
        if custom:
            options["resources"] = custom
        return options


@dataclass(frozen=True)
class RayBackend:
    """`workers` actors on a Ray cluster (`heedful.runner.ray_backend`, which alone imports ray)."""

    workers: int
    options: RayOptions

    @classmethod
    def from_flags(cls, flags: BackendFlags) -> RayBackend:
        """Parse and check `--address` and `--resources` (ray is found, not imported).

        Raises:
            ConfigError: a malformed address or resources, or custom resources for a Ray instance heedful would
                start itself.
            MissingDependencyError: ray is not installed, or a `ray://` address without Ray's client.
            RunError: `address` names a cluster that does not answer.
        """
        address, resources = flags.address, flags.resources
        if importlib.util.find_spec("ray") is None:
            raise MissingDependencyError(f"--backend ray needs ray: {INSTALL_HINT}")
        parsed = parse_resources(resources)
        if address is not None and address.startswith("ray://") and importlib.util.find_spec("grpc") is None:
            raise MissingDependencyError(
                f"--address {address} connects through Ray's client, which needs grpcio: pip install 'ray[client]' "
                "(or pass the head's GCS address, HOST:6379, from a machine of the cluster)"
            )
        if address is not None:
            check_reachable(address)
        elif set(parsed) - {"CPU", "GPU"}:
            raise ConfigError(
                f"--resources {json.dumps(parsed)} names custom resources, which only a cluster started with them "
                "has; start one (`ray start --head --resources '{...}'`) and pass --address"
            )
        return cls(flags.workers, RayOptions(address=address, resources=parsed))

    @property
    def in_this_process(self) -> bool:
        return False

    def where(self) -> str:
        return f"ray ({self.options.address or 'a local instance'})"

    def execute(self, work: Work) -> Generator[list[Record], None, None]:
        """Run `work` on the actors, yielding records in batches as chunks finish (see `ray_backend.ray_execute`)."""
        from heedful.runner.ray_backend import ray_execute  # imports ray: only for runs that ask for it

        return ray_execute(work, self.workers, self.options)

    def session(self) -> AbstractContextManager[None]:
        """Connect (or start a local Ray instance) for the whole block (`ray_backend.ray_session`)."""
        from heedful.runner.ray_backend import ray_session

        return ray_session(self.options, self.workers)


def parse_resources(resources: str | Mapping[str, Any] | None) -> dict[str, float]:
    """`{"CPU": 1}`-style resources per worker, from JSON text or a mapping (CPU defaults to 1).

    Raises:
        ConfigError: not a JSON object of names to finite non-negative numbers.
    """
    example = """e.g. '{"CPU": 1}' or '{"CPU": 1, "GPU": 0.25}'"""
    value: Any = resources
    if isinstance(resources, str):
        try:
            value = json.loads(resources)
        except json.JSONDecodeError as err:
            raise ConfigError(f"--resources {resources!r} is not JSON ({err.msg}); {example}") from err
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"--resources must be a JSON object of resource names to amounts, {example}")
    parsed: dict[str, float] = {}
    for name, amount in value.items():
        number = amount if isinstance(amount, int | float) and not isinstance(amount, bool) else None
        if not isinstance(name, str) or not name or number is None or not math.isfinite(number) or number < 0:
            raise ConfigError(f"--resources: {name!r}: {amount!r} is not a non-negative amount; {example}")
        parsed[name] = float(number)
    parsed.setdefault("CPU", 1.0)
    return parsed


def check_reachable(address: str) -> None:
    """Fail fast, naming `address`, when no Ray cluster listens there (`auto` is left to ray, which fails fast).

    Raises:
        ConfigError: `address` is not `auto`, `HOST:PORT` or `ray://HOST:PORT`.
        RunError: nothing accepts a connection at `address`.
    """
    if address == "auto":
        return
    client = address.startswith("ray://")
    rest = address.removeprefix("ray://")
    host, _, port_text = rest.rpartition(":")
    if not host:
        host, port_text = rest, str(DEFAULT_PORTS["ray" if client else "gcs"])
    if not host or not port_text.isdigit() or "/" in host:
        raise ConfigError(
            f"--address {address!r} is not a Ray address; use auto, HOST:PORT (the head's GCS, port 6379 by "
            "default) or ray://HOST:10001"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port_text)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise RunError(f"no Ray cluster answers at --address {address} ({reason}); {START_HINT}") from err
