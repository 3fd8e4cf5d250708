"""The five parts a suite declares (issue 41); `heedful.suites.declared.DeclaredSuite` puts them together and derives
everything else once: dataset files, schema, hash, parsing across processes, failure records, report and compare.

| part | holds | type |
|---|---|---|
| episodes | the pydantic episode model, generation, the training episodes, splits | `Episodes[D]` |
| options | the run-options model and the hooks that read only options | `Options` |
| rollout | the episodes a run rolls out, episode + typed agent + context -> record, the agent kinds | `Rollout[D, E]` |
| scoring | metric spec, grouping, clusters, reference levels, extra rows | `heedful.metrics.scoring.Scoring` |
| view | paper tables, figure, glossary, task columns, `heedful show` / `list` details, text layouts | `View[D]` |

`D` is a dataset line's model and `E` the model of what a run rolls out: the same for most suites (tabletop: a task
and a trial of it). Every hook has a default, so a suite writes only what is its own (see `tests/fourth_suite`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

from heedful.capabilities import AgentKind
from heedful.metrics.layouts import FigureLayout, PaperTable
from heedful.records import JSONValue, Record
from heedful.requirements import Requirement
from heedful.sampling import Unit, one_unit_per_episode
from heedful.suites.base import EpisodeModel, RolloutContext
from heedful.suites.options import RunOptions

if TYPE_CHECKING:
    from heedful.metrics.compare import ComparisonRow
    from heedful.metrics.rows import MetricRow
    from heedful.protocols import Agent

D = TypeVar("D", bound=EpisodeModel)
"""A dataset line (one line of `episodes.jsonl`)."""
E = TypeVar("E", bound=EpisodeModel)
"""What a run rolls out: a dataset line, or an episode built from one (a tabletop trial of a task)."""

ColumnType = Literal["string", "integer", "number", "boolean", "json"]
"""The JSON type of a column of a run's export (heedful.report.export_schema); `json`: a value written as JSON text."""
Progress = Callable[[int, int], object]
"""`progress(done, total)`: `heedful generate` passes its progress bar."""
RunOptionValues = dict[str, Any]
"""A run's option values, as `Options.model` validated them (JSON values: the manifest stores them)."""


D_co = TypeVar("D_co", bound=EpisodeModel, covariant=True)


class Generate(Protocol[D_co]):
    def __call__(self, seed: int, config: Mapping[str, object], progress: Progress | None) -> Sequence[D_co]:
        """The frozen, seeded episodes; `config` is the generation settings (empty: the defaults)."""
        ...


@dataclass(frozen=True)
class Images(Generic[D]):
    """Rendered images of a suite's episodes (`heedful generate --images`)."""

    attach: Callable[[Sequence[D], Path, int, Progress | None], list[D]]
    """(episodes, out directory, size, progress) -> the episodes that name their images."""


@dataclass(frozen=True)
class Episodes(Generic[D]):
    """Part 1: what a dataset line is, how the dataset is made and which lines agents may train on."""

    model: type[D]
    generate: Generate[D]
    dataset_format: str
    """`dataset.json`'s `format`, e.g. "heedful-tabletop-dataset/1"."""
    check_path: Callable[[Path], None] | None = None
    """Raise DatasetError for a dataset directory or episodes file to refuse before a line is read (household: a
    `dataset.json` of another benchmark version, whose lines may not even parse)."""
    check_line: Callable[[D], str | None] | None = None
    """Why one line contradicts itself (a gold its constraints do not give), or None; checked on every load."""
    check_dataset: Callable[[Sequence[D], Path], None] | None = None
    """Raise DatasetError for what no single line shows (two lines of one family with the same role)."""
    summarize: Callable[[Sequence[D]], dict[str, object]] | None = None
    """The counts `dataset.json` records; None: the number of lines."""
    dataset_meta: Callable[[Sequence[D]], Mapping[str, object]] | None = None
    """Fields `dataset.json` records after the caller's (household: the statistics of the generation that made these
    very lines); None: none."""
    training: Callable[[Sequence[D]], Sequence[D]] | None = None
    """The lines agents may fit on; None: those whose `split` is "train" (none when there is no split)."""
    splits: tuple[str, ...] = ("all",)
    """The values of `--split`, "all" first; the others select lines by their `split` field."""
    check_config: Mapping[str, object] = field(default_factory=dict)
    """Generation settings that make a small dataset in seconds, for `heedful check`."""
    images: Images[D] | None = None
    schema_text: Callable[[], str] | None = None
    """The JSON Schema of a line as text; None: the model's schema."""
    content_hash: Callable[[Sequence[BaseModel]], str] | None = None
    """The dataset's content hash, of dataset lines or of a run's episodes; None: every line's bytes."""
    generation_cpu_s: float | None = None
    """CPU seconds the default dataset takes to generate on an idle core, for the message while it does."""


@dataclass(frozen=True)
class Options:
    """Part 2: the run options (`heedful run SUITE --help` lists their fields) and what follows from them alone."""

    model: type[RunOptions] = RunOptions
    precheck: Callable[[RunOptionValues], None] | None = None
    """Raise ConfigError in the suite's own words ("unknown level 'L5'; choose among ...") before the model's check."""
    check: Callable[[RunOptionValues], None] | None = None
    """Raise ConfigError for values the model lets through but the suite cannot take (after the model's check)."""
    prepare: Callable[[RunOptionValues, Path | None], RunOptionValues] | None = None
    """The options completed with what depends on the dataset's place (decisions: its images)."""
    required_inputs: Callable[[RunOptionValues], tuple[str, ...]] | None = None
    """The kinds of input these options show an agent (decisions: "image" for the visual condition)."""
    label: Callable[[RunOptionValues], str] | None = None
    """How the options showed the episodes, for report titles (" | perception noisy ...")."""
    tag: Callable[[RunOptionValues], str] | None = None
    """A suffix of the default run directory naming the options ("-masked")."""
    requirements: Callable[[RunOptionValues], tuple[Requirement, ...]] | None = None
    """The optional modules a run with these options imports, checked before anything is written."""


@dataclass(frozen=True)
class RecordBase:
    """What every record of an episode carries, whatever its outcome (the rollout's and the failure record)."""

    keys: dict[str, str]
    gold: JSONValue = None
    inputs: dict[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Sampling(Generic[E]):
    """How `--limit` samples a run's episodes (heedful.sampling)."""

    units: Callable[[Sequence[E]], list[Unit]]
    """The episodes cut into sampling units, each with its stratum."""
    strata: str
    """How `units` stratifies, for report titles ("scene x level")."""


def _per_episode(episodes: Sequence[EpisodeModel]) -> list[Unit]:
    return one_unit_per_episode(len(episodes))


@dataclass(frozen=True)
class Rollout(Generic[D, E]):
    """Part 3: what a run rolls out and how one episode meets one agent."""

    model: type[E]
    run: Callable[[E, Agent, RolloutContext], Record]
    """One episode with the agent. Agent transport errors propagate (the runner records them with their status)."""
    record_base: Callable[[E, RolloutContext], RecordBase]
    """The keys, gold and inputs of the episode's record (a failure record is this with its status and error)."""
    kinds: frozenset[AgentKind]
    """The agent kinds `run` accepts (`heedful.capabilities.AGENT_KINDS`)."""
    for_run: Callable[[Sequence[D], RunOptionValues], Sequence[E]] | None = None
    """The episodes a run rolls out from the selected lines, read-only; None: the lines themselves (D is E)."""
    parse: Callable[[str], D | E] | None = None
    """An episode or a dataset line from its `model_dump_json()` text (across processes, a cached dataset's lines);
    None: `model`'s."""
    line_of: Callable[[E], D] | None = None
    """The dataset line an episode was built from (tabletop: a trial's task); None: the episodes are the lines."""
    steps: Callable[[E], int | None] | None = None
    """The steps an episode will take when known before it runs (lockstep batches start the longest first)."""
    order: Literal["shuffled", "dataset"] = "shuffled"
    """"shuffled" (seeded by the run seed: the order tells nothing) or "dataset" (independent episodes)."""
    sampling: Sampling[E] = field(default_factory=lambda: Sampling(_per_episode, "no groups (a seeded random sample)"))


@dataclass(frozen=True)
class View(Generic[D]):
    """Part 5: how the suite's results and episodes read (layouts are data: one renderer prints every format)."""

    paper_tables: tuple[PaperTable, ...] = ()
    """The report's tables in the papers' layouts, for `heedful report --format markdown|latex`."""
    figure: FigureLayout | None = None
    """The main figure, for `heedful plot`."""
    glossary: tuple[tuple[str, str], ...] = ()
    """(term, meaning) of the suite's own report terms, for `heedful report --explain`."""
    task_columns: tuple[str, ...] = ()
    """The grouping keys `heedful list tasks SUITE` prints beside each id."""
    describe: Callable[[D], tuple[str, str]] | None = None
    """(instruction, one-line description) of a dataset line; None: its `instruction` field."""
    observation: Callable[[D], list[tuple[str, str]]] | None = None
    """(label, text) lines of what the agent observes in a dataset line, for `heedful show`."""
    record_details: Callable[[Record], list[tuple[str, str]]] | None = None
    """(label, text) lines of a record's suite-specific outcome, for `heedful show`."""
    report_text: Callable[[Sequence[MetricRow], str], str] | None = None
    """The terminal report (rows, title); None: the generic metric table."""
    comparison_text: Callable[[Sequence[ComparisonRow], str], str] | None = None
    """The terminal comparison (rows, title); None: the generic comparison table."""
    export_columns: Mapping[str, ColumnType] = field(default_factory=dict)
    """The types of the suite's grouping keys (`Record.keys`) and per-episode scores (`Record.scores`) as columns of
    `heedful export`; a key it does not name is a string column, a score a number column."""
    export_patterns: Mapping[str, ColumnType] = field(default_factory=dict)
    """Regular expressions of further columns and their types (tabletop: one intent / execution pair per stage)."""
