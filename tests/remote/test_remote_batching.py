"""Dynamic batching behind heedful's policy server: concurrent clients' requests answered by one batched call,
each reply its own client's, a failing request failing only its own client."""

from __future__ import annotations

import ctypes
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heedful.api import evaluate
from heedful.errors import AgentInterfaceError, ConfigError
from heedful.remote.batching import BatchingPolicy
from heedful.remote.link import PolicyLink
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.server import PolicyServer
from heedful.runner import load_run

pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")


class SlowBatchPolicy:
    """Each call costs 50 ms whatever its size; the reply's actions carry the observation's client and step."""

    def __init__(self) -> None:
        self.metadata = {"policy": "slow-batch"}
        self.sizes: list[int] = []

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        return self.infer_batch([obs])[0]

    def infer_batch(self, observations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        if any(o.get("explode") for o in observations):
            raise ValueError("the policy exploded on purpose")
        self.sizes.append(len(observations))
        time.sleep(0.05)
        return [{"actions": np.full((2, 7), 100.0 * o["client"] + o["step"])} for o in observations]


def _clients(url: str, n: int, steps: int, explode: tuple[int, int] | None = None) -> dict[int, Any]:
    """n clients each sending `steps` requests at once; what each got (its replies' values, or its error)."""
    got: dict[int, Any] = {}

    def client(c: int) -> None:
        link = PolicyLink(url, connect_timeout=10, request_timeout=10, connect_retries=0)
        values = []
        try:
            link.ensure()
            for step in range(steps):
                obs = {"client": c, "step": step, "explode": (c, step) == explode}
                values.append(float(link.infer(obs)["actions"][0, 0]))
            got[c] = values
        except AgentInterfaceError as exc:
            got[c] = exc
        finally:
            link.close()

    threads = [threading.Thread(target=client, args=(c,)) for c in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return got


def test_concurrent_clients_share_batched_calls_and_get_their_own_replies() -> None:
    policy = SlowBatchPolicy()
    batching = BatchingPolicy(policy, max_batch=8, max_wait_ms=20)
    with PolicyServer(batching, port=0) as server:
        got = _clients(server.url, n=6, steps=4)
    batching.close()
    assert got == {c: [100.0 * c + s for s in range(4)] for c in range(6)}
    assert sum(policy.sizes) == 24 and max(policy.sizes) > 1 and len(policy.sizes) < 24


def test_a_failing_request_fails_only_its_own_client() -> None:
    batching = BatchingPolicy(SlowBatchPolicy(), max_batch=8, max_wait_ms=20)
    with PolicyServer(batching, port=0) as server:
        got = _clients(server.url, n=4, steps=3, explode=(1, 1))
    batching.close()
    assert isinstance(got[1], AgentInterfaceError) and "exploded on purpose" in str(got[1])
    assert all(got[c] == [100.0 * c + s for s in range(3)] for c in (0, 2, 3))


def test_the_dispatcher_answers_with_the_thread_count_torch_was_given() -> None:
    # A torch policy that set one thread (bc) would otherwise compute on every core from the dispatcher's thread.
    torch = pytest.importorskip("torch")
    if (os.cpu_count() or 1) < 2 or not hasattr(ctypes.CDLL(None), "omp_get_max_threads"):
        pytest.skip("needs OpenMP (loaded with torch) and two cores to tell one thread from all")
    seen: list[int] = []

    class Counting:
        def __init__(self) -> None:
            self.metadata: dict[str, Any] = {}

        def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
            seen.append(int(ctypes.CDLL(None).omp_get_max_threads()))
            return {"actions": [[0.0] * 7]}

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    batching = BatchingPolicy(Counting(), max_batch=4, max_wait_ms=1.0)
    try:
        batching.infer({"step": 0})
        assert seen == [1]
    finally:
        batching.close()
        torch.set_num_threads(before)


def test_batching_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="--max-batch"):
        BatchingPolicy(SlowBatchPolicy(), max_batch=0)
    with pytest.raises(ConfigError, match="--max-wait-ms"):
        BatchingPolicy(SlowBatchPolicy(), max_wait_ms=-1.0)


def _without_server(out: Path) -> list[dict[str, Any]]:
    """The records but for the server that answered each (a pool's records name theirs)."""
    records = [r.deterministic_dict() for r in load_run(out)[1]]
    for record in records:
        record["agent_info"].pop("server", None)
    return records


def test_a_pool_keeps_episodes_in_flight_on_one_batching_server_with_one_servers_records(
    tmp_path: Path, oracle_mirror: MirrorPolicy
) -> None:
    common: dict[str, Any] = {
        "suite": "tabletop",
        "options": {"level": ["L0"], "scene": [1], "trials": 1},
        "limit": 3,
        "order": "file",
        "progress": False,
    }
    timeouts = {"request_timeout": 10.0, "connect_retries": 0}
    batching = BatchingPolicy(oracle_mirror, max_batch=8, max_wait_ms=50)
    with PolicyServer(oracle_mirror, port=0) as plain, PolicyServer(batching, port=0) as batched:
        evaluate(agent="remote", agent_args={"url": plain.url, **timeouts}, out=tmp_path / "one", **common)
        args = {"urls": [batched.url], "in_flight": 3, **timeouts}
        result = evaluate(agent="remote-pool", agent_args=args, out=tmp_path / "pool", **common)
    batching.close()
    one, pool = (tmp_path / "one", tmp_path / "pool")
    assert result.counts == {"ok": 3} and result.manifest.agent["in_flight"] == 3
    assert _without_server(pool) == _without_server(one)
    assert max(batching.batch_sizes) > 1  # the episodes' requests met in one batch
