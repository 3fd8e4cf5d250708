"""Conformance checks for suites and agents, in the spirit of Gymnasium's `check_env`.

`check_suite("household")` and `check_agent("household", "situated")` (or `heedful check suite NAME`,
`heedful check agent SUITE/NAME`) exercise every part of the contract a third-party suite or agent must keep:
the declared members, seeded generation that repeats byte for byte, datasets that survive a save and a load,
options that refuse what they do not know, rollouts that give the same record twice, records that the suite
reports, and agents that keep no state from one episode to the next. Each check runs on a small dataset
(`suite.check_config`), so the whole of it takes seconds for scripted agents.

Every problem is collected; `ConformanceError` lists them all, so one run shows everything to fix.
"""

from __future__ import annotations

import inspect
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.capabilities import AGENT_KINDS, capabilities
from heedful.errors import ConfigError, HeedfulError
from heedful.metrics.rows import MetricRow
from heedful.records import Record, Status
from heedful.runner.stateless import replay_order
from heedful.suites.base import Episode, RolloutContext, Suite
from heedful.suites.options import RunOptions

if TYPE_CHECKING:
    from heedful.protocols import Agent

# every method of the Suite protocol (its data members are checked by type in `_members`)
_MEMBERS = tuple(name for name, _ in inspect.getmembers(Suite, inspect.isfunction) if not name.startswith("_"))


class ConformanceError(HeedfulError):
    """A suite or an agent breaks its contract; the message lists every problem found (`findings` has all)."""

    def __init__(self, message: str, findings: Findings) -> None:
        super().__init__(message)
        self.findings = findings


@dataclass
class Findings:
    """What a check found: the checks that passed and the problems, each one line."""

    subject: str
    passed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def check(self, what: str, test: Callable[[], str | None]) -> None:
        """Run `test` (returns a problem or None); an exception it raises is a problem too."""
        try:
            problem = test()
        except Exception as exc:
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem:
            self.problems.append(f"{what}: {problem}")
        else:
            self.passed.append(what)

    def raise_if_any(self) -> Findings:
        if self.problems:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            count = f"{len(self.problems)} problem" + ("s" if len(self.problems) > 1 else "")
            raise ConformanceError(f"{self.subject} breaks its contract ({count}):\n{lines}", self)
        return self


def _dumps(items: Sequence[Episode]) -> list[str]:
    return [item.model_dump_json() for item in items]


def _same_records(a: Sequence[Record], b: Sequence[Record]) -> str | None:
    for x, y in zip(a, b, strict=True):
        if x.deterministic_dict() != y.deterministic_dict():
            changed = sorted(k for k, v in x.deterministic_dict().items() if y.deterministic_dict().get(k) != v)
            return f"episode {x.episode_id}: the records differ in {', '.join(changed)}"
    return None


def _no_progress(n: int = 1, total: int | None = None) -> None:
    """A progress callback that shows nothing (a suite may call it with fewer arguments)."""


@dataclass
class _Sample:
    """A small dataset of a suite and what a run makes of it."""

    suite: Suite
    episodes: list[Episode]
    run_episodes: list[Episode]


def _sample(suite: Suite, findings: Findings) -> _Sample | None:
    config = dict(suite.check_config)
    first: list[Episode] = []

    def generates() -> str | None:
        try:  # as `heedful generate` calls it
            first.extend(suite.generate(0, config, progress=_no_progress))
        except TypeError as err:
            if "progress" not in str(err):
                raise
            return f"generate must take progress= as the Suite protocol declares it (heedful generate passes it): {err}"
        if not first:
            return "generate(0, check_config) gave no episodes"
        if _dumps(first) != _dumps(suite.generate(0, config)):
            return "two generations with seed 0 differ (generation must be seeded and deterministic)"
        ids = [ep.episode_id for ep in first]
        if len(set(ids)) != len(ids):
            return "episode ids repeat"
        return None

    findings.check("generate is seeded and deterministic, with unique episode ids", generates)
    if not first:
        return None
    run_episodes: list[Episode] = []
    findings.check(
        "episodes_for_run gives episodes for the default options", lambda: _for_run(suite, first, run_episodes)
    )
    return _Sample(suite, first, run_episodes) if run_episodes else None


_SAMPLES: dict[tuple[type, str, str], _Sample] = {}


def _agent_sample(suite: Suite) -> _Sample:
    """The suite's small dataset for agent checks, generated once per process (check_suite checks generation)."""
    key = (type(suite), suite.name, json.dumps(suite.check_config, sort_keys=True))  # declared suites share a type
    if key not in _SAMPLES:
        episodes = list(suite.generate(0, dict(suite.check_config)))
        run_episodes: list[Episode] = []
        if _for_run(suite, episodes, run_episodes):
            raise ConformanceError(f"suite {suite.name!r} gives no episode to run", Findings(f"suite {suite.name!r}"))
        _SAMPLES[key] = _Sample(suite, episodes, run_episodes)
    return _SAMPLES[key]


def _for_run(suite: Suite, episodes: list[Episode], out: list[Episode]) -> str | None:
    out.extend(suite.episodes_for_run(episodes, suite.prepare_options({}, None)))
    return None if out else "no episode to run"


def _members(suite: Suite) -> str | None:
    # probed with getattr: the object checked may not keep the protocol it is typed with
    missing = [m for m in _MEMBERS if not callable(getattr(suite, m, None))]
    if missing:
        derived = "declare the suite as a heedful.suites.declared.DeclaredSuite: it derives them"
        return f"missing methods {', '.join(missing)} ({derived})"
    for attr, kind in (("name", str), ("version", str), ("report_clusters", tuple), ("splits", tuple)):
        if not isinstance(getattr(suite, attr, None), kind) or not getattr(suite, attr):
            return f"{attr} must be a non-empty {kind.__name__}"
    if suite.splits[0] != "all":
        return f'splits must start with "all", got {suite.splits}'
    if not (isinstance(suite.run_options, type) and issubclass(suite.run_options, RunOptions)):
        return "run_options must be a subclass of heedful.suites.options.RunOptions"
    unknown = set(suite.agent_kinds) - set(AGENT_KINDS)
    if not suite.agent_kinds or unknown:
        return f"agent_kinds must name some of {', '.join(AGENT_KINDS)}, got {suite.agent_kinds}"
    return None


def _flags(suite: Suite) -> str | None:
    from heedful.cli.commands import SuiteRunParser, add_run_arguments  # the real `heedful run SUITE` parser

    parser = SuiteRunParser(prog=f"heedful run {suite.name}")
    parser.suite_name = suite.name
    add_run_arguments(parser)
    parser.add_suite_arguments(suite)
    return None


def _files(sample: _Sample) -> str | None:
    suite, episodes = sample.suite, sample.episodes
    schema = json.loads(suite.episode_schema())
    try:
        import jsonschema  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - jsonschema comes with the test extra
        jsonschema = None
    with tempfile.TemporaryDirectory() as tmp:
        summary = suite.save_dataset(episodes, Path(tmp), {"seed": 0, "config": dict(suite.check_config)})
        if not {"counts", "content_hash"} <= set(summary):
            return f"save_dataset must return counts and content_hash, got {sorted(summary)}"
        loaded = list(suite.load_dataset(Path(tmp)))
        lines = [line for line in (Path(tmp) / "episodes.jsonl").read_text(encoding="utf-8").splitlines() if line]
    if _dumps(loaded) != _dumps(episodes):
        return "load_dataset(save_dataset(episodes)) is not the same episodes"
    if suite.dataset_hash(loaded) != suite.dataset_hash(episodes):
        return "dataset_hash differs for the same episodes"
    if _dumps([suite.parse_episode(text) for text in _dumps(episodes)]) != _dumps(episodes):
        return "parse_episode(episode.model_dump_json()) is not the same episode"
    if jsonschema is not None:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        validator = validator_class(schema)  # built once: jsonschema.validate re-checks the schema per call
        for line in lines:
            validator.validate(json.loads(line))
    return None


def _options(suite: Suite) -> str | None:
    suite.check_options({})
    try:
        suite.check_options({"no_such_option_": 1})
    except ConfigError:
        return None
    return "check_options accepted an option the suite does not know (it must raise ConfigError)"


def _training(sample: _Sample) -> str | None:
    ids = {ep.episode_id for ep in sample.episodes}
    outside = [ep.episode_id for ep in sample.suite.training_episodes(sample.episodes) if ep.episode_id not in ids]
    return f"training_episodes gave episodes outside the dataset: {outside[:3]}" if outside else None


def _failure(sample: _Sample) -> str | None:
    episode = sample.run_episodes[0]
    record = sample.suite.failure_record(episode, RolloutContext(seed=0, index=3), Status.CRASHED, "boom")
    if (record.episode_id, record.index, record.status) != (episode.episode_id, 3, Status.CRASHED):
        return "failure_record must keep the episode id, index and status it is given"
    if record.correct:
        return "a failure record must not be scored correct"
    return None


def _rollouts(sample: _Sample, make: Callable[[], Agent], episodes: Sequence[Episode]) -> list[Record]:
    from heedful.runner.episode import fit_agent, rollout_one
    from heedful.runner.manifest import RunSpec

    suite = sample.suite
    agent = make()
    try:
        fit_agent(agent, suite.training_episodes(sample.episodes))
        spec = RunSpec(
            suite=suite.name,
            suite_version=suite.version,
            dataset_hash=suite.dataset_hash(sample.episodes),
            dataset_source="heedful check",
            agent=capabilities(agent).name,
            seed=0,
            options=suite.prepare_options({}, None),  # what a real run with default options stores
        )
        index = {ep.episode_id: i for i, ep in enumerate(sample.run_episodes)}
        return [rollout_one(suite, agent, ep, index[ep.episode_id], spec) for ep in episodes]
    finally:
        close = capabilities(agent).close
        if close is not None:
            close()


def _failed(records: Sequence[Record]) -> str | None:
    """The first record the agent did not answer: a crash, an interface error (e.g. a reply of the wrong type)
    or a timeout. A parse error is an answer (scored wrong), not a failure of the contract."""
    bad = [r for r in records if r.status in (Status.CRASHED, Status.INTERFACE_ERROR, Status.TIMEOUT)]
    return f"{bad[0].status.value} on {bad[0].episode_id}: {bad[0].error}" if bad else None


def _reports(sample: _Sample, records: list[Record]) -> str | None:
    suite = sample.suite
    rows = suite.report(records, {"resamples": 50, "cluster": suite.report_clusters[0], "seed": 0})
    if not rows or not all(isinstance(row, MetricRow) for row in rows):
        return "report must return a non-empty list of heedful.metrics.rows.MetricRow"
    spec = suite.metric_spec
    if not len(spec):
        return "metric_spec declares no metric: list what report computes (heedful.metrics.spec.MetricSpec)"
    if unknown := spec.undeclared(rows):
        return f"report emits metrics {unknown} that metric_spec does not declare"
    if not isinstance(suite.render_report(rows, "check"), str):
        return "render_report must return text"
    compared = list(suite.compare(records, records, resamples=50, seed=0))
    if not compared:
        return "compare must return comparison rows"
    if not isinstance(suite.render_comparison(compared, "check"), str):
        return "render_comparison must return text"
    return None


def check_suite(suite: str | Suite, *, episodes: int = 2) -> Findings:
    """Check a registered suite (by name) or a suite object; returns the findings, raises ConformanceError.

    The rollouts use the suite's `oracle` agent when one is registered, else the first agent registered for it.
    """
    from heedful.agents.registry import agent_names, make_agent
    from heedful.suites.registry import get_suite

    suite = get_suite(suite) if isinstance(suite, str) else suite
    findings = Findings(f"suite {getattr(suite, 'name', suite)!r}")
    findings.check("has every member of the Suite protocol", lambda: _members(suite))
    findings.check("run options become flags of `heedful run SUITE`", lambda: _flags(suite))
    if findings.problems:
        return findings.raise_if_any()
    sample = _sample(suite, findings)
    findings.check("check_options accepts the defaults and refuses an unknown option", lambda: _options(suite))
    if sample is None:
        return findings.raise_if_any()
    findings.check("datasets survive save, load and parse; episodes match episode_schema", lambda: _files(sample))
    findings.check("training_episodes come from the dataset", lambda: _training(sample))
    findings.check("failure_record keeps its episode and is never scored", lambda: _failure(sample))
    names = agent_names(suite.name)
    if not names:
        findings.problems.append("no agent is registered for the suite, so no rollout could be checked")
        return findings.raise_if_any()
    agent = "oracle" if "oracle" in names else names[0]
    chosen = sample.run_episodes[:episodes]
    records: list[Record] = []

    def rolls_out() -> str | None:
        records.extend(_rollouts(sample, lambda: make_agent(agent, {}, suite.name), chosen))
        failed = _failed(records)
        if failed:
            return f"rollout ended in {failed}"
        return _same_records(records, _rollouts(sample, lambda: make_agent(agent, {}, suite.name), chosen))

    findings.check(f"rollout with {agent} gives the same record twice", rolls_out)
    if records:
        findings.check("report, render_report and compare read the records", lambda: _reports(sample, records))
    return findings.raise_if_any()


def check_agent(
    suite: str, agent: str, agent_args: dict[str, Any] | None = None, *, episodes: int = 3, rollouts: bool = True
) -> Findings:
    """Check an agent registered for `suite`: it builds, is of a kind the suite runs, and (with `rollouts`)
    rolls out episodes without crashing, gives the same records when built again, and keeps no state from
    one episode to the next (the same records in a seeded shuffled order, on a fresh agent: the replay of
    `heedful run --audit-stateless`). Returns the findings; raises ConformanceError.
    """
    from heedful.agents.registry import agent_class, make_agent
    from heedful.suites.registry import get_suite

    suite_obj = get_suite(suite)
    args = dict(agent_args or {})
    findings = Findings(f"agent {suite}/{agent}")
    cls = agent_class(agent, suite)  # an unknown name is a lookup error, not a finding

    def kind() -> str | None:
        found = capabilities(cls)
        if found.kind not in suite_obj.agent_kinds:
            want = " or ".join(suite_obj.agent_kinds)
            return f"it is a {found.kind} agent; {suite} runs {want} agents (define decide, act or predict)"
        return None

    findings.check("is a kind of agent the suite runs, with valid declarations", kind)
    findings.check("builds from its arguments", lambda: _builds(make_agent(agent, args, suite)))
    if findings.problems or not rollouts:
        return findings.raise_if_any()
    sample = _agent_sample(suite_obj)
    chosen = sample.run_episodes[:episodes]
    first: list[Record] = []

    def runs() -> str | None:
        first.extend(_rollouts(sample, lambda: make_agent(agent, args, suite), chosen))
        failed = _failed(first)
        return f"answered with {failed}" if failed else None

    if len(chosen) < 2:
        findings.problems.append(
            f"the state check needs at least 2 episodes, got {len(chosen)} (raise --episodes or check_config)"
        )
        return findings.raise_if_any()
    findings.check(f"rolls out {len(chosen)} episodes without a crash, interface error or timeout", runs)
    if not first:
        return findings.raise_if_any()
    findings.check(
        "gives the same records when built again",
        lambda: _same_records(first, _rollouts(sample, lambda: make_agent(agent, args, suite), chosen)),
    )
    order = replay_order(len(chosen), seed=0)  # heedful run --audit-stateless K replays a run's episodes alike
    shuffled = [chosen[i] for i in order]
    findings.check(
        "keeps no state between episodes (the same records in a shuffled order, on a fresh agent)",
        lambda: _same_records(
            [first[i] for i in order], _rollouts(sample, lambda: make_agent(agent, args, suite), shuffled)
        ),
    )
    return findings.raise_if_any()


def _builds(agent: Agent) -> str | None:
    close = capabilities(agent).close
    if close is not None:
        close()
    return None
