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
from heedful.errors import AgentInterfaceError, ConfigError, RunError
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.pool import PERSISTENT_FAILURES, RemotePoolAgent
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
    """The records but for the server that answered each (a pool's records name theirs)."""
    records = [r.deterministic_dict() for r in load_run(out)[1]]
    for record in records:
        record["agent_info"].pop("server", None)
    return records


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
    servers = result.manifest.servers or {}
    assert servers[dead]["answered"] == 0 and servers[dead]["failed"] >= 1  # it cooled down, and was tried again
    assert servers[oracle_server.url] == {"answered": LIMIT, "failed": 0, "out_of_rotation": None}
    assert {r.agent_info["server"] for r in load_run(tmp_path / "pool")[1]} == {oracle_server.url}
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
    # a failing server cools down, comes back, and leaves rotation after PERSISTENT_FAILURES in a row
    assert 1 <= bad.faults_done <= PERSISTENT_FAILURES
    assert first.counts == {"ok": LIMIT - bad.faults_done, "interface_error": bad.faults_done}
    assert (first.manifest.servers or {})[bad.url]["failed"] == bad.faults_done
    failed = [r for r in load_run(out)[1] if r.status.value == "interface_error"]
    assert "closed the connection" in (failed[0].error or "")

    with PolicyServer(oracle_mirror, port=bad.port) as a, PolicyServer(oracle_mirror, port=good.port) as b:
        second = _run("remote-pool", out, resume=True, urls=[a.url, b.url])  # the same addresses: its identity
        _run("remote", tmp_path / "one", url=a.url)
    assert second.newly_run == bad.faults_done and second.counts == {"ok": LIMIT}
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


def test_a_pool_of_two_policies_is_refused_and_a_resume_against_another_server_or_policy_too(
    tmp_path: Path, oracle_mirror: MirrorPolicy
) -> None:
    other = {**oracle_mirror.metadata, "policy": "another policy"}
    with PolicyServer(oracle_mirror, port=0) as a, PolicyServer(oracle_mirror, port=0, metadata=other) as b:
        with pytest.raises(ConfigError, match="report different policies"):
            _run("remote-pool", tmp_path / "mixed", urls=[a.url, b.url])
        assert a.requests == b.requests == 0 and not (tmp_path / "mixed" / "manifest.json").exists()
        out = tmp_path / "run"
        evaluate(suite="tabletop", agent="remote", agent_args={"url": a.url}, out=out, options=OPTIONS, limit=1,
                 progress=False)  # fmt: skip
        with pytest.raises(RunError, match=r"differs from the stored run in agent_args .*'url'"):
            _run("remote", out, resume=True, url=b.url)
        a_port = a.port
    impostor = PolicyServer(oracle_mirror, port=a_port, metadata=other)  # the same address, another policy
    with impostor, pytest.raises(RunError, match="server's metadata differs"):
        evaluate(suite="tabletop", agent="remote", agent_args={"url": impostor.url}, out=out, options=OPTIONS,
                     limit=1, resume=True, progress=False)  # fmt: skip
    assert load_run(out)[0].spec.agent_args["url"] == a.url  # the manifest still names the first server


def test_a_huge_server_metadata_is_stored_once_capped_and_records_refer_to_it(
    tmp_path: Path, oracle_mirror: MirrorPolicy
) -> None:
    huge = {**oracle_mirror.metadata, **{f"key{i}": i for i in range(50_000)}}
    with PolicyServer(oracle_mirror, port=0, metadata=huge) as server:
        evaluate(suite="tabletop", agent="remote", agent_args={"url": server.url}, out=tmp_path / "run",
                 options=OPTIONS, limit=1, progress=False)  # fmt: skip
    manifest, (record,) = load_run(tmp_path / "run")
    assert (tmp_path / "run" / "manifest.json").stat().st_size < 20_000
    kept = manifest.agent["server_metadata"]["heedful/truncated"]
    assert kept["sha256"] == manifest.agent["server_metadata_sha256"] and kept["chars"] > 500_000
    assert record.agent_info["server_metadata_sha256"] == kept["sha256"] and len(record.model_dump_json()) < 5_000
