"""The household suite end to end: runner, records, report, export, replay, splits, parse errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from household_data import first, small_episodes

from heedful.agents.base import AgentReply
from heedful.api import select
from heedful.errors import ConfigError, RunError
from heedful.records import Status
from heedful.report.export import export
from heedful.report.household_replay import write_replay
from heedful.runner import RunSpec, load_run, run
from heedful.suites.base import RolloutContext
from heedful.suites.household.observation import HouseholdObservation
from heedful.suites.household.suite import SUITE


def _run(tmp_path: Path, agent: str, name: str) -> Path:
    episodes = list(small_episodes())
    spec = RunSpec(
        suite="household",
        suite_version=SUITE.version,
        dataset_hash=SUITE.dataset_hash(episodes),
        dataset_source=str(tmp_path / "ds"),
        agent=agent,
        seed=0,
    )
    SUITE.save_dataset(episodes, tmp_path / "ds", {"seed": 5})
    run(spec, episodes, tmp_path / name, progress=False)
    return tmp_path / name


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("household"), "oracle", "oracle")


def test_oracle_solves_every_episode_with_its_own_path_length(oracle_run: Path) -> None:
    _, records = load_run(oracle_run)
    assert len(records) == len(small_episodes())
    for record in records:
        assert record.status is Status.OK and record.correct is True
        assert record.scores["success"] == 1.0 and record.scores["spl"] == 1.0
        assert record.scores["steps"] == record.scores["oracle_steps"] == record.gold["oracle_steps"]
        assert record.scores["followed_steps"] == 0.0  # the oracle never follows
        assert set(record.keys) >= {"house_id", "split", "task_type", "ambiguous"}


def test_report_groups_follow_the_paper(oracle_run: Path) -> None:
    from heedful.api import report
    from heedful.metrics.tables import table_text
    from heedful.suites.household.layouts import PAPER_TABLES

    rows, title = report(oracle_run, resamples=200)
    groups = {row.group for row in rows}
    assert {"all", "val_seen / PnP", "test_unseen / S_hum", "val / S_obj / clear", "val / S_hum / ambiguous"} <= groups
    assert all(row.value == 1.0 for row in rows if row.metric in ("success", "spl"))
    text = "\n".join(table_text(table, rows) for table in PAPER_TABLES if table.pivot is not None)
    assert "Table 6" in text and "Table 9" in text and "household" in title


def test_export_lifts_keys_and_scores(oracle_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    assert export(oracle_run, out, "jsonl") == len(small_episodes())
    row = json.loads(out.read_text().splitlines()[0])
    wanted = ["episode_id", "house_id", "split", "task_type", "ambiguous", "success", "spl", "steps"]
    assert all(key in row for key in [*wanted, "oracle_steps", "followed_steps", "status"])


def test_the_export_is_typed_as_its_schema_says(oracle_run: Path, tmp_path: Path) -> None:
    import jsonschema

    from heedful.report.export_schema import file_problems, json_schema

    for fmt in ("jsonl", "parquet"):
        export(oracle_run, tmp_path / f"rows.{fmt}", fmt)
        assert file_problems("household", tmp_path / f"rows.{fmt}") == []  # read with pyarrow
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    for row in rows:
        jsonschema.validate(row, json_schema("household"))
    by_type = {(r["task_type"], r["ambiguous"]) for r in rows}
    assert by_type == {("pnp", None), ("s_obj", True), ("s_obj", False), ("s_hum", True), ("s_hum", False)}


def test_replay_writes_a_gif_of_the_recorded_trajectory(oracle_run: Path, tmp_path: Path) -> None:
    from PIL import Image

    episode = first("s_hum")
    message = write_replay(oracle_run, episode.episode_id, tmp_path / "r.gif", every=4)
    assert f"({episode.oracle_steps} steps, success)" in message
    with Image.open(tmp_path / "r.gif") as gif:
        assert gif.n_frames >= episode.oracle_steps // 4
    write_replay(oracle_run, episode.episode_id, tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 0
    with pytest.raises(RunError, match="no record of episode"):
        write_replay(oracle_run, "nope", tmp_path / "x.gif")
    with pytest.raises(ConfigError, match=r"\.gif or \.mp4"):
        write_replay(oracle_run, episode.episode_id, tmp_path / "x.avi")


@pytest.mark.render
def test_replay_writes_an_mp4_with_every_frame(oracle_run: Path, tmp_path: Path) -> None:
    import imageio.v2 as imageio

    episode = first("s_hum")
    message = write_replay(oracle_run, episode.episode_id, tmp_path / "r.mp4", every=4)
    written = int(message.split()[1])  # "wrote N frames of ..."
    reader = imageio.get_reader(tmp_path / "r.mp4")
    try:
        decoded = [frame for frame in reader]
    finally:
        reader.close()
    assert len(decoded) == written
    assert decoded[0].shape[0] % 2 == 0 and decoded[0].shape[1] % 2 == 0
    assert decoded[0].std() > 10  # a drawn house, not a blank frame


def test_split_selection() -> None:
    episodes, suite = list(small_episodes()), SUITE
    assert {ep.split for ep in select(suite, episodes, "val")} == {"val_seen", "val_unseen"}
    assert {ep.split for ep in select(suite, episodes, "test_unseen")} == {"test_unseen"}
    assert len(select(suite, episodes, "all")) == len(episodes)
    with pytest.raises(ConfigError, match="household has no split 'train'"):
        select(suite, episodes, "train")


class ScriptedAgent:
    """Answers a fixed list of texts in turn, then Done (a real, trivially simple planner)."""

    name = "scripted"

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def act(self, observation: HouseholdObservation) -> AgentReply:
        k = len(observation.history)
        return AgentReply(text=self.answers[k] if k < len(self.answers) else "Done", usage={"calls": 1})


def _rollout(episode: Any, answers: list[str], **options: Any) -> Any:
    return SUITE.rollout_episode(episode, ScriptedAgent(answers), RolloutContext(seed=0, index=0, options=options))


def test_unparsable_or_unavailable_answers_end_the_episode_as_parse_errors() -> None:
    episode = first("pnp")
    record = _rollout(episode, ["Go to Room 0", "I think we should dance"])
    assert record.status is Status.PARSE_ERROR and "not a tool call" in (record.error or "")
    assert record.scores["success"] == 0.0 and record.prediction["actions"] == ["Go to Room 0"]
    record = _rollout(episode, ["Give to Human"])  # nothing in hand
    assert record.status is Status.PARSE_ERROR and "invalid action 'Give to Human'" in (record.error or "")
    assert record.usage == {"calls": 1}


def test_follow_human_counts_followed_steps() -> None:
    clear, ambiguous = first("s_hum", False), first("s_hum", True)
    for episode in (clear, ambiguous):
        record = _rollout(episode, ["Follow Human"] * 3)
        assert record.scores["followed_steps"] > 50
        assert record.scores["success"] == 0.0  # nothing was given


def test_max_calls_option() -> None:
    episode = first("pnp")
    record = _rollout(episode, ["Explore Room 0"] * 10, max_calls=2)
    assert record.prediction["actions"] == ["Explore Room 0", "Explore Room 0"]
    with pytest.raises(ConfigError, match="max_calls"):
        SUITE.check_options({"max_calls": 0})
    with pytest.raises(ConfigError, match="no run option 'mask'"):
        SUITE.check_options({"mask": True})


def test_observation_fields_at_the_start_of_a_task() -> None:
    from heedful.suites.household.observation import build_observation
    from heedful.suites.household.runtime import TaskEnv

    episode = first("s_hum", True)
    obs = build_observation(TaskEnv.start(episode), seed=0)
    assert [room.index for room in obs.premap_rooms] == [room.index for room in episode.house.rooms]
    assert obs.premap_rooms[0].listing().startswith("Room 0 (")
    assert obs.command == episode.command and obs.communication == episode.communication
    assert obs.human_walks and obs.human.first_room is not None  # seen right after it spoke
    assert obs.available_actions[0] == "Go to Room 0" and obs.history == () and obs.step == 0
    assert len(obs.room_distances) == len(episode.house.rooms)
