"""The `remote` agent end to end against heedful's real policy server: the served oracle and blind agents
reproduce their in-process trials exactly; records and manifest carry metadata and timing; replan and
adapters do what they say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from heedful.api import evaluate
from heedful.errors import AgentInterfaceError, ConfigError
from heedful.remote.adapters import LiberoAdapter, action_chunk
from heedful.remote.agent import RemoteAgent
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.server import PolicyServer
from heedful.runner import load_run

pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")

OPTIONS = {"level": ["L0"], "scene": [1], "trials": 1}
IGNORED = {"calls", "acting_steps"}  # a planner's calls vs a controller acting to the horizon


def run(agent: str, out: Path, limit: int, **agent_args: Any) -> list[Any]:
    evaluate(
        suite="tabletop",
        agent=agent,
        agent_args=agent_args,
        out=out,
        options=OPTIONS,
        limit=limit,
        order="file",
        progress=False,
    )
    return load_run(out)[1]


def outcome(record: Any) -> tuple[Any, ...]:
    scores = {k: v for k, v in record.scores.items() if k not in IGNORED}
    prediction = {k: v for k, v in record.prediction.items() if k not in IGNORED}
    return record.episode_id, record.status, scores, prediction


@pytest.mark.parametrize(("agent", "limit"), [("oracle", 3), ("blind", 6)])
def test_a_served_agent_reproduces_its_in_process_trials_exactly(agent: str, limit: int, tmp_path: Path) -> None:
    local = run(agent, tmp_path / "local", limit)
    with PolicyServer(MirrorPolicy(agent), port=0) as server:
        remote = run("remote", tmp_path / "remote", limit, url=server.url)
    assert [outcome(r) for r in remote] == [outcome(r) for r in local]
    if agent == "oracle":
        assert all(r.scores["intent"] == r.scores["execution"] == 1.0 for r in remote)
    else:  # the blind agent's branch is drawn per trial: the check covers failures, not only full marks
        assert len({r.scores["intent"] for r in remote}) > 1


def test_records_and_manifest_carry_server_metadata_and_timing(tmp_path: Path, oracle_server: PolicyServer) -> None:
    records = run("remote", tmp_path / "run", 1, url=oracle_server.url)
    manifest = load_run(tmp_path / "run")[0]
    served = manifest.agent["server_metadata"]
    assert served["policy"] == "heedful tabletop/oracle (served by heedful serve)" and served["action_horizon"] == 10
    assert manifest.agent["client"].startswith("openpi-client ") and manifest.agent["episode_info_requested"]
    (record,) = records
    assert record.agent_info["requests"] == 180 // 5 and record.agent_info["episode_info_sent"] is True
    assert record.agent_info["server"] == oracle_server.url  # the record names who answered, by metadata digest
    assert record.agent_info["server_metadata_sha256"] == manifest.agent["server_metadata_sha256"]
    for key in ("remote_roundtrip_ms_mean", "server_infer_ms_mean", "server_prev_total_ms_max", "wall_s"):
        assert record.timing[key] > 0
    assert record.timing["remote_roundtrip_ms_mean"] >= record.timing["server_infer_ms_mean"]


def test_replan_sets_how_many_actions_of_each_chunk_run(tmp_path: Path, oracle_server: PolicyServer) -> None:
    (record,) = run("remote", tmp_path / "run", 1, url=oracle_server.url, replan=10)
    assert record.agent_info["requests"] == 180 // 10 and record.scores["execution"] == 1.0


def test_a_user_adapter_shapes_what_is_sent_and_what_is_done(tmp_path: Path, oracle_server: PolicyServer) -> None:
    # remote_doubles:ScaledAdapter leaves the wrist camera out and multiplies the actions.
    same = run("remote", tmp_path / "a", 1, url=oracle_server.url, adapter="remote_doubles:ScaledAdapter", scale=1.0)
    frozen = run("remote", tmp_path / "b", 1, url=oracle_server.url, adapter="remote_doubles:ScaledAdapter", scale=0.0)
    assert same[0].scores["execution"] == 1.0
    assert frozen[0].status == "ok" and frozen[0].scores["intent"] == 0.0  # valid actions: the policy's own failure
    assert load_run(tmp_path / "a")[0].agent["cameras"] == ["agentview"]


def test_the_libero_adapter_uses_its_keys_and_image_size() -> None:
    image = np.full((224, 224, 3), 7, np.uint8)
    obs = {"image": image, "wrist_image": image, "state": np.arange(8.0), "prompt": "go", "step": 3}
    wire = LiberoAdapter().observation(obs)
    assert sorted(wire) == ["observation/image", "observation/state", "observation/wrist_image", "prompt"]
    assert wire["observation/image"].shape == (224, 224, 3) and wire["observation/image"].dtype == np.uint8
    small = LiberoAdapter(image_key="cam", wrist_image_key=None, prompt_key="task", image_size=[128, 96])
    wire = small.observation(obs)
    assert sorted(wire) == ["cam", "observation/state", "task"] and wire["cam"].shape == (128, 96, 3)
    assert small.cameras == ("agentview",)
    with pytest.raises(AgentInterfaceError, match="no 'actions' entry"):
        small.actions({"action": [0.0] * 7})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (np.zeros((5, 6)), "expected"),
        (np.zeros((0, 7)), "expected"),
        (np.zeros((2, 5, 7)), "expected"),
        (np.array([["a"] * 7]), "dtype"),
        ("0 0 0 0 0 0 0", "not an array"),
        (np.array([[0, 0, np.inf, 0, 0, 0, 1]]), "1 non-finite entries"),
    ],
)
def test_action_chunks_are_checked(raw: Any, message: str) -> None:
    with pytest.raises(AgentInterfaceError, match=message):
        action_chunk(raw)


def test_good_action_chunks_become_writable_float64() -> None:
    one = np.frombuffer(np.arange(7, dtype=np.float32).tobytes(), dtype=np.float32)  # read-only, like a decoded reply
    chunk = action_chunk(one)
    assert chunk.shape == (1, 7) and chunk.dtype == np.float64 and chunk.flags.writeable


def test_remote_agent_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="not both"):
        RemoteAgent(url="ws://127.0.0.1:1", port=2)
    with pytest.raises(ConfigError, match="replan"):
        RemoteAgent(replan=0)
    with pytest.raises(ConfigError, match="episode_info"):
        RemoteAgent(episode_info="sometimes")
    with pytest.raises(ConfigError, match="did you mean 'image_size'"):
        RemoteAgent(image_sise=128)
    with pytest.raises(ConfigError, match=r"unknown adapter 'libro'.*did you mean 'libero'"):
        RemoteAgent(adapter="libro")
    with pytest.raises(ConfigError, match="cannot load adapter"):
        RemoteAgent(adapter="no_such_module:Adapter")
    with pytest.raises(ConfigError, match="HEEDFUL_NO_SUCH_KEY"):
        RemoteAgent(api_key_env="HEEDFUL_NO_SUCH_KEY")
    assert RemoteAgent(host="10.0.0.2").url == "ws://10.0.0.2:8000"  # nothing connects before an episode
