"""A pool of policy servers (`heedful.remote.pool`): records equal one server's, a server that cannot be reached
or fails leaves rotation and the others take its episodes; only an episode in flight on a failing server fails."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from remote_doubles import FaultyPolicyServer

from heedful.api import evaluate
from heedful.cli.main import main
from heedful.errors import AgentInterfaceError, ConfigError
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.pool import RemotePoolAgent
from heedful.remote.server import PolicyServer
from heedful.runner import load_run

pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")

OPTIONS = {"level": ["L0"], "scene": [1], "trials": 1}
LIMIT = 6
EPISODES = {f"s1_L0_{i:03d}_pickup/t0" for i in range(LIMIT)}


def _run(agent: str, out: Path, resume: bool = False, **agent_args: Any) -> Any:
    return evaluate(
        suite="tabletop",
        agent=agent,
        agent_args={"request_timeout": 5.0, "connect_retries": 0, **agent_args},
        out=out,
        options=OPTIONS,
        limit=LIMIT,
        order="file",
        resume=resume,
        progress=False,
    )


def _records(out: Path) -> list[dict[str, Any]]:
    return [r.deterministic_dict() for r in load_run(out)[1]]


def _free_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{sock.getsockname()[1]}"


def test_a_pool_of_two_servers_gives_one_servers_records_and_uses_both(
    tmp_path: Path, oracle_mirror: MirrorPolicy
) -> None:
    with PolicyServer(oracle_mirror, port=0) as a, PolicyServer(oracle_mirror, port=0) as b:
        _run("remote", tmp_path / "one", url=a.url)
        a.requests = 0
        result = _run("remote-pool", tmp_path / "pool", urls=[a.url, b.url])
        used = (a.requests, b.requests)
    assert result.counts == {"ok": LIMIT}
    assert all(n > 0 for n in used), f"requests per server: {used}"  # two episodes in flight, one per server
    assert _records(tmp_path / "pool") == _records(tmp_path / "one")
    assert result.manifest.agent["urls"] == [a.url, b.url] and result.manifest.agent["out_of_rotation"] == {}


def test_an_unreachable_server_leaves_rotation_and_the_other_runs_every_episode(
    tmp_path: Path, oracle_server: PolicyServer
) -> None:
    dead = _free_url()
    result = _run("remote-pool", tmp_path / "pool", urls=[dead, oracle_server.url])
    assert result.counts == {"ok": LIMIT}
    assert list(result.manifest.agent["out_of_rotation"]) == [dead]
    with pytest.raises(AgentInterfaceError, match="no policy server of the pool can be reached"):
        _run("remote-pool", tmp_path / "none", urls=[dead, _free_url()])


def test_a_failing_server_fails_only_its_episode_in_flight_then_leaves_rotation(
    tmp_path: Path, oracle_mirror: MirrorPolicy
) -> None:
    out = tmp_path / "pool"
    with (
        FaultyPolicyServer("close", EPISODES, at_step=20, mirror=oracle_mirror) as bad,
        PolicyServer(oracle_mirror, port=0) as good,
    ):
        first = _run("remote-pool", out, urls=[bad.url, good.url])
    assert bad.faults_done == 1  # out of rotation after its first failure: no second episode went there
    assert first.counts == {"ok": LIMIT - 1, "interface_error": 1}
    failed = [r for r in load_run(out)[1] if r.status.value == "interface_error"]
    assert "closed the connection" in (failed[0].error or "")

    with PolicyServer(oracle_mirror, port=0) as a, PolicyServer(oracle_mirror, port=0) as b:
        second = _run("remote-pool", out, resume=True, urls=[a.url, b.url])
        _run("remote", tmp_path / "one", url=a.url)
    assert second.newly_run == 1 and second.counts == {"ok": LIMIT}
    assert _records(out) == _records(tmp_path / "one")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"urls": []}, "non-empty list"),
        ({"urls": "ws://a:1"}, "non-empty list"),
        ({"urls": ["ws://a:1", "ws://a:1"]}, "lists a server twice"),
        ({"urls": ["ws://a:1"], "port": 8000}, "not url / host / port"),
    ],
)
def test_bad_pools_are_refused(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RemotePoolAgent(**args)


def test_the_command_line_runs_several_url_as_a_pool(
    tmp_path: Path, oracle_mirror: MirrorPolicy, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--level", "L0", "--scene", "1", "--trials", "1", "--limit", str(LIMIT), "--order", "file"]
    flags += ["--request-timeout", "5", "--connect-retries", "0", "--no-progress"]
    with PolicyServer(oracle_mirror, port=0) as a, PolicyServer(oracle_mirror, port=0) as b:
        run = ["run", "tabletop", "--agent", "remote", "--url", a.url]
        assert main([*run, *flags, "--out", str(tmp_path / "one")]) == 0
        assert main([*run, "--url", b.url, *flags, "--out", str(tmp_path / "pool")]) == 0
        assert main([*run, "--url", b.url, *flags, "--workers", "2", "--out", str(tmp_path / "w")]) == 2
        assert "drop --workers" in capsys.readouterr().err
        oracle = ["run", "tabletop", "--agent", "oracle", "--url", a.url, "--url", b.url]
        assert main([*oracle, *flags, "--out", str(tmp_path / "o")]) == 2
        assert "does not take it" in capsys.readouterr().err
    manifest, _ = load_run(tmp_path / "pool")
    assert manifest.spec.agent == "remote-pool" and manifest.spec.agent_args["urls"] == [a.url, b.url]
    assert _records(tmp_path / "pool") == _records(tmp_path / "one")
