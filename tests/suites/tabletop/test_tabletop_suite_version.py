"""Issue 38 changed what every tabletop score means: runs of the previous version are refused on resume, by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.errors import RunError
from heedful.runner import RunSpec, run
from heedful.runner.manifest import MANIFEST_NAME
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import TabletopSuite

SUITE = TabletopSuite()
OLD = "tabletop/robofollow-v1"


def test_resuming_a_run_scored_by_the_old_rules_is_refused(tmp_path: Path) -> None:
    assert SUITE.version == "tabletop/robofollow-v2"
    tasks = [t for t in evaluation_tasks() if t.task == "s1_L0_000_pickup"]
    trials = SUITE.episodes_for_run(tasks, {"trials": 1})
    spec = RunSpec(
        suite="tabletop",
        suite_version=SUITE.version,
        dataset_hash=SUITE.dataset_hash(trials),
        dataset_source="generated:seed=0",
        agent="noop",
        seed=0,
        options={"trials": 1},
    )
    run(spec, trials, tmp_path / "run", progress=False)
    manifest = tmp_path / "run" / MANIFEST_NAME
    stored = json.loads(manifest.read_text())
    stored["spec"]["suite_version"] = OLD  # as a run made before issue 38 recorded it
    manifest.write_text(json.dumps(stored))
    with pytest.raises(RunError, match=rf"holds a {OLD} run, but this heedful runs tabletop/robofollow-v2"):
        run(spec, trials, tmp_path / "run", resume=True, progress=False)
