"""`remote`: a tabletop controller whose actions come from a policy server speaking openpi's protocol.

    heedful run tabletop --agent remote --host 127.0.0.1 --port 8000 [--replan 5] [--adapter libero]

Each request sends the adapter's observation (LIBERO's keys by default: two upright 224x224 uint8 images,
the 8-D state, the instruction as `prompt`); the first `replan` actions of the returned chunk are executed
(LIBERO's evaluation replans every 5), then the next request goes out.

A server error reply, a closed connection, a reply without a valid (T, 7) chunk of finite numbers, or a
connection that cannot be opened ends the episode as `interface_error` (no reply in time: `timeout`), with
the message; the run goes on, and `--resume` runs exactly those episodes again.

Privileged data: heedful's own served agents (`heedful serve`) are protocol test peers that act from the
episode's ground truth, and say so by listing `heedful/episode` under `heedful/needs` in their metadata.
Only then (or with `episode_info="always"`) does a request carry the trial and its seed under
`heedful/episode`; every record says whether it did (`agent_info.episode_info_sent`). Such an agent declares
`privileged` (read once the server's metadata is in, which `describe()` fetches before the run starts), so the
rollout hands it the trial, and the manifest and reports mark it as privileged.
"""

from __future__ import annotations

import os
import time
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import AgentInterfaceError, AgentTimeoutError, ConfigError
from heedful.extras import needs
from heedful.redact import register_secret
from heedful.remote.adapters import action_chunk, load_adapter
from heedful.remote.link import PolicyLink
from heedful.remote.wire import EPISODE_KEY, NEEDS_KEY, jsonable, metadata_summary
from heedful.requirements import Requirement

DEFAULT_PORT = 8000  # openpi's serve_policy.py default
EPISODE_INFO = ("auto", "always", "never")


def _client_version() -> str:
    try:
        return f"openpi-client {version('openpi-client')}"
    except PackageNotFoundError:
        return "openpi-client (not installed)"


class RemoteAgent:
    """A controller backed by a remote policy server (openpi websocket protocol).

    Args:
        url: The server, ws://HOST:PORT (or give host and port).
        host: Server host (default 127.0.0.1).
        port: Server port (default 8000, openpi's).
        replan: Actions executed from each returned chunk before the next request.
        adapter: "libero" or a "module:Class" adapter (see heedful.remote.adapters).
        connect_timeout: Seconds to wait for a connection and the server's metadata.
        request_timeout: Seconds to wait for one reply (a policy's first call may compile: be generous).
        connect_retries: Further connection attempts before an episode is given up.
        episode_info: "auto" sends `heedful/episode` only to servers that ask for it; "always" / "never".
        api_key_env: Environment variable holding an API key for the server (the key is never stored).
        **adapter_args: Keyword arguments of the adapter (LIBERO: image_key, wrist_image_key, state_key,
            prompt_key, action_key, image_size).
    """

    name = "remote"

    @staticmethod
    def requirements(agent_args: dict[str, Any]) -> tuple[Requirement, ...]:
        """openpi-client and its transport."""
        return needs("openpi_client", "websockets", "msgpack")

    # How long to wait may change on --resume; nothing that shapes results may: the server's address is part of the
    # run's identity, and its metadata digest is compared on resume (another policy never answers half a run).
    session_args = ("connect_timeout", "request_timeout", "connect_retries", "api_key_env")

    def __init__(
        self,
        *,
        url: str | None = None,
        host: str | None = None,
        port: int | None = None,
        replan: int = 5,
        adapter: str = "libero",
        connect_timeout: float = 30.0,
        request_timeout: float = 120.0,
        connect_retries: int = 2,
        episode_info: str = "auto",
        api_key_env: str | None = None,
        **adapter_args: Any,
    ) -> None:
        if url is not None and (host is not None or port is not None):
            raise ConfigError("give the policy server as --url or as --host / --port, not both")
        if not isinstance(replan, int) or isinstance(replan, bool) or replan < 1:
            raise ConfigError(f"replan must be a positive integer (actions per request), got {replan!r}")
        if episode_info not in EPISODE_INFO:
            raise ConfigError(f"episode_info must be one of {', '.join(EPISODE_INFO)}, got {episode_info!r}")
        self.url = url or f"ws://{host or '127.0.0.1'}:{DEFAULT_PORT if port is None else port}"
        self.replan = replan
        self.adapter_name = adapter
        self.adapter = load_adapter(adapter, adapter_args)
        self.cameras: tuple[str, ...] = tuple(self.adapter.cameras)
        self.episode_info = episode_info
        api_key = None
        if api_key_env is not None:
            api_key = os.environ.get(api_key_env)
            if not api_key:
                raise ConfigError(f"api_key_env names {api_key_env!r}, but that environment variable is not set")
            register_secret(api_key)  # a server that echoes it must not get it into a record
        self.link = PolicyLink(
            self.url, float(connect_timeout), float(request_timeout), int(connect_retries), api_key=api_key
        )
        self._episode: dict[str, Any] | None = None
        self._instruction = ""
        self._requests = 0
        self._sent_episode = False
        self._asked_for_episode = False
        self._timings: dict[str, list[float]] = {}
        self._digest_of: dict[str, Any] | None = None
        self._digest = ""

    # --- the controller protocol ------------------------------------------------------------------------

    @property
    def privileged(self) -> bool:
        """Whether requests carry the trial's ground truth: `episode_info="always"`, or a server that asked for it
        (known once connected: `describe()` connects before a run starts; kept when the connection drops)."""
        if self._wants_episode():
            self._asked_for_episode = True
        return self._asked_for_episode

    def begin_trial(self, trial: Any | None, seed: int) -> None:
        """Told by the tabletop rollout before each trial (the trial only when this agent is privileged);
        forwarded only to servers that ask (see module)."""
        self._episode = (
            None
            if trial is None
            else {"episode_id": trial.episode_id, "trial": trial.model_dump_json(), "seed": int(seed)}
        )

    def reset(self) -> None:
        """Start an episode: (re)connect if needed and clear the episode's counters."""
        self._requests, self._sent_episode, self._timings = 0, False, {}
        self.link.ensure()

    def set_instruction(self, instruction: str) -> None:
        self._instruction = instruction

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        """Ask the server for a chunk and return its first `replan` actions, shape (<= replan, 7)."""
        wire = self.adapter.observation(observation)
        if self._wants_episode():
            if self._episode is None:
                raise ConfigError("the policy server asks for heedful/episode, but no trial was announced")
            wire[EPISODE_KEY] = {**self._episode, "step": int(observation.get("step", 0))}
            self._sent_episode = True
        start = time.perf_counter()
        where = f"request {self._requests + 1} at step {observation.get('step')}"
        try:
            reply = self.link.infer(wire)
        except (AgentInterfaceError, AgentTimeoutError) as exc:
            raise type(exc)(f"{where}: {exc}") from exc
        self._note("remote_roundtrip_ms", (time.perf_counter() - start) * 1000.0)
        self._requests += 1
        for group in ("server_timing", "policy_timing"):
            for key, value in dict(reply.get(group) or {}).items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    self._note(f"{group.split('_')[0]}_{key}", float(value))
        try:
            chunk = action_chunk(self.adapter.actions(reply))
        except AgentInterfaceError as exc:
            raise AgentInterfaceError(f"{where}: {exc}") from exc
        return chunk[: self.replan]

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        """(agent info, timing) of the episode so far, for its record. Timing holds means and maxima in ms."""
        info = {
            "requests": self._requests,
            "replan": self.replan,
            "episode_info_sent": self._sent_episode,
            "server": self.url,
            "server_metadata_sha256": self._metadata_digest(),  # the manifest holds the metadata itself
        }
        timing: dict[str, float] = {}
        for key, values in self._timings.items():
            timing[f"{key}_mean"] = float(np.mean(values))
            timing[f"{key}_max"] = float(np.max(values))
        return info, timing

    # --- run bookkeeping ---------------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The manifest's description, with the server's metadata (connects; unreachable -> the run stops)."""
        metadata, digest = metadata_summary(self.link.ensure())
        describe = getattr(self.adapter, "describe", None)
        return {
            "name": self.name,
            "url": self.url,
            "client": _client_version(),
            "replan": self.replan,
            "adapter": self.adapter_name,
            "adapter_info": jsonable(describe()) if callable(describe) else {},
            "cameras": list(self.cameras),
            "episode_info": self.episode_info,
            "episode_info_requested": self._wants_episode(),
            "connect_timeout": self.link.connect_timeout,
            "request_timeout": self.link.request_timeout,
            "connect_retries": self.link.connect_retries,
            "server_metadata": metadata,
            "server_metadata_sha256": digest,
        }

    def close(self) -> None:
        self.link.close()

    def _metadata_digest(self) -> str:
        metadata = self.link.metadata
        if self._digest_of is not metadata:  # computed once per connection: a large metadata costs once
            self._digest_of, self._digest = metadata, metadata_summary(metadata)[1]
        return self._digest

    def _wants_episode(self) -> bool:
        if self.episode_info != "auto":
            return self.episode_info == "always"
        needs = self.link.metadata.get(NEEDS_KEY) or ()
        return isinstance(needs, list | tuple) and EPISODE_KEY in needs

    def _note(self, key: str, value: float) -> None:
        self._timings.setdefault(key, []).append(value)
