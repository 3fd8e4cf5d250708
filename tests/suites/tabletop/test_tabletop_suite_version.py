"""Issue 38 changed what every tabletop score means: runs of the previous version are refused on resume, by name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from heedful.errors import RunError
from heedful.runner import RunSpec, run
from heedful.suites.tabletop import suite as suite_module
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.suite import SUITE

OLD = "tabletop/robofollow-v1"


def test_resuming_a_run_scored_by_the_old_rules_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    with monkeypatch.context() as before:  # the heedful of before issue 38 made this run
        before.setattr(suite_module, "SUITE", replace(SUITE, version=OLD))  # what the registry hands the run
        run(spec.model_copy(update={"suite_version": OLD}), trials, tmp_path / "run", progress=False)
    with pytest.raises(RunError, match=rf"holds a {OLD} run, but this heedful runs tabletop/robofollow-v2"):
        run(spec, trials, tmp_path / "run", resume=True, progress=False)
