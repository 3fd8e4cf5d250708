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
    assert "cannot serve 'remote'" in capsys.readouterr().err
    assert main(["serve", "--agent", "orcle", "--port", "0"]) == 2
    assert "did you mean 'oracle'" in capsys.readouterr().err


USER_CONTROLLER = '''
import numpy as np


class Wander:
    """Moves by the control step and logs what it is told to steps.log (in the directory it runs in)."""

    name = "wander"

    def reset(self):
        self.log("reset")

    def set_instruction(self, instruction):
        self.log(f"instruction {instruction}")

    def predict(self, observation):
        step = observation["step"]
        self.log(f"step {step} state {observation['state'].shape}")
        actions = np.zeros((5, 7))
        actions[:, 0] = 0.6 if (step // 40) % 2 == 0 else -0.6
        actions[:, 6] = -1.0
        return actions

    def log(self, line):
        with open("steps.log", "a") as file:
            file.write(line + "\\n")
'''


def test_own_controller_served_from_the_start_directory_is_told_what_it_is_told_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served_dir, here_dir = tmp_path / "served", tmp_path / "here"
    for directory in (served_dir, here_dir):
        directory.mkdir()
        (directory / "h45_wander.py").write_text(USER_CONTROLLER)
    server = ServeProcess("h45_wander:Wander", cwd=served_dir)
    flags = ["--level", "L0", "--trials", "1", "--limit", "1", "--no-progress"]
    try:
        args = ["run", "tabletop", "--agent", "remote", "--port", str(server.port), *flags]
        assert main([*args, "--out", str(tmp_path / "served-run")]) == 0
    finally:
        code, rest = server.stop()
    assert code == 0 and "stopped after" in rest
    monkeypatch.chdir(here_dir)
    assert main(["run", "tabletop", "--agent", "h45_wander:Wander", *flags, "--out", str(tmp_path / "here-run")]) == 0
    (served,), (here,) = load_run(tmp_path / "served-run")[1], load_run(tmp_path / "here-run")[1]
    assert served.status == here.status == "ok" and served.scores == here.scores
    told = (served_dir / "steps.log").read_text()
    assert told == (here_dir / "steps.log").read_text() and told.count("step ") > 10
