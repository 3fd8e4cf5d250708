"""A suite declared in five parts (heedful.suites.parts), and everything the runner, the report and the command
line need from it, derived here once: dataset files, schema, hash, parsing, failure records, report and compare.

A suite module declares one `DeclaredSuite` and registers it (`heedful.suites` entry point, `module:NAME`):

    SUITE = DeclaredSuite(name="parity", version="parity-v1", episodes=..., options=..., rollout=..., scoring=...,
                          view=...)

The derived members keep the `heedful.suites.base.Suite` protocol, the runner's view of any suite. They take any
episode (`Episode`) and check it is the declared model before a part sees it, so a part is typed by its own model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal

from pydantic import BaseModel

from heedful.capabilities import AGENT_KINDS
from heedful.errors import ConfigError
from heedful.metrics.layouts import FigureLayout, PaperTable
from heedful.metrics.rows import MetricRow
from heedful.metrics.scoring import Scoring
from heedful.metrics.spec import MetricSpec
from heedful.records import Record, Status
from heedful.requirements import Requirement
from heedful.sampling import Unit, one_unit_per_episode
from heedful.suites.base import Episode, RolloutContext
from heedful.suites.lazy_episodes import LazyEpisodes
from heedful.suites.options import RunOptions, validate
from heedful.suites.parts import D, E, Episodes, Options, Progress, Rollout, RunOptionValues, View

if TYPE_CHECKING:
    from heedful.metrics.compare import ComparisonRow
    from heedful.protocols import Agent


def _of(model: type[object], episode: object, what: str) -> None:
    if not isinstance(episode, model):
        raise ConfigError(f"{what} takes {model.__name__} episodes, got {type(episode).__name__}")


def _all_of(model: type[object], episodes: Sequence[Episode], what: str) -> None:
    """Check every episode is a `model`, except in a lazy dataset: checking would parse every line (what `--limit`
    avoids), and its lines are parsed by the suite's own `parse_episode` (each is checked where a part gets it alone:
    `rollout_episode`, `describe_task`)."""
    if not isinstance(episodes, LazyEpisodes):
        for ep in episodes:
            _of(model, ep, what)


@dataclass(frozen=True)
class DeclaredSuite(Generic[D, E]):
    """A benchmark suite: a name, a dataset version and its five parts."""

    name: str
    """Registry name, e.g. "decisions"."""
    version: str
    """Versioned dataset id, e.g. "decisions-v4"."""
    episodes: Episodes[D]
    rollout: Rollout[D, E]
    scoring: Scoring
    options: Options = field(default_factory=Options)
    view: View[D] = field(default_factory=View)

    # --- episodes: dataset files, schema, hash, parsing ---

    def generate(
        self, seed: int, config: dict[str, Any] | None = None, progress: Progress | None = None
    ) -> Sequence[D]:
        return self.episodes.generate(seed, config or {}, progress)

    def load_dataset(self, path: Path, *, verify: bool = True) -> Sequence[D]:
        from heedful.suites.episode_files import read_episodes

        if self.episodes.check_path is not None:
            self.episodes.check_path(Path(path))
        check = self.episodes.check_line or (lambda _: None)
        model = self.episodes.model
        if not issubclass(model, BaseModel):
            raise ConfigError(f"suite {self.name}'s episode model {model.__name__} must be a pydantic model")
        lines = read_episodes(Path(path), model, suite=self.name, check=check, verify=verify)
        if self.episodes.check_dataset is not None:
            self.episodes.check_dataset(lines, Path(path))
        return lines

    def save_dataset(self, episodes: Sequence[Episode], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
        from heedful.suites.episode_files import write_dataset

        lines = self._lines(episodes)
        counts = self.episodes.summarize(lines) if self.episodes.summarize else {"instances": len(lines)}
        extra = self.episodes.dataset_meta(lines) if self.episodes.dataset_meta else {}
        meta = {"suite": self.name, "version": self.version, **meta, **extra}  # run refuses another suite's dataset
        models = self._pydantic(lines)
        return write_dataset(models, Path(out), dataset_format=self.episodes.dataset_format, meta=meta, counts=counts)

    def episode_schema(self) -> str:
        if self.episodes.schema_text is not None:
            return self.episodes.schema_text()
        return json.dumps(self.episodes.model.model_json_schema(), indent=2) + "\n"

    def parse_episode(self, text: str) -> D | E:
        parse = self.rollout.parse or self.rollout.model.model_validate_json
        return parse(text)

    def dataset_hash(self, episodes: Sequence[Episode]) -> str:
        from heedful.suites.episode_files import content_hash

        if isinstance(episodes, LazyEpisodes):
            return episodes.content_hash  # checked against its file when loaded: nothing is parsed
        return (self.episodes.content_hash or content_hash)(self._pydantic(episodes))

    def _pydantic(self, episodes: Sequence[Episode]) -> list[BaseModel]:
        """The episodes as the pydantic models the dataset files and hashes are made of (their JSON lines)."""
        models: list[BaseModel] = []
        for episode in episodes:
            if not isinstance(episode, BaseModel):
                raise ConfigError(f"suite {self.name}'s episodes must be pydantic models (its files are JSON lines)")
            models.append(episode)
        return models

    def training_episodes(self, episodes: Sequence[Episode]) -> Sequence[D]:
        lines = self._lines_of(episodes)
        if self.episodes.training is not None:
            return self.episodes.training(lines)
        return [line for line in lines if getattr(line, "split", None) == "train"]

    @property
    def splits(self) -> tuple[str, ...]:
        return self.episodes.splits

    @property
    def check_config(self) -> dict[str, Any]:
        return dict(self.episodes.check_config)

    @property
    def has_images(self) -> bool:
        return self.episodes.images is not None

    def attach_images(
        self, episodes: Sequence[Episode], out: Path, *, size: int, progress: Callable[[int, int], Any] | None
    ) -> list[D]:
        if self.episodes.images is None:
            raise ConfigError(f"suite {self.name} has no images to render; drop --images")
        return self.episodes.images.attach(self._lines(episodes), Path(out), size, progress)

    def _lines_of(self, episodes: Sequence[Episode]) -> Sequence[D]:
        """Dataset lines, or the lines a run's episodes were built from (`Rollout.line_of`)."""
        line_of, model = self.rollout.line_of, self.rollout.model
        if line_of is None or isinstance(episodes, LazyEpisodes):  # a lazy dataset holds lines
            return self._lines(episodes)
        return self._lines([line_of(ep) if isinstance(ep, model) else ep for ep in episodes])

    def _are_lines(self, episodes: Sequence[Episode]) -> bool:
        return isinstance(episodes, LazyEpisodes) or all(isinstance(ep, self.episodes.model) for ep in episodes)

    def _lines(self, episodes: Sequence[Episode]) -> Sequence[D]:
        _all_of(self.episodes.model, episodes, f"suite {self.name}'s dataset")
        return episodes  # type: ignore[return-value]  # checked to be D by _all_of

    # --- options ---

    @property
    def run_options(self) -> type[RunOptions]:
        return self.options.model

    def check_options(self, options: RunOptionValues) -> None:
        if self.options.precheck is not None:
            self.options.precheck(options)
        validate(self.name, self.options.model, options)
        if self.options.check is not None:
            self.options.check(options)

    def prepare_options(self, options: RunOptionValues, dataset: Path | None) -> RunOptionValues:
        return self.options.prepare(options, dataset) if self.options.prepare else options

    def required_inputs(self, options: RunOptionValues) -> tuple[str, ...]:
        return self.options.required_inputs(options) if self.options.required_inputs else ()

    def run_label(self, options: RunOptionValues) -> str:
        return self.options.label(options) if self.options.label else ""

    def run_tag(self, options: RunOptionValues) -> str:
        return self.options.tag(options) if self.options.tag else ""

    def requirements(self, options: RunOptionValues) -> tuple[Requirement, ...]:
        return self.options.requirements(options) if self.options.requirements else ()

    # --- rollout ---

    @property
    def agent_kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind in AGENT_KINDS if kind in self.rollout.kinds)

    @property
    def run_order(self) -> Literal["shuffled", "dataset"]:
        return self.rollout.order

    def episodes_for_run(self, episodes: Sequence[Episode], options: RunOptionValues) -> Sequence[E]:
        if self.rollout.for_run is None:
            return self._run_episodes(episodes)
        return self.rollout.for_run(self._lines(episodes), options)

    def rollout_episode(self, episode: Episode, agent: Agent, context: RolloutContext) -> Record:
        return self.rollout.run(self._run_episode(episode), agent, context)

    def failure_record(self, episode: Episode, context: RolloutContext, status: Status, error: str) -> Record:
        run = self._run_episode(episode)
        base = self.rollout.record_base(run, context)
        return Record(
            episode_id=episode.episode_id,
            index=context.index,
            keys=base.keys,
            gold=base.gold,
            inputs=base.inputs,
            status=status,
            error=error,
        )

    def episode_steps(self, episode: Episode) -> int | None:
        return self.rollout.steps(self._run_episode(episode)) if self.rollout.steps else None

    def sample_units(self, episodes: Sequence[Episode]) -> list[Unit]:
        if self.rollout.line_of is not None and self._are_lines(episodes):
            return one_unit_per_episode(len(episodes))  # dataset lines (the dataset cache indexes them): no run's
        return self.rollout.sampling.units(self._run_episodes(episodes))

    @property
    def sample_strata(self) -> str:
        return self.rollout.sampling.strata

    def _run_episode(self, episode: Episode) -> E:
        _of(self.rollout.model, episode, f"suite {self.name}'s rollout")
        return episode  # type: ignore[return-value]  # checked to be an E just above

    def _run_episodes(self, episodes: Sequence[Episode]) -> Sequence[E]:
        _all_of(self.rollout.model, episodes, f"suite {self.name}'s rollout")
        return episodes  # type: ignore[return-value]  # checked to be E by _all_of

    # --- scoring ---

    @property
    def metric_spec(self) -> MetricSpec:
        return self.scoring.full_spec

    @property
    def report_clusters(self) -> tuple[str, ...]:
        return self.scoring.clusters

    def report(self, records: Sequence[Record], options: dict[str, Any]) -> list[MetricRow]:
        """The engine's rows of the declared scoring, with the reference levels and rows it declares."""
        from heedful.metrics.chance import with_chance
        from heedful.metrics.engine import report_rows

        cluster = options.get("cluster")
        rows = report_rows(
            self.scoring,
            records,
            resamples=int(options.get("resamples", 10_000)),
            seed=int(options.get("seed", 0)),
            cluster=None if cluster is None else str(cluster),
        )
        if self.scoring.reference_levels is None:
            return rows
        levels, extra = self.scoring.reference_levels(records)
        return with_chance(rows, levels) + list(extra)

    def compare(
        self, records_a: Sequence[Record], records_b: Sequence[Record], *, resamples: int, seed: int
    ) -> list[ComparisonRow]:
        from heedful.metrics.engine import compare_rows

        return compare_rows(self.scoring, records_a, records_b, resamples=resamples, seed=seed)

    # --- view ---

    def render_report(self, rows: Sequence[MetricRow], title: str) -> str:
        if self.view.report_text is not None:
            return self.view.report_text(rows, title)
        from heedful.metrics.render import render_metric_table

        level = self.scoring.reference  # the reference column's name and note, where the rows have one
        return render_metric_table(rows, title=title, chance_note=level.note, reference_label=level.label)

    def render_comparison(self, rows: Sequence[ComparisonRow], title: str) -> str:
        if self.view.comparison_text is not None:
            return self.view.comparison_text(rows, title)
        from heedful.metrics.render import render_comparison_table

        return render_comparison_table(rows, title=title)

    @property
    def paper_tables(self) -> tuple[PaperTable, ...]:
        return self.view.paper_tables

    @property
    def figure(self) -> FigureLayout | None:
        return self.view.figure

    @property
    def glossary(self) -> tuple[tuple[str, str], ...]:
        return self.view.glossary

    @property
    def task_columns(self) -> tuple[str, ...]:
        return self.view.task_columns

    def describe_task(self, episode: Episode) -> tuple[str, str]:
        (line,) = self._lines([episode])
        if self.view.describe is not None:
            return self.view.describe(line)
        return str(getattr(line, "instruction", "")), ""

    def observation_summary(self, episode: Episode) -> list[tuple[str, str]]:
        (line,) = self._lines([episode])
        return self.view.observation(line) if self.view.observation else []

    def record_details(self, record: Record) -> list[tuple[str, str]]:
        return self.view.record_details(record) if self.view.record_details else []
