"""Dynamic batching for a policy server: the requests of all connected clients answered by one batched call.

    PolicyServer(BatchingPolicy(my_policy, max_batch=32, max_wait_ms=5.0), port=8000)
    heedful serve --agent oracle --max-batch 32 --max-wait-ms 5

`PolicyServer` gives each connection its own thread, which calls `infer(obs)`; the wrapper queues the observation
and blocks. One dispatcher thread takes the queue as a batch once it holds `max_batch` observations or its oldest
has waited `max_wait_ms` (vla-evaluation-harness's server does the same), and answers the batch with the policy's
`infer_batch(observations) -> replies` (one reply dict per observation), or, for a policy without it, with `infer`
on each in turn. A failing batch is asked again one observation at a time, so an error stays the request's that
caused it (its client gets the traceback, as without batching). The reply's `server_timing.infer_ms` then includes
the time the request waited for its batch; `batch_size` says how many requests the call answered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from heedful.errors import ConfigError
from heedful.threads import inherit_torch_threads


@dataclass
class _Request:
    observation: dict[str, Any]
    arrived: float
    reply: dict[str, Any] | None = None
    error: BaseException | None = None
    done: bool = False


class BatchingPolicy:
    """`policy` behind a dynamic batcher (see the module docstring).

    Args:
        policy: Has `infer(obs) -> dict`, and ideally `infer_batch(observations) -> list[dict]`.
        max_batch: The most observations one call answers.
        max_wait_ms: How long the oldest queued observation waits for others before its batch goes.
    """

    def __init__(self, policy: Any, max_batch: int = 32, max_wait_ms: float = 5.0) -> None:
        if not isinstance(max_batch, int) or isinstance(max_batch, bool) or max_batch < 1:
            raise ConfigError(f"--max-batch must be a positive integer, got {max_batch!r}")
        if not max_wait_ms >= 0:
            raise ConfigError(f"--max-wait-ms must be 0 or more, got {max_wait_ms!r}")
        self.policy = policy
        self.metadata = dict(getattr(policy, "metadata", {}) or {})
        self.max_batch, self.max_wait_s = max_batch, max_wait_ms / 1000.0
        self.batch_sizes: list[int] = []
        self._queue: list[_Request] = []
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._dispatch, name="heedful-batching", daemon=True)
        self._thread.start()

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The policy's reply to `obs`, answered in a batch with whatever other clients sent meanwhile."""
        request = _Request(obs, time.monotonic())
        with self._cond:
            if self._closed:
                raise RuntimeError("the batching policy is closed")
            self._queue.append(request)
            self._cond.notify_all()
            while not request.done:
                self._cond.wait()
        if request.error is not None:
            raise request.error
        assert request.reply is not None
        return request.reply

    def close(self) -> None:
        """Stop the dispatcher (after the batch in flight)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=10.0)

    def _take(self) -> list[_Request]:
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if self._closed:
                return []
            deadline = self._queue[0].arrived + self.max_wait_s
            while len(self._queue) < self.max_batch and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            return batch

    def _dispatch(self) -> None:
        inherit_torch_threads()  # the policy answers on this thread
        infer_batch = getattr(self.policy, "infer_batch", None)
        while batch := self._take():
            replies = None
            if infer_batch is not None and len(batch) > 1:
                replies = self._answer(infer_batch, [r.observation for r in batch])
            if replies is None:  # one request's failure must not be its batch-mates'
                for request in batch:
                    try:
                        request.reply = self._one(request.observation)
                    except Exception as exc:
                        request.error = exc
            else:
                for request, reply in zip(batch, replies, strict=True):
                    request.reply = reply
            with self._cond:
                self.batch_sizes.append(len(batch))
                for request in batch:
                    if request.reply is not None:
                        request.reply = {**request.reply, "batch_size": len(batch)}
                    request.done = True
                self._cond.notify_all()

    @staticmethod
    def _answer(infer_batch: Any, observations: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
        try:
            replies = [dict(r) for r in infer_batch(list(observations))]
        except Exception:
            return None
        return replies if len(replies) == len(observations) else None

    def _one(self, observation: dict[str, Any]) -> dict[str, Any]:
        return dict(self.policy.infer(observation))
