"""The options of the `ray` backend (`heedful.runner.ray_run`), parsed and checked before the run directory is touched.

The backend runs on a Ray cluster (`heedful.runner.ray_backend`). This module never imports ray, so a bad flag or an
unreachable address is one typed error before anything is written.
"""

from __future__ import annotations

import json
import math
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from heedful.errors import ConfigError, RunError

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
