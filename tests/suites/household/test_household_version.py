"""The benchmark version: datasets and runs of a previous world (household/sif-v1 to -v6) are refused, clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from household_data import small_episodes

from heedful.errors import DatasetError, RunError
from heedful.runner import RunSpec, run
from heedful.runner.manifest import MANIFEST_NAME, manifest_digest, run_identity
from heedful.suites.household.suite import SUITE

OLD = "household/sif-v6"


def test_the_calibrated_world_has_a_new_version() -> None:
    assert SUITE.version == "household/sif-v7"


def test_a_dataset_of_the_old_version_is_refused_with_how_to_regenerate(tmp_path: Path) -> None:
    episodes = list(small_episodes())
    SUITE.save_dataset(episodes, tmp_path / "ds", {"seed": 5})
    assert len(SUITE.load_dataset(tmp_path / "ds")) == len(episodes)  # its own version loads
    summary = tmp_path / "ds" / "dataset.json"
    data = json.loads(summary.read_text())
    summary.write_text(json.dumps({**data, "version": OLD}))
    expected = rf"holds {OLD} episodes, but this heedful runs household/sif-v7 .*heedful generate household"
    with pytest.raises(DatasetError, match=expected):
        SUITE.load_dataset(tmp_path / "ds")
    with pytest.raises(DatasetError, match=expected):
        SUITE.load_dataset(tmp_path / "ds" / "episodes.jsonl")
    (tmp_path / "mine.jsonl").write_text((tmp_path / "ds" / "episodes.jsonl").read_text())
    assert len(SUITE.load_dataset(tmp_path / "mine.jsonl")) == len(episodes)  # no summary, no version


def test_resuming_a_run_of_the_old_version_is_refused(tmp_path: Path) -> None:
    episodes = list(small_episodes())
    spec = RunSpec(
        suite="household",
        suite_version=SUITE.version,
        dataset_hash=SUITE.dataset_hash(episodes),
        dataset_source="generated:seed=5",
        agent="oracle",
        seed=0,
        limit=1,
    )
    run(spec, episodes, tmp_path / "run", progress=False)
    manifest = tmp_path / "run" / MANIFEST_NAME
    stored = json.loads(manifest.read_text())
    stored["spec"]["suite_version"] = OLD  # as a run made before the recalibration recorded it
    old_spec = spec.model_copy(update={"suite_version": OLD})
    stored["run_identity"] = run_identity(old_spec)  # identified and sealed as heedful did it then
    stored["manifest_digest"] = manifest_digest(stored)
    manifest.write_text(json.dumps(stored))
    with pytest.raises(RunError, match=rf"holds a {OLD} run, but this heedful runs household/sif-v7 .*another --out"):
        run(spec.model_copy(update={"limit": 2}), episodes, tmp_path / "run", resume=True, progress=False)
