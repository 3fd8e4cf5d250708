"""`--limit N` runs a seeded, stratified, proportional sample: a quick run is a small version of the benchmark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from heedful.cli.main import main
from heedful.runner import load_run
from heedful.sampling import sample_positions
from heedful.suites.registry import get_suite


@pytest.fixture(scope="module")
def decisions() -> list:  # type: ignore[type-arg]
    return list(get_suite("decisions").generate(0))


def test_a_larger_limit_extends_a_smaller_one_and_the_seed_decides(decisions: list) -> None:  # type: ignore[type-arg]
    units = get_suite("decisions").sample_units(decisions)
    small, large = sample_positions(units, 40, seed=0), sample_positions(units, 400, seed=0)
    assert set(small) <= set(large) and small == sorted(small)
    assert sample_positions(units, 40, seed=0) == small and sample_positions(units, 40, seed=1) != small


def test_decisions_samples_whole_families_in_proportion_to_category_and_split(decisions: list) -> None:  # type: ignore[type-arg]
    suite = get_suite("decisions")
    chosen = [decisions[i] for i in sample_positions(suite.sample_units(decisions), 400, seed=0)]
    families = Counter(ep.family_id for ep in chosen)
    sizes = Counter(ep.family_id for ep in decisions)
    assert sum(families[f] != sizes[f] for f in families) <= 1  # only the last family may be cut short
    assert len(chosen) == 400
    for key in ("split", "category"):
        full = Counter(getattr(ep, key) for ep in decisions)
        part = Counter(getattr(ep, key) for ep in chosen)
        for value, count in full.items():  # within 3 points of the benchmark's own shares
            assert abs(part[value] / len(chosen) - count / len(decisions)) < 0.03, (key, value)


def test_household_covers_every_split_type_and_clarity_once_the_limit_allows() -> None:
    suite = get_suite("household")
    keys = [("val_seen", "pnp", None)] * 30 + [(s, t, a) for s in "ab" for t in ("s_obj", "s_hum") for a in (1, 0)] * 5
    units = [(f"{s}/{t}/{a}", [i]) for i, (s, t, a) in enumerate(keys)]
    strata = {u[0] for u in units}
    chosen = sample_positions(units, len(strata), seed=0)
    assert {units[i][0] for i in chosen} == strata  # the first file-order run of 9 would be PnP only
    assert suite.sample_strata == "split x task type x clear / ambiguous"


def test_the_cli_samples_by_default_keeps_file_order_on_request_and_resumes_a_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = [f"--set={key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main(["generate", "decisions", "--out", str(tmp_path / "ds"), "--no-progress", *small]) == 0
    run = ["run", "decisions", "--agent", "oracle", "--dataset", str(tmp_path / "ds"), "--no-progress"]
    assert main([*run, "--limit", "8", "--order", "file", "--out", str(tmp_path / "f")]) == 0
    assert [r.index for r in load_run(tmp_path / "f")[1]] == list(range(8))
    assert main([*run, "--limit", "8", "--out", str(tmp_path / "s")]) == 0
    first = {r.episode_id for r in load_run(tmp_path / "s")[1]}
    assert main([*run, "--limit", "16", "--resume", "--out", str(tmp_path / "s")]) == 0
    grown = load_run(tmp_path / "s")[1]
    assert first < {r.episode_id for r in grown} and len(grown) == 16
    assert sorted({r.keys["split"] for r in grown}) != ["train"]
    capsys.readouterr()
    assert main([*run, "--limit", "20", "--order", "file", "--resume", "--out", str(tmp_path / "s")]) == 2
    assert "its --limit sample was drawn in stratified order" in capsys.readouterr().err
