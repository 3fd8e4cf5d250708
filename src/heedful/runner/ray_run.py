"""The `ray` backend (`heedful.runner.backend`): `--workers` actors on a Ray cluster.

Its flags are parsed and checked here (`heedful.runner.ray_options`) before the run directory is touched; the driver
(`heedful.runner.ray_backend`, which alone imports ray) is imported only when a run executes on it.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Generator
from contextlib import AbstractContextManager
from dataclasses import dataclass

from heedful.errors import ConfigError, MissingDependencyError
from heedful.records import Record
from heedful.runner.backend import BackendFlags
from heedful.runner.ray_options import INSTALL_HINT, RayOptions, check_reachable, parse_resources
from heedful.runner.rollouts import Work


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

    on_this_machine = False

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
