"""`--agent MODULE:CLASS`: the README's in-process controller runs as written, and a wrong name is named."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from heedful.cli import main
from heedful.runner import load_run

ROOT = Path(__file__).resolve().parents[2]


def _readme_policy() -> str:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # the README and the pages it links
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    found = re.search(r"```python\n# mypolicy.py\n(.*?)```", text, re.DOTALL)
    assert found, "the documentation's mypolicy.py example is gone"
    return found.group(1)


def test_the_readme_controller_runs_from_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mypolicy.py").write_text(_readme_policy(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    args = ["run", "tabletop", "--agent", "mypolicy:MyPolicy", "--level", "L0", "--trials", "1", "--limit", "2"]
    assert main([*args, "--out", "runs/mine", "--no-progress"]) == 0
    manifest, records = load_run(tmp_path / "runs" / "mine")
    assert manifest.spec.agent == "mypolicy:MyPolicy" and [r.status.value for r in records] == ["ok", "ok"]
    assert all(r.scores["acting_steps"] == r.prediction["steps"] for r in records)  # acted to the horizon
    capsys.readouterr()
    assert main([*args, "--out", "runs/x", "--agent", "mypolicy:MyPolcy"]) == 2
    assert "did you mean 'MyPolicy'" in capsys.readouterr().err
    assert main([*args, "--out", "runs/x", "--agent", "nosuchmodule:X"]) == 2
    assert "cannot import 'nosuchmodule'" in capsys.readouterr().err
    assert sys.path == before  # the current directory was on the path for the import only
    (tmp_path / "broken.py").write_text("import nosuchdependency\n", encoding="utf-8")
    assert main([*args, "--out", "runs/x", "--agent", "broken:X"]) == 2
    assert "importing 'broken' failed: No module named 'nosuchdependency'" in capsys.readouterr().err
    monkeypatch.delitem(sys.modules, "mypolicy")
