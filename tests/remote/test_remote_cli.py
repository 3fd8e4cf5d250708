"""`heedful serve` in its own process and `heedful run tabletop --agent remote` against it (issue 8's
acceptance check), and the command lines' usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from remote_doubles import ServeProcess

from heedful.cli.main import main
from heedful.runner import load_run

pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")


@pytest.mark.slow
def test_served_oracle_scores_full_marks_on_level_0_of_scene_1_through_the_network(tmp_path: Path) -> None:
    server = ServeProcess("oracle")
    try:
        out = tmp_path / "run"
        args = ["run", "tabletop", "--agent", "remote", "--port", str(server.port), "--level", "L0", "--trials", "1"]
        # scene 1 (spatial relations): 16 trials through the network (the expert solves every task of every
        # level in-process: test_tabletop_suite_expert.py; served trials equal in-process ones: test_remote_agent)
        assert main([*args, "--scene", "1", "--out", str(out), "--no-progress"]) == 0
    finally:
        code, rest = server.stop()
    assert code == 0 and "stopped after" in rest
    manifest, records = load_run(out)
    assert manifest.counts == {"ok": 16} and manifest.agent["url"] == f"ws://127.0.0.1:{server.port}"
    for record in records:
        assert record.correct and record.scores["intent"] == record.scores["execution"] == 1.0, record.episode_id
        assert record.agent_info["episode_info_sent"] is True


def test_remote_flags_belong_to_the_remote_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "tabletop", "--agent", "oracle", "--port", "8000", "--out", str(tmp_path / "r")]) == 2
    assert "--port is an option of remote policies" in capsys.readouterr().err
    args = ["run", "tabletop", "--agent", "remote", "--url", "ws://127.0.0.1:1", "--agent-arg", "url=ws://x:2"]
    assert main([*args, "--out", str(tmp_path / "r")]) == 2
    assert "--url and --agent-arg url=... both set url" in capsys.readouterr().err


def test_serve_refuses_an_agent_it_cannot_serve(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--agent", "remote", "--port", "0"]) == 2
    assert "serves tabletop planner agents (oracle, blind); 'remote' is not one" in capsys.readouterr().err
    assert main(["serve", "--agent", "orcle", "--port", "0"]) == 2
    assert "did you mean 'oracle'" in capsys.readouterr().err
