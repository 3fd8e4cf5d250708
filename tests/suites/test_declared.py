"""What `DeclaredSuite` derives from five declared parts: dataset files, schema, hash, parsing, the checks that an
episode is the declared model, failure records, training lines, and the report with its declared reference levels
and the name of its reference column."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from heedful.errors import ConfigError, DatasetError
from heedful.metrics.groups import ALL
from heedful.metrics.reference import Reference
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import ReferenceRows, Scoring
from heedful.metrics.spec import MetricSpec, RecordMetric
from heedful.protocols import Agent, DecisionAgent
from heedful.records import Record, Status
from heedful.replies import AgentReply
from heedful.suites.base import RolloutContext, Suite
from heedful.suites.declared import DeclaredSuite
from heedful.suites.lazy_episodes import LazyEpisodes
from heedful.suites.parts import Episodes, Options, Progress, RecordBase, Rollout


class Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    split: str
    instruction: str
    gold: int


class Other(BaseModel):
    episode_id: str


def generate(seed: int, config: Mapping[str, object], progress: Progress | None) -> list[Line]:
    n = int(str(config.get("n", 4)))
    return [Line(episode_id=f"e{i}", split="train" if i == 0 else "test", instruction="say", gold=i) for i in range(n)]


def record_base(line: Line, context: RolloutContext) -> RecordBase:
    return RecordBase(keys={"split": line.split}, gold=line.gold, inputs={"instruction": line.instruction})


def run(line: Line, agent: Agent, context: RolloutContext) -> Record:
    assert isinstance(agent, DecisionAgent)
    text = agent.decide({"instruction": line.instruction}).text
    base = record_base(line, context)
    return Record(
        episode_id=line.episode_id,
        index=context.index,
        keys=base.keys,
        gold=base.gold,
        status=Status.OK,
        correct=text == str(line.gold),
    )


def no_negative_gold(line: Line) -> str | None:
    return f"episode {line.episode_id}: negative gold" if line.gold < 0 else None


CORRECT = RecordMetric(
    name="correct", description="answered right", unit="episode", value=lambda r: float(r.correct is True), binary=True
)


def halves(records: Sequence[Record]) -> ReferenceRows:
    row = MetricRow("correct", "reference", 0.5, None, None, len(records), ci_method="exact")
    return {(ALL, "correct"): 0.5}, [row]


def suite(**scoring: object) -> DeclaredSuite[Line, Line]:
    return DeclaredSuite(
        name="toy",
        version="toy-v1",
        episodes=Episodes(Line, generate, "toy-dataset/1", check_line=no_negative_gold, splits=("all", "test")),
        rollout=Rollout(Line, run, record_base, kinds=frozenset({"decision"})),
        scoring=Scoring(MetricSpec((CORRECT,)), **scoring),  # type: ignore[arg-type]
    )


class Echo:
    name = "echo"

    def decide(self, observation: object) -> AgentReply:
        return AgentReply("1")


def test_a_declared_suite_keeps_the_runners_protocol() -> None:
    keeps: Suite = suite()  # checked by mypy: the derived members are the protocol's
    assert keeps.agent_kinds == ("decision",) and keeps.splits == ("all", "test")


def test_the_dataset_round_trips_through_the_derived_files(tmp_path: Path) -> None:
    toy = suite()
    lines = toy.generate(0, {"n": 3})
    summary = toy.save_dataset(lines, tmp_path, {"seed": 0})
    assert summary["format"] == "toy-dataset/1" and summary["counts"] == {"instances": 3}
    assert list(toy.load_dataset(tmp_path)) == list(lines)
    assert toy.dataset_hash(lines) == summary["content_hash"]
    assert toy.parse_episode(lines[1].model_dump_json()) == lines[1]
    assert json.loads(toy.episode_schema())["title"] == "Line"
    assert list(toy.training_episodes(lines)) == [lines[0]]  # the train split only


def test_the_report_names_its_reference_column_as_the_scoring_declares() -> None:
    toy = suite(reference=Reference("blind draw", "what drawing blind scores"))
    row = MetricRow("correct", ALL, 0.75, 0.5, 1.0, 4, ci_method="episode bootstrap", k=3, chance=0.5)
    text = toy.render_report([row], "toy").splitlines()
    assert "blind draw: what drawing blind scores" in text and "value   blind draw" in text[5]
    plain = toy.render_report([dataclasses.replace(row, chance=None)], "toy")
    assert "blind draw" not in plain  # no reference level in the rows: no column and no note


def test_a_line_the_declared_check_refuses_is_a_dataset_error(tmp_path: Path) -> None:
    toy = suite()
    bad = [Line(episode_id="e0", split="test", instruction="say", gold=-1)]
    toy.save_dataset(bad, tmp_path, {})
    with pytest.raises(DatasetError, match="negative gold"):
        toy.load_dataset(tmp_path)


def test_an_episode_of_another_model_is_refused_before_a_part_sees_it() -> None:
    toy = suite()
    with pytest.raises(ConfigError, match="takes Line episodes, got Other"):
        toy.rollout_episode(Other(episode_id="x"), Echo(), RolloutContext(seed=0, index=0))
    with pytest.raises(ConfigError, match="takes Line episodes"):
        toy.save_dataset([Other(episode_id="x")], Path("unused"), {})


def test_the_failure_record_is_the_declared_record_base_with_its_status() -> None:
    line = Line(episode_id="e2", split="test", instruction="say", gold=2)
    record = suite().failure_record(line, RolloutContext(seed=0, index=7), Status.TIMEOUT, "too slow")
    assert (record.episode_id, record.index, record.status, record.error) == ("e2", 7, Status.TIMEOUT, "too slow")
    assert record.keys == {"split": "test"} and record.gold == 2 and record.inputs == {"instruction": "say"}
    assert record.correct is None


def test_the_report_adds_the_declared_reference_levels_and_rows() -> None:
    toy = suite(reference_levels=halves)
    lines = toy.generate(0, {"n": 4})
    records = [toy.rollout_episode(line, Echo(), RolloutContext(seed=0, index=i)) for i, line in enumerate(lines)]
    rows = toy.report(records, {"resamples": 200})
    measured = next(r for r in rows if r.group == ALL and r.metric == "correct")
    assert measured.value == pytest.approx(0.25) and measured.chance == 0.5
    assert rows[-1].group == "reference"
    plain = suite().report(records, {"resamples": 200})
    assert next(r for r in plain if r.group == ALL and r.metric == "correct").chance is None


def test_a_lazy_dataset_stays_unparsed_through_the_run_s_whole_dataset_steps() -> None:
    toy = suite()
    lines = toy.generate(0, {"n": 5})
    lazy = LazyEpisodes(
        [line.model_dump_json() for line in lines],
        toy.parse_episode,
        episode_ids=[line.episode_id for line in lines],
        units=toy.sample_units(lines),
        content_hash=toy.dataset_hash(lines),
    )
    assert toy.dataset_hash(lazy) == toy.dataset_hash(lines)
    run = toy.episodes_for_run(lazy, {})
    assert len(run) == 5 and lazy.parsed_count == 0  # what `--limit 2` avoids: parsing every line to run two
    record = toy.rollout_episode(run[3], Echo(), RolloutContext(seed=0, index=3))
    assert record.episode_id == "e3" and lazy.parsed_count == 1


def test_the_dataset_and_option_hooks_run_where_the_suite_needs_them(tmp_path: Path) -> None:
    def refuse(path: Path) -> None:
        if (path / "REFUSED").exists():
            raise DatasetError("refused before a line is read")

    def own_message(options: dict[str, object]) -> None:
        if "colour" in options:
            raise ConfigError("colour is spelled color here")

    toy = DeclaredSuite(
        name="toy",
        version="toy-v1",
        episodes=Episodes(
            Line, generate, "toy-dataset/1", check_path=refuse, dataset_meta=lambda lines: {"made": len(lines)}
        ),
        options=Options(precheck=own_message),
        rollout=Rollout(Line, run, record_base, kinds=frozenset({"decision"})),
        scoring=Scoring(MetricSpec((CORRECT,))),
    )
    toy.save_dataset(toy.generate(0, {"n": 2}), tmp_path, {"seed": 0})
    written = json.loads((tmp_path / "dataset.json").read_text())
    assert list(written)[:5] == ["format", "suite", "version", "seed", "made"]  # the suite's own fields first
    assert (written["suite"], written["version"], written["made"]) == ("toy", "toy-v1", 2)
    assert len(toy.load_dataset(tmp_path)) == 2
    (tmp_path / "episodes.jsonl").write_text("not a line\n")
    (tmp_path / "REFUSED").touch()
    with pytest.raises(DatasetError, match="refused before a line is read"):
        toy.load_dataset(tmp_path)
    with pytest.raises(ConfigError, match="colour is spelled color here"):  # before the model's unknown option
        toy.check_options({"colour": "red"})
    with pytest.raises(ConfigError, match="toy has no run option 'colour'"):
        suite().check_options({"colour": "red"})
