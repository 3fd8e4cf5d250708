"""Perception conditions in the household suite: map contents at the configured rates, the oracle condition
unchanged, determinism serial and in a pool, options, records and the report header."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from household_data import first, small_episodes

from heedful.agents.household import CommonsenseAgent
from heedful.errors import ConfigError
from heedful.runner import RunSpec, load_run, run
from heedful.sims.household.perception import NoiseRates
from heedful.suites.base import RolloutContext
from heedful.suites.household.executors import execute
from heedful.suites.household.perception import detector_for, prepare_options
from heedful.suites.household.runtime import TaskEnv, premap
from heedful.suites.household.suite import SUITE
from heedful.suites.household.tools import parse_tool

NOISY = {"perception": "noisy", "miss_rate": 0.3, "false_positive_rate": 0.2, "confusion_rate": 0.25}


def within_binomial(k: int, n: int, p: float) -> bool:
    """|k - n p| within 4.5 standard deviations (a false alarm about once in 150,000 runs)."""
    return abs(k - n * p) <= 4.5 * math.sqrt(n * p * (1 - p)) + 1


def test_the_premap_holds_objects_at_the_configured_rates() -> None:
    missed = confused = kept = phantoms = receptacles = 0
    for seed in range(4):
        for episode in small_episodes():
            exact = premap(episode).objects
            noisy = premap(episode, detector_for(episode, NOISY, seed))
            for oid, entry in exact.items():
                if oid not in noisy.objects:
                    missed += 1
                    continue
                kept += 1
                confused += noisy.objects[oid].category != entry.category
            phantoms += sum(1 for oid in noisy.objects if oid.startswith("f"))
            receptacles += len(episode.premap.receptacles)
            assert noisy.receptacles == set(episode.premap.receptacles)  # furniture is detected exactly
    assert within_binomial(missed, missed + kept, NOISY["miss_rate"])
    # look-alikes exist for every category, so every kept object may be confused
    assert within_binomial(confused, kept, NOISY["confusion_rate"])
    assert within_binomial(phantoms, receptacles, NOISY["false_positive_rate"])


def test_the_live_map_reports_the_same_errors_when_exploring() -> None:
    episode = first("pnp")
    detector = detector_for(episode, NOISY, 1)
    assert detector is not None
    env = TaskEnv.start(episode, detector=detector)
    env.map.objects.clear()  # forget the premap: everything below was seen in this task phase
    for room in episode.house.rooms:
        call = parse_tool(f"Explore Room {room.index}").call
        assert call is not None
        env.history.append(execute(env, call))
    mapped = env.map.objects
    assert mapped, "exploring every room maps objects"
    for oid, entry in mapped.items():
        if oid.startswith("f"):
            phantom = next(p for p in detector.phantoms if p.id == oid)
            assert (entry.category, entry.x, entry.y) == (phantom.category, phantom.x, phantom.y)
        else:
            assert oid not in detector.missed and entry.category == detector.labels[oid]


def test_oracle_condition_and_zero_rates_leave_every_trajectory_unchanged() -> None:
    zero = {"perception": "noisy", "miss_rate": 0.0, "false_positive_rate": 0.0, "confusion_rate": 0.0}
    for episode in small_episodes()[::3]:
        plain = SUITE.rollout_episode(episode, CommonsenseAgent(), RolloutContext(seed=0, index=0))
        oracle = SUITE.rollout_episode(episode, CommonsenseAgent(), RolloutContext(0, 0, {"perception": "oracle"}))
        coupled = SUITE.rollout_episode(episode, CommonsenseAgent(), RolloutContext(0, 0, zero))
        assert oracle.deterministic_dict() == plain.deterministic_dict()
        assert "perception" not in plain.prediction
        assert coupled.prediction.pop("perception")["missed"] == 0
        assert coupled.deterministic_dict() == plain.deterministic_dict()


def test_noisy_runs_are_byte_identical_serial_or_in_a_pool(tmp_path: Path) -> None:
    episodes = list(small_episodes()[:6])
    spec = RunSpec(
        suite="household",
        suite_version=SUITE.version,
        dataset_hash=SUITE.dataset_hash(episodes),
        dataset_source="test",
        agent="commonsense",
        seed=3,
        options=prepare_options(NOISY),
    )
    run(spec, episodes, tmp_path / "serial", progress=False)
    run(spec, episodes, tmp_path / "pool", workers=2, progress=False)
    serial = [r.deterministic_dict() for r in load_run(tmp_path / "serial")[1]]
    pooled = [r.deterministic_dict() for r in load_run(tmp_path / "pool")[1]]
    assert serial == pooled
    assert all(r["prediction"]["perception"]["condition"] == "noisy (simulated)" for r in serial)
    # the draws come from the episode's seed: another seed, other errors
    assert detector_for(episodes[0], NOISY, 3) != detector_for(episodes[0], NOISY, 4)
    assert detector_for(episodes[0], NOISY, 3) == detector_for(episodes[0], NOISY, 3)


def test_noise_changes_outcomes_and_a_blind_detector_fails_everything() -> None:
    blind = {"perception": "noisy", "miss_rate": 1.0, "false_positive_rate": 0.0, "confusion_rate": 0.0}
    for episode in small_episodes()[:4]:
        record = SUITE.rollout_episode(episode, CommonsenseAgent(), RolloutContext(0, 0, blind))
        assert record.scores["success"] == 0.0
        assert record.prediction["perception"]["target_detectable"] == 0


def test_perception_options_are_checked() -> None:
    SUITE.check_options({"perception": "noisy", "miss_rate": 0.5})
    with pytest.raises(ConfigError, match=r"unknown perception 'noisey' \(did you mean 'noisy'\?\)"):
        SUITE.check_options({"perception": "noisey"})
    with pytest.raises(ConfigError, match="miss_rate applies to noisy perception only"):
        SUITE.check_options({"miss_rate": 0.2})
    with pytest.raises(ConfigError, match="between 0 and 1"):
        SUITE.check_options({"perception": "noisy", "confusion_rate": 1.5})
    with pytest.raises(ConfigError, match="between 0 and 1"):
        SUITE.check_options({"perception": "noisy", "false_positive_rate": "high"})
    with pytest.raises(ConfigError, match=r"no run option 'miss_rat' \(did you mean 'miss_rate'\?\)"):
        SUITE.check_options({"perception": "noisy", "miss_rat": 0.2})
    defaults = NoiseRates()
    with pytest.raises(ConfigError, match="unknown detector 'learned'"):
        SUITE.check_options({"perception": "noisy", "detector": "learned"})
    assert prepare_options({"perception": "noisy"}) == {
        "perception": "noisy",
        "detector": "simulated",
        "miss_rate": defaults.miss_rate,
        "false_positive_rate": defaults.false_positive_rate,
        "confusion_rate": defaults.confusion_rate,
    }
    assert prepare_options({}) == {"perception": "oracle"}


def test_the_report_header_names_the_condition(tmp_path: Path) -> None:
    from heedful.api import evaluate, report_text

    evaluate(
        suite="household",
        agent="commonsense",
        out=tmp_path / "run",
        split="val_seen",
        limit=2,
        options={"perception": "noisy", "miss_rate": 0.5},
        progress=False,
        dataset=_dataset(tmp_path),
    )
    manifest, _ = load_run(tmp_path / "run")
    assert manifest.spec.options["miss_rate"] == 0.5 and manifest.spec.options["confusion_rate"] == 0.1
    text = report_text(tmp_path / "run", resamples=50)
    assert "perception noisy (simulated segmentation: miss 0.5" in text.splitlines()[0]
    assert "Table 6" in text and "Table 9" in text
    # the replay redraws the run's detector: the recorded trajectory repeats step for step
    from heedful.report.household_replay import find_episode, run_detector, write_replay

    for record in load_run(tmp_path / "run")[1]:
        episode, _ = find_episode(tmp_path / "run", record.episode_id, None)
        detector = run_detector(tmp_path / "run", episode)
        assert detector is not None
        assert detector.summary(episode.house, episode.target_category) == record.prediction["perception"]
        message = write_replay(tmp_path / "run", record.episode_id, tmp_path / f"{record.episode_id}.png")
        assert f"({int(record.scores['steps'])} steps" in message


def _dataset(tmp_path: Path) -> Path:
    SUITE.save_dataset(list(small_episodes()), tmp_path / "ds", {"seed": 5})
    return tmp_path / "ds"
