"""A pool of policy servers: the `remote` controller spread over several servers, one episode in flight on each.

    AGENTS.register("tabletop/remote-pool", "heedful.remote.pool:RemotePoolAgent")
    evaluate(suite="tabletop", agent="remote-pool", agent_args={"urls": ["ws://a:8000", "ws://b:8000"]}, ...)

The pool declares `concurrency = len(urls)`, so the runner keeps that many rollouts in flight (in threads of one
process: run it with one worker, the servers are the parallelism). Each episode checks out a free server for the
whole episode: a policy server may keep state between requests, so an episode never moves to another server once
it has sent a request. A server that cannot be reached when an episode starts (after `connect_retries`, as for
`remote`) sits out a cool-down and the episode starts on another one; nothing was sent yet, so that is safe.
A server that fails mid-episode (an error reply, a closed connection, no reply in time) fails that episode
(`interface_error` / `timeout`, run again by `--resume`) and sits out a cool-down (COOL_DOWN_S, doubled after each
further failure in a row); only PERSISTENT_FAILURES failures in a row take it out of rotation for the run, so a
transient fault never leaves the pool without servers. With every server out, episodes fail with the reasons.

The servers must serve one policy: their metadata digests are compared before the run and a pool whose servers
report different metadata is refused. Records do not depend on which server ran an episode but name it
(`agent_info.server`); the manifest counts each server's episodes, failures and why it left rotation (`servers`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import AgentInterfaceError, AgentTimeoutError, ConfigError
from heedful.extras import needs
from heedful.remote.agent import RemoteAgent
from heedful.requirements import Requirement

WAIT_S = 0.5
"""How often an episode waiting for a free server checks that some server is still in rotation."""
COOL_DOWN_S = 2.0
"""How long a server that failed sits out before it gets another episode; doubled after each failure in a row."""
MAX_COOL_DOWN_S = 60.0
PERSISTENT_FAILURES = 3
"""Failures in a row (no finished episode between them) that take a server out of rotation for the run."""


class RemotePoolAgent:
    """The `remote` controller over several policy servers (see the module).

    Args:
        urls: The servers, ws://HOST:PORT each, serving the same policy.
        **remote_args: Everything else `RemoteAgent` takes (replan, adapter, timeouts, retries, adapter arguments).
    """

    name = "remote-pool"

    @staticmethod
    def requirements(agent_args: dict[str, Any]) -> tuple[Requirement, ...]:
        """openpi-client and its transport."""
        return needs("openpi_client", "websockets", "msgpack")

    session_args = ("connect_timeout", "request_timeout", "connect_retries", "api_key_env")  # not urls: see RemoteAgent

    def __init__(
        self,
        *,
        urls: Sequence[str],
        replan: int = 5,
        adapter: str = "libero",
        connect_timeout: float = 30.0,
        request_timeout: float = 120.0,
        connect_retries: int = 2,
        **remote_args: Any,
    ) -> None:
        # the command-line flags are named in the signature (heedful run checks them against it); the rest, as
        # episode_info, api_key_env and the adapter's arguments, go to `RemoteAgent` as they are
        if isinstance(urls, str) or not isinstance(urls, Sequence) or not urls:
            raise ConfigError(f"urls must be a non-empty list of ws://HOST:PORT addresses, got {urls!r}")
        if len(set(urls)) != len(urls):
            raise ConfigError(f"urls lists a server twice: {list(urls)!r}; one slot per server")
        if {"url", "host", "port"} & set(remote_args):
            raise ConfigError("give a pool's servers as urls=[...], not url / host / port")
        remote_args |= {
            "replan": replan,
            "adapter": adapter,
            "connect_timeout": connect_timeout,
            "request_timeout": request_timeout,
            "connect_retries": connect_retries,
        }
        self.members = [RemoteAgent(url=url, **remote_args) for url in urls]
        self.concurrency = len(self.members)
        self.cameras = self.members[0].cameras
        self.out_of_rotation: dict[str, str] = {}
        self.counts = {member.url: {"episodes": 0, "failed": 0, "in_a_row": 0} for member in self.members}
        self.cool_until = {member.url: 0.0 for member in self.members}
        self.cool_down_s = COOL_DOWN_S
        self._free: queue.Queue[RemoteAgent] = queue.Queue()
        for member in self.members:
            self._free.put(member)
        self._local = threading.local()
        self._lock = threading.Lock()

    # --- the controller protocol, routed to this episode's server --------------------------------------------

    @property
    def privileged(self) -> bool:
        """Whether any server gets the trial's ground truth (see `RemoteAgent.privileged`)."""
        return any(member.privileged for member in self.members)

    def begin_trial(self, trial: Any | None, seed: int) -> None:
        self._local.trial = (trial, seed)
        self._checkout().begin_trial(trial, seed)

    def reset(self) -> None:
        """Start an episode on a server that answers, taking the ones that do not out of rotation."""
        member = self._held() or self._checkout()
        while True:
            try:
                member.reset()
                return
            except AgentInterfaceError as exc:  # no connection: nothing was sent, the episode may move
                self._failed(member, str(exc))
            member = self._checkout()
            trial = getattr(self._local, "trial", None)
            if trial is not None:
                member.begin_trial(*trial)

    def set_instruction(self, instruction: str) -> None:
        self._current().set_instruction(instruction)

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        """The episode's server's actions; a server that fails (error reply, closed connection, no reply in time)
        fails this episode and leaves rotation, so the next episodes go to the others."""
        member = self._current()
        try:
            return member.predict(observation)
        except (AgentInterfaceError, AgentTimeoutError) as exc:
            self._failed(member, str(exc).splitlines()[0])
            raise

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        """The episode's report from its server, which is then free for the next episode."""
        member = self._current()
        report = member.trial_report()
        with self._lock:
            self.counts[member.url]["episodes"] += 1
            self.counts[member.url]["in_a_row"] = 0
        self._release()
        return report

    # --- run bookkeeping -----------------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The manifest's description: every server's, connecting to each (an unreachable one leaves rotation).

        Raises:
            AgentInterfaceError: no server can be reached (the run stops before it starts).
        """
        described: dict[str, Any] = {}
        for member in self.members:
            try:
                described[member.url] = member.describe()
            except AgentInterfaceError as exc:
                self._failed(member, str(exc))
        if not described:
            raise AgentInterfaceError(f"no policy server of the pool can be reached: {self._reasons()}")
        digests = {url: d.get("server_metadata_sha256") for url, d in described.items()}
        if len(set(digests.values())) > 1:
            listed = "; ".join(f"{url}: {digest}" for url, digest in digests.items())
            raise ConfigError(
                f"the servers of the pool report different policies (metadata {listed}): part of the run would be "
                "answered by another policy; give servers that serve the same one"
            )
        first = next(iter(described.values()))
        return {
            **first,
            "name": self.name,
            "url": None,
            "urls": [member.url for member in self.members],
            "out_of_rotation": dict(self.out_of_rotation),
        }

    def server_counts(self) -> dict[str, dict[str, Any]]:
        """Per server: the episodes it finished, its failures, and why it is out of rotation (None: it is not)."""
        with self._lock:
            out = self.out_of_rotation
            return {
                url: {"answered": c["episodes"], "failed": c["failed"], "out_of_rotation": out.get(url)}
                for url, c in self.counts.items()
            }

    def close(self) -> None:
        for member in self.members:
            member.close()

    # --- checking servers out and in ----------------------------------------------------------------------

    def _held(self) -> RemoteAgent | None:
        member: RemoteAgent | None = getattr(self._local, "member", None)
        return member

    def _current(self) -> RemoteAgent:
        member = self._held()
        if member is None:
            raise AgentInterfaceError("no policy server holds this episode (reset was not called)")
        return member

    def _checkout(self) -> RemoteAgent:
        """A free server in rotation for this thread's episode (the one it held before goes back first)."""
        self._release()
        while True:
            try:
                member = self._free.get(timeout=WAIT_S)
            except queue.Empty:
                with self._lock:
                    if len(self.out_of_rotation) == len(self.members):
                        raise AgentInterfaceError(
                            f"every policy server of the pool is out of rotation: {self._reasons()}"
                        ) from None
                continue
            if member.url in self.out_of_rotation:
                continue
            wait = self.cool_until[member.url] - time.monotonic()
            if wait > 0:  # cooling down: back in the queue, and this episode waits for another server a moment
                self._free.put(member)
                time.sleep(min(wait, WAIT_S / 5))
                continue
            self._local.member = member
            return member

    def _release(self) -> None:
        member = self._held()
        self._local.member = None
        if member is not None and member.url not in self.out_of_rotation:
            self._free.put(member)

    def _failed(self, member: RemoteAgent, reason: str) -> None:
        """A failure of `member`: a cool-down, doubled for each failure in a row; out of rotation after
        PERSISTENT_FAILURES in a row."""
        with self._lock:
            counts = self.counts[member.url]
            counts["failed"] += 1
            counts["in_a_row"] += 1
            if counts["in_a_row"] >= PERSISTENT_FAILURES:
                self.out_of_rotation[member.url] = f"{counts['in_a_row']} failures in a row; last: {reason}"
            pause = min(MAX_COOL_DOWN_S, self.cool_down_s * 2 ** (counts["in_a_row"] - 1))
            self.cool_until[member.url] = time.monotonic() + pause
        if self._held() is member:
            self._local.member = None
            if member.url not in self.out_of_rotation:
                self._free.put(member)
        member.link.drop()

    def _reasons(self) -> str:
        return "; ".join(f"{url}: {reason}" for url, reason in self.out_of_rotation.items())
