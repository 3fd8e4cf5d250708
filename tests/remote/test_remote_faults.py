"""Faulty policy servers (test doubles on 127.0.0.1): each failed episode gets its own status and reason, the
run finishes, and `--resume` against a healthy server reruns exactly the failed episodes."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from remote_doubles import FaultyPolicyServer

from heedful.api import evaluate
from heedful.errors import AgentInterfaceError
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.server import PolicyServer
from heedful.runner import load_run

pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")

OPTIONS = {"level": ["L0"], "scene": [1], "trials": 1}
LIMIT = 4  # s1_L0_000 .. 003, pickups of 180 steps
FAULTY = {"s1_L0_001_pickup/t0", "s1_L0_003_pickup/t0"}


def remote_run(url: str, out: Path, resume: bool = False, **args: Any) -> Any:
    agent_args = {"url": url, "request_timeout": 1.0, "connect_retries": 0, **args}
    return evaluate(
        suite="tabletop", agent="remote", agent_args=agent_args, out=out, options=OPTIONS, limit=LIMIT, order="file",
        resume=resume, progress=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("fault", "status", "reason"),
    [
        ("close", "interface_error", "the policy server closed the connection"),
        ("nan", "interface_error", "non-finite entries (at [2, 3]"),
        ("shape", "interface_error", "expected (T, 7)"),
        ("silent", "timeout", "sent no reply within 1 s"),
    ],
)
def test_a_faulty_server_fails_only_its_episodes_and_resume_reruns_exactly_those(
    fault: str, status: str, reason: str, tmp_path: Path, oracle_mirror: MirrorPolicy
) -> None:
    out = tmp_path / "run"
    with FaultyPolicyServer(fault, FAULTY, at_step=20, mirror=oracle_mirror) as bad:
        first = remote_run(bad.url, out)
    assert bad.faults_done == len(FAULTY)  # one faulty request per faulty episode: no resend
    assert first.counts == {"ok": LIMIT - len(FAULTY), status: len(FAULTY)}
    assert first.manifest.state == "finished"
    _, records = load_run(out)
    before = {r.episode_id: r for r in records}
    for episode_id in FAULTY:
        failed = before[episode_id]
        assert failed.status == status and failed.error is not None and reason in failed.error
        assert failed.error.startswith("request 5 at step 20: ")  # replan 5: the fifth request
        assert failed.scores == {} and failed.correct is None  # never scored as the policy's failure
    with PolicyServer(oracle_mirror, port=bad.port) as healthy:  # the same address: the run's identity
        second = remote_run(healthy.url, out, resume=True)
    assert second.newly_run == len(FAULTY) and second.counts == {"ok": LIMIT}
    _, after = load_run(out)
    for record in after:
        if record.episode_id in FAULTY:
            assert record.scores["intent"] == record.scores["execution"] == 1.0 and record.correct
        else:
            assert record == before[record.episode_id]  # untouched, timing included


def test_an_error_reply_from_the_server_is_an_interface_error_with_its_one_line_error(
    tmp_path: Path, oracle_server: PolicyServer
) -> None:
    # Refusing the served oracle its ground truth makes every request fail on the server.
    result = remote_run(oracle_server.url, tmp_path / "run", episode_info="never")
    assert result.counts == {"interface_error": LIMIT}
    _, records = load_run(tmp_path / "run")
    assert all("replied with an error" in r.error and "Traceback" not in r.error for r in records if r.error)
    assert all("needs 'heedful/episode'" in r.error for r in records if r.error)


def test_an_unreachable_server_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(AgentInterfaceError, match=f"could not connect to the policy server at ws://127.0.0.1:{port}"):
        remote_run(f"ws://127.0.0.1:{port}", tmp_path / "run")
    assert not (tmp_path / "run" / "manifest.json").exists()
