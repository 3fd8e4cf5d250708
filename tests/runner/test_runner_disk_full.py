"""A full disk fails the run with its reason in the manifest; what was committed stays, and --resume completes."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_toy import make_episodes, reference, stored, toy_spec

from heedful.errors import RunError
from heedful.runner import load_run, run
from heedful.runner.store import RunStore

pytestmark = pytest.mark.usefixtures("toy")


def test_a_full_disk_fails_the_run_with_its_reason_and_keeps_what_was_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episodes = make_episodes(400)
    spec = toy_spec(episodes)
    opened = RunStore.__init__

    def small_disk(self: RunStore, run_dir: Path) -> None:
        opened(self, run_dir)
        self._conn.execute("PRAGMA max_page_count = 20")  # a few pages: the disk fills during the run

    monkeypatch.setattr(RunStore, "__init__", small_disk)
    with pytest.raises(RunError, match=r"cannot store records in .*full.*then --resume"):
        run(spec, episodes, tmp_path / "run", progress=False)
    monkeypatch.setattr(RunStore, "__init__", opened)
    manifest, kept = load_run(tmp_path / "run")
    assert manifest.state == "failed" and "database or disk is full" in str(manifest.stop_reason)
    assert 0 < len(kept) < 400
    resumed = run(spec, episodes, tmp_path / "run", resume=True, progress=False)
    assert resumed.counts == {"ok": 400}
    assert stored(tmp_path / "run") == reference(spec, episodes, tmp_path / "ref")
