"""Dataset generation: determinism, split / type / clarity counts, task filtering, files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from household_data import SMALL, small_episodes

from heedful.errors import ConfigError, DatasetError
from heedful.suites.episode_files import episodes_bytes
from heedful.suites.household.generate import parse_config
from heedful.suites.household.suite import SUITE, generation_stats


def test_same_seed_gives_byte_identical_episodes_and_generation_statistics(tmp_path: Path) -> None:
    again = SUITE.generate(5, SMALL)
    assert episodes_bytes(again) == episodes_bytes(small_episodes())
    stats = generation_stats(again)
    assert len(stats["houses"]) == SMALL["houses"]
    assert all(h["coverage"] > 0.95 for h in stats["houses"])
    assert "oracle_failed" not in stats["rejected"]  # every filtered task fails a rule of Appendix 0.A.1
    # dataset.json records them with the very episodes they describe, not with equal ones made earlier or a part
    assert generation_stats(small_episodes()) == {} and generation_stats(again[1:]) == {}
    SUITE.save_dataset(again, tmp_path / "made", {"seed": 5})
    SUITE.save_dataset(list(small_episodes()), tmp_path / "other", {"seed": 5})
    made = json.loads((tmp_path / "made" / "dataset.json").read_text())
    other = json.loads((tmp_path / "other" / "dataset.json").read_text())
    assert made["generation"] == json.loads(json.dumps(stats)) and "generation" not in other
    assert list(made)[:4] == ["format", "suite", "version", "seed"]  # the suite's own fields first, as before


def test_counts_per_split_type_and_clarity() -> None:
    episodes = small_episodes()
    counts = Counter((ep.split, ep.task_type) for ep in episodes)
    assert set(counts.values()) == {2} and len(counts) == 12
    for ep in episodes:
        assert (ep.ambiguous is None) == (ep.task_type == "pnp")
        if ep.ambiguous is not None:
            slot = int(ep.episode_id.rsplit("-", 1)[1])
            assert ep.ambiguous == (slot % 2 == 1)  # clear and ambiguous alternate: balanced
            assert ep.ambiguous == (len(ep.candidate_rooms) > 1)
        seen_house = int(ep.house_id.split("-")[1]) < SMALL["seen_houses"]
        assert seen_house == ep.split.endswith("_seen")


def test_tasks_follow_the_protocol() -> None:
    for ep in small_episodes():
        assert ep.oracle_steps > 0 and ep.oracle_actions[-1] == "Done"
        moved = {r.object_id for r in ep.relocations}
        targets = [o for o in ep.house.objects if o.category == ep.target_category]
        if ep.task_type == "s_obj":
            assert len(targets) == 1 and targets[0].id in moved  # the only one of its kind, and it moved
            assert any(ep.target_category in c for c in ep.communication)
        else:
            assert not moved & {o.id for o in targets}  # PnP and S_hum objects stay where exploration saw them
        if ep.task_type == "s_hum":
            assert ep.command.startswith(f"Bring a {ep.target_category} to me. I will be ")
            assert ep.human.destination_room in ep.candidate_rooms
        assert any(o.id in ep.premap.objects for o in targets)  # P_e findable (Appendix 0.A.1)
        assert ep.premap.budget == -(-3 * ep.premap.steps_needed // 2)


def test_config_errors() -> None:
    with pytest.raises(ConfigError, match="no generation setting 'rooms'"):
        parse_config({"rooms": 3})
    with pytest.raises(ConfigError, match="seen_houses"):
        parse_config({"houses": 3, "seen_houses": 3})
    with pytest.raises(ConfigError, match="cell_m"):
        parse_config({"cell_m": 0.2})


def test_dataset_round_trip_and_errors(tmp_path: Path) -> None:
    suite = SUITE  # the registered declaration
    episodes = list(small_episodes())
    summary = suite.save_dataset(episodes, tmp_path / "ds", {"seed": 5})
    assert summary["counts"]["instances"] == 24 and summary["content_hash"] == suite.dataset_hash(episodes)
    loaded = suite.load_dataset(tmp_path / "ds")
    assert suite.dataset_hash(loaded) == suite.dataset_hash(episodes)
    assert json.loads((tmp_path / "ds" / "dataset.json").read_text())["suite"] == "household"

    lines = (tmp_path / "ds" / "episodes.jsonl").read_text().splitlines()
    (tmp_path / "bad.jsonl").write_text(lines[0] + "\n" + lines[1].replace('"task_type":"', '"task_type":"x') + "\n")
    with pytest.raises(DatasetError, match=r"bad.jsonl:2: field 'task_type'"):
        suite.load_dataset(tmp_path / "bad.jsonl")
    (tmp_path / "dup.jsonl").write_text(lines[0] + "\n" + lines[0] + "\n")
    with pytest.raises(DatasetError, match="appears twice"):
        suite.load_dataset(tmp_path / "dup.jsonl")
    with pytest.raises(DatasetError, match="heedful generate household"):
        suite.load_dataset(tmp_path / "missing")
