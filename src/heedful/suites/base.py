"""The suite protocol: what the runner, the report and the command line read of a suite, every member derived once
from the five parts a suite declares (heedful.suites.declared.DeclaredSuite); and the types its members share
(`Episode`, `EpisodeModel`, `RolloutContext`).

The runner only needs what is here, so any suite (built-in or third-party) runs on every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self

from heedful.capabilities import Capabilities, capabilities
from heedful.metrics.layouts import FigureLayout, PaperTable
from heedful.metrics.rows import MetricRow
from heedful.metrics.spec import MetricSpec
from heedful.records import Record, Status
from heedful.requirements import Requirement
from heedful.sampling import Unit
from heedful.suites.options import RunOptions

if TYPE_CHECKING:
    from heedful.metrics.compare import ComparisonRow
    from heedful.protocols import Agent


class Episode(Protocol):
    """One serializable test case. Concrete suites use pydantic models."""

    @property
    def episode_id(self) -> str: ...

    def model_dump_json(self) -> str: ...


class EpisodeModel(Episode, Protocol):
    """The model of a suite's episodes (a pydantic model class: `heedful.suites.parts` types a suite's parts with
    it); what the library derives calls these on the class."""

    @classmethod
    def model_validate_json(cls, json_data: str, /) -> Self: ...

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RolloutContext:
    """Per-episode facts the runner hands to a rollout.

    `seed` is derived from the run seed and the episode id, so the rollout is the same on every backend.
    `options` are the suite's run options (for decisions: `mask`). `run_seed` is the run's seed itself, for what
    must not depend on the episode id (the seed a decisions agent sees: see `decisions.observation.shown_seed`).
    `declared` are the agent's declarations as the run read them once (None when the caller did not: a rollout
    called directly); a rollout reads them through `declarations(agent)`.
    """

    seed: int
    index: int
    options: dict[str, Any] = field(default_factory=dict)
    run_seed: int = 0
    declared: Capabilities | None = None

    def declarations(self, agent: object) -> Capabilities:
        """The declarations of `agent`, the agent this context's rollout is given: those the run read, or read now."""
        return self.declared if self.declared is not None else capabilities(agent)


class Suite(Protocol):
    """A benchmark protocol."""

    @property
    def name(self) -> str:
        """Registry name, e.g. "decisions"."""
        ...

    @property
    def version(self) -> str:
        """Versioned dataset id, e.g. "decisions-v1"."""
        ...

    @property
    def report_clusters(self) -> tuple[str, ...]:
        """The units a report's bootstrap may resample (`heedful report --cluster`), the default first (a declared
        suite: its scoring's clusters)."""
        ...

    @property
    def run_order(self) -> Literal["shuffled", "dataset"]:
        """The order a run rolls episodes out in: "shuffled" (seeded by the run seed, the default: an agent cannot tell
        from the order which episodes belong together) or "dataset" (for a suite whose episodes are independent)."""
        ...

    def generate(
        self, seed: int, config: dict[str, Any] | None = None, progress: Callable[[int, int], object] | None = None
    ) -> Sequence[Episode]:
        """Return the frozen, seeded list of episodes. `progress(n, total)`, when given, may be called as the work
        advances (`heedful generate` passes its progress bar as `progress=`); a suite may ignore it."""
        ...

    def load_dataset(self, path: Path, *, verify: bool = True) -> Sequence[Episode]:
        """Load and validate episodes from a dataset directory; raise DatasetError naming the bad line.

        `verify`: refuse files whose content hash differs from the one recorded at generation (`--no-verify`
        turns that off for deliberate edits; every episode is validated either way)."""
        ...

    def save_dataset(self, episodes: Sequence[Episode], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
        """Write the dataset files, return the dataset summary (counts and content hash)."""
        ...

    def episode_schema(self) -> str:
        """The JSON Schema of one episode line, as text."""
        ...

    def parse_episode(self, text: str) -> Episode:
        """Rebuild an episode from its `model_dump_json()` text (used across process boundaries)."""
        ...

    def dataset_hash(self, episodes: Sequence[Episode]) -> str:
        """Content hash of the episodes, stored in run manifests."""
        ...

    @property
    def run_options(self) -> type[RunOptions]:
        """The suite's run options as a pydantic model: `heedful run SUITE` turns its fields into flags."""
        ...

    @property
    def splits(self) -> tuple[str, ...]:
        """The values of `--split`, "all" first; other splits select episodes by their `split` field (household:
        "val" selects val_seen and val_unseen)."""
        ...

    @property
    def agent_kinds(self) -> tuple[str, ...]:
        """The kinds of agent the rollout runs: "decision" (`decide`), "planner" (`act`), "controller" (`predict`)."""
        ...

    @property
    def check_config(self) -> dict[str, Any]:
        """A generation config that makes a small dataset in seconds, for `heedful check` (empty: the default)."""
        ...

    def check_options(self, options: dict[str, Any]) -> None:
        """Raise ConfigError for a run option the suite does not know or a value it cannot take."""
        ...

    def training_episodes(self, episodes: Sequence[Episode]) -> Sequence[Episode]:
        """The episodes agents may fit on (the train split)."""
        ...

    def rollout_episode(self, episode: Episode, agent: Agent, context: RolloutContext) -> Record:
        """Run one episode with `agent`. Agent transport errors become records with their own status."""
        ...

    def failure_record(self, episode: Episode, context: RolloutContext, status: Status, error: str) -> Record:
        """A record for an episode that did not produce a scoreable answer (interface error, timeout, crash)."""
        ...

    def compare(
        self, records_a: Sequence[Record], records_b: Sequence[Record], *, resamples: int, seed: int
    ) -> list[ComparisonRow]:
        """Paired comparison rows (metric differences with intervals, McNemar) of two runs of one dataset."""
        ...

    def render_report(self, rows: Sequence[MetricRow], title: str) -> str:
        """The report as terminal text, in the suite's own layout."""
        ...

    def render_comparison(self, rows: Sequence[ComparisonRow], title: str) -> str:
        """`heedful compare` as terminal text, in the suite's own layout."""
        ...

    def report(self, records: Sequence[Record], options: dict[str, Any]) -> list[MetricRow]:
        """Compute the suite's metrics with uncertainty from records alone."""
        ...

    @property
    def metric_spec(self) -> MetricSpec:
        """The metrics `report` computes per group and `compare` pairs (heedful.metrics.spec); `heedful report`
        rejects a row of a metric it does not declare. Empty: not declared, unchecked."""
        ...

    # The members below follow from a declared suite's optional hooks (heedful.suites.declared).

    def prepare_options(self, options: dict[str, Any], dataset: Path | None) -> dict[str, Any]:
        """The run options completed with what depends on the dataset's place (decisions: its images)."""
        ...

    def required_inputs(self, options: dict[str, Any]) -> tuple[str, ...]:
        """The kinds of input these options show an agent (decisions: "image" for the visual condition)."""
        ...

    def episodes_for_run(self, episodes: Sequence[Episode], options: dict[str, Any]) -> Sequence[Episode]:
        """The episodes a run rolls out from the selected dataset lines (tabletop: trials of its tasks); read-only
        (it may be `episodes` itself)."""
        ...

    def run_label(self, options: dict[str, Any]) -> str:
        """How the options showed the episodes, for report titles (e.g. " | perception noisy ...")."""
        ...

    def episode_steps(self, episode: Episode) -> int | None:
        """The steps `episode` will take, when known before it runs (tabletop: its task's horizon; a trial never
        stops early), else None. Lockstep batches (`--batch`) start the longest of each window first, so that
        fewer batched policy calls run short of a full batch (`heedful.runner.lockstep`)."""
        ...

    def run_tag(self, options: dict[str, Any]) -> str:
        """A suffix of the default run directory naming the options (decisions: "-masked", "-visual")."""
        ...

    def requirements(self, options: dict[str, Any]) -> tuple[Requirement, ...]:
        """The modules a run with these options imports (heedful.requirements), checked before anything is written."""
        ...

    def sample_units(self, episodes: Sequence[Episode]) -> list[Unit]:
        """The run's episodes cut into sampling units, each with its stratum, for `--limit` (heedful.sampling)."""
        ...

    @property
    def sample_strata(self) -> str:
        """How `sample_units` stratifies, for report titles (e.g. "category x split, whole families")."""
        ...

    @property
    def glossary(self) -> tuple[tuple[str, str], ...]:
        """(term, meaning) of the suite's own report terms, for `heedful report --explain` (heedful.report.glossary)."""
        ...

    @property
    def task_columns(self) -> tuple[str, ...]:
        """The grouping keys (`episode.keys()`) that `heedful list tasks SUITE` prints beside each id."""
        ...

    @property
    def paper_tables(self) -> tuple[PaperTable, ...]:
        """The report's tables in the papers' layouts, for `heedful report --format markdown|latex` (before the table of
        every row); empty: that table alone (heedful.metrics.layouts)."""
        ...

    @property
    def figure(self) -> FigureLayout | None:
        """The suite's main figure, for `heedful plot`; None: the suite has none (heedful.metrics.layouts)."""
        ...

    def describe_task(self, episode: Episode) -> tuple[str, str]:
        """(instruction, one-line description) of one dataset line, for `heedful.tasks` and `heedful list tasks`."""
        ...

    def observation_summary(self, episode: Episode) -> list[tuple[str, str]]:
        """(label, text) lines of what the agent observes in this dataset line, for `heedful show`."""
        ...

    def record_details(self, record: Record) -> list[tuple[str, str]]:
        """(label, text) lines of a record's suite-specific outcome (tabletop: per-stage scores), for `heedful show`."""
        ...

    @property
    def has_images(self) -> bool:
        """Whether `attach_images` renders anything (`heedful generate --images`)."""
        ...

    def attach_images(
        self, episodes: Sequence[Episode], out: Path, *, size: int, progress: Callable[[int, int], object] | None
    ) -> Sequence[Episode]:
        """Render the suite's images into `out`; return the episodes that name them."""
        ...
