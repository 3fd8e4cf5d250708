"""The household suite (Situated Instruction Following protocol): generate, roll out, score, report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError
from heedful.language.arms import OTHER_EPISODE, arm_of
from heedful.language.reinstruct import SWITCH_EPISODE, SWITCH_INSTRUCTION, SWITCH_STEP, reinstruct_of
from heedful.metrics.layouts import FigureLayout, PaperTable
from heedful.metrics.rows import MetricRow
from heedful.records import Record, Status
from heedful.requirements import Requirement
from heedful.sampling import Unit
from heedful.suites.base import RolloutContext, SuiteBase
from heedful.suites.household import arms, dataset, perception
from heedful.suites.household.dataset import SUITE_VERSION
from heedful.suites.household.generate import generate_with_stats, parse_config
from heedful.suites.household.model import SPLITS, HouseholdEpisode
from heedful.suites.household.options import HouseholdRunOptions
from heedful.suites.household.rollout import MAX_CALLS, EpisodeRun, run_episode

if TYPE_CHECKING:
    from heedful.metrics.compare import ComparisonRow
    from heedful.metrics.scoring import Scoring

CHANCE_NOTE = (
    "words-only: the success of one uniform guess among the rooms the words fit, all else perfect (PnP and clear "
    "tasks 100%); SPL has none"
)


class HouseholdSuite(SuiteBase):
    """Two-phase household tasks (PnP, S_obj, S_hum) on a 2-D metric house simulator."""

    name = "household"
    version = SUITE_VERSION
    run_options = HouseholdRunOptions
    splits = ("all", "val", "test", *SPLITS)
    agent_kinds = ("planner",)
    check_config = {"houses": 2, "seen_houses": 1, "per_split_type": 1}  # noqa: RUF012 - read only

    def __init__(self) -> None:
        self.last_stats: dict[str, Any] = {}

    def generate(
        self, seed: int, config: dict[str, Any] | None = None, progress: Callable[[int, int], Any] | None = None
    ) -> list[HouseholdEpisode]:
        episodes, self.last_stats = generate_with_stats(seed, parse_config(config), progress)
        return episodes

    def load_dataset(self, path: Path, *, verify: bool = True) -> list[HouseholdEpisode]:
        dataset.check_version(Path(path), self.version)
        return dataset.load_episodes(Path(path), verify=verify)

    def save_dataset(self, episodes: Sequence[HouseholdEpisode], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
        extra = {"generation": self.last_stats} if self.last_stats else {}
        return dataset.save(episodes, Path(out), {"suite": self.name, "version": self.version, **meta, **extra})

    def episode_schema(self) -> str:
        import json

        return json.dumps(HouseholdEpisode.model_json_schema(), indent=2, sort_keys=True) + "\n"

    def parse_episode(self, text: str) -> HouseholdEpisode:
        if arms.OTHER_KEY in text or arms.SWITCH_KEY in text:  # a run's line with its substitute or switch
            return arms.HouseholdRunEpisode.model_validate_json(text)
        return HouseholdEpisode.model_validate_json(text)

    def dataset_hash(self, episodes: Sequence[HouseholdEpisode]) -> str:
        """The hash of the dataset lines, without an `other` arm's substitutes (the arms of one dataset pair)."""
        from heedful.suites.episode_files import content_hash_without

        return content_hash_without(episodes, "other", "switch")

    def episodes_for_run(self, episodes: Sequence[HouseholdEpisode], options: dict[str, Any]) -> Sequence[Any]:
        """The episodes as selected; under `--instruction other` each with its substitute (`household.arms`)."""
        rule = reinstruct_of(options)
        if rule is not None:
            return arms.with_switches(episodes, rule.text)
        return arms.with_others(episodes) if arm_of(options) == "other" else episodes

    def training_episodes(self, episodes: Sequence[HouseholdEpisode]) -> list[HouseholdEpisode]:
        """None: the benchmark has validation and test splits only (the paper's training tasks are not part of it)."""
        return []

    def check_options(self, options: dict[str, Any]) -> None:
        perception.check_perception_options(options)
        super().check_options(options)
        reinstruct_of(options)

    def prepare_options(self, options: dict[str, Any], dataset: Path | None) -> dict[str, Any]:
        """Options with the noise rates spelled out under noisy perception (the manifest records them)."""
        return perception.prepare_options(options)

    def run_label(self, options: dict[str, Any]) -> str:
        """The report header's part for the run options: the perception condition."""
        return perception.label(options)

    def _record(
        self, episode: HouseholdEpisode, context: RolloutContext, switch_step: int | None = None, **fields: Any
    ) -> Record:
        gold = {
            "goal": episode.goal.model_dump(mode="json"),
            "target_category": episode.target_category,
            "candidate_rooms": list(episode.candidate_rooms),
            "oracle_steps": episode.oracle_steps,
        }
        arm = arm_of(context.options)
        other = arms.other_of(episode) if arm == "other" else None
        # what the human says; the rest the agent perceives
        inputs: dict[str, Any] = {"instruction": arms.shown(episode, arm, context.seed).command}
        inputs.update({OTHER_EPISODE: other.episode_id} if other else {})
        switch = arms.switch_of(episode)
        if switch is not None:
            inputs.update({SWITCH_EPISODE: switch.to.episode_id, SWITCH_INSTRUCTION: switch.to.instruction})
            inputs.update({} if switch_step is None else {SWITCH_STEP: switch_step})
        return Record(
            episode_id=episode.episode_id, index=context.index, keys=episode.keys(), gold=gold, inputs=inputs, **fields
        )

    def rollout(self, episode: HouseholdEpisode, agent: Any, context: RolloutContext) -> Record:
        """Run the closed planning loop; transport errors of the agent propagate to the runner."""
        max_calls = int(context.options.get("max_calls", MAX_CALLS))
        detector = perception.detector_for(episode, context.options, context.seed)
        run = run_episode(
            episode,
            agent,
            context.seed,
            max_calls=max_calls,
            detector=detector,
            arm=arm_of(context.options),
            declared=context.declarations(agent),
        )
        return self.record_of(episode, context, run)

    def record_of(self, episode: HouseholdEpisode, context: RolloutContext, run: EpisodeRun) -> Record:
        score = run.score
        if score is None:
            raise ConfigError("the episode was not scored")
        return self._record(
            episode,
            context,
            status=run.status,
            error=run.error,
            raw_output="\n---\n".join(run.replies),
            prediction={
                "actions": [o.action for o in run.outcomes],
                "tools": [o.model_dump(mode="json", exclude_none=True) for o in run.outcomes],
                "outcome": score.reason,
                "ended_by": run.ended_by,
                **({"model_queries": list(run.queries)} if run.queries else {}),
                **perception.record_fields(run.env, episode),  # the scene's target, whatever the words
            },
            correct=score.success and run.status is Status.OK,
            switch_step=run.switch_step,
            scores={
                "success": float(score.success and run.status is Status.OK),
                # a re-instructed episode has no oracle path from the switch: no SPL (docs/language-dependence.md)
                **({} if run.switch else {"spl": score.spl if run.status is Status.OK else 0.0}),
                **run.switch,
                "steps": float(score.steps),
                "oracle_steps": float(score.oracle_steps),
                "followed_steps": float(score.followed_steps),
                **{name: float(met and run.status is Status.OK) for name, met in run.followed.items()},
            },
            usage=dict(run.usage),
            agent_info=dict(run.info),
        )

    def failure_record(self, episode: HouseholdEpisode, context: RolloutContext, status: Status, error: str) -> Record:
        return self._record(episode, context, status=status, error=error)

    def requirements(self, options: dict[str, Any]) -> tuple[Requirement, ...]:
        return (Requirement("skfmm", "the household planner's fast marching"),)

    sample_strata = "split x task type x clear / ambiguous"
    task_columns = ("split", "task_type", "ambiguous")
    glossary = (
        (
            "SPL",
            "the paper's primary metric: success x L_oracle / max(L, L_oracle), path lengths in low-level "
            "steps against the oracle's; SR (success) beside it",
        ),
        (
            "task types",
            "PnP: pick-and-place, the object stays where exploration saw it; S_obj: the human moved the "
            "object and says where, vaguely or not; S_hum: bring the object to the human, who walks to a room it "
            "describes",
        ),
        (
            "clear / ambiguous",
            "clear: the words fit exactly one room; ambiguous: 2 or more, so only the human's "
            "actions (where it carried the object, where it walked) say which",
        ),
        (
            "words-only",
            "the chance column: SR of an agent that reads only the words, guesses one of the rooms they "
            "fit uniformly, never revises and does all else perfectly (PnP and clear tasks: 100%); an upper bound of "
            "what ignoring the human's actions earns without searching; SPL has none",
        ),
        (
            "error modes",
            "Table 8: each failed episode gets one mode by ordered rules (parsing, planning, strategy: "
            "object / room / human, actuation, perception); transport failures are counted apart",
        ),
    )

    def observation_summary(self, episode: Any) -> list[tuple[str, str]]:
        """The house, where the human is going (S_hum) and what the human said while the agent explored."""
        ep: HouseholdEpisode = episode
        rooms = ", ".join(f"{i} {r.function}" for i, r in enumerate(ep.house.rooms))
        lines = [("house", f"{ep.house_id}: rooms {rooms}"), ("communication", "\n".join(ep.communication) or "-")]
        if ep.candidate_rooms:
            lines.append(("fitting rooms", ", ".join(str(r) for r in ep.candidate_rooms)))
        return lines

    def record_details(self, record: Record) -> list[tuple[str, str]]:
        """The tool calls in order, how the episode ended and how many model queries it took."""
        prediction = record.prediction if isinstance(record.prediction, dict) else {}
        actions = prediction.get("actions") or []
        out = [("actions", " | ".join(str(a) for a in actions) or "-")]
        if prediction.get("outcome"):
            out.append(("outcome", f"{prediction['outcome']} (ended by {prediction.get('ended_by') or '-'})"))
        if prediction.get("model_queries"):
            out.append(("queries", f"{len(prediction['model_queries'])} model queries (in prediction.model_queries)"))
        return out

    def describe_task(self, episode: Any) -> tuple[str, str]:
        ep: HouseholdEpisode = episode
        clarity = "" if ep.ambiguous is None else ("ambiguous, " if ep.ambiguous else "clear, ")
        goal = f"a {ep.goal.receptacle}" if ep.goal.receptacle else f"the {ep.goal.function or ep.goal.kind}"
        rooms = len(ep.house.rooms)
        return ep.command, (
            f"{clarity}bring a {ep.target_category} to {goal} in {ep.house_id} ({rooms} rooms); "
            f"oracle {ep.oracle_steps} steps"
        )

    def sample_units(self, episodes: Sequence[HouseholdEpisode]) -> list[Unit]:
        return [(f"{ep.split}/{ep.task_type}/{ep.ambiguous}", [i]) for i, ep in enumerate(episodes)]

    @property
    def paper_tables(self) -> tuple[PaperTable, ...]:
        from heedful.suites.household.layouts import PAPER_TABLES

        return PAPER_TABLES

    @property
    def figure(self) -> FigureLayout:
        from heedful.suites.household.layouts import FIGURE

        return FIGURE

    @property
    def scoring(self) -> Scoring:
        """Success and SPL per group (a bootstrap over episodes), then the Table 8 error-mode rows."""
        from heedful.suites.household.error_table import ERROR_SCORING
        from heedful.suites.household.metrics import SCORING

        return replace(SCORING, extra=(ERROR_SCORING,))

    def render_report(self, rows: Sequence[MetricRow], title: str) -> str:
        """SR and SPL side by side (SPL, the paper's primary metric, first), the generic per-group table, then
        the paper's Table 6, Table 9 and Table 8 (error modes) layouts."""
        from heedful.metrics.render import render_metric_table
        from heedful.metrics.tables import table_text
        from heedful.suites.household.error_table import ERROR_METRICS, error_table

        generic = [row for row in rows if row.metric not in ERROR_METRICS]
        errors = error_table(rows)
        level = self.scoring.reference  # the words-only level, not chance
        table = render_metric_table(generic, chance_note=level.note, reference_label=level.label)
        headline, *layouts = self.paper_tables
        pivots = "\n\n".join(table_text(paper, rows) for paper in layouts)
        text = f"{title}\n{table_text(headline, rows)}\n\n{table}\n\n{pivots}"
        return f"{text}\n\n{errors}" if errors else text

    def render_comparison(self, rows: Sequence[ComparisonRow], title: str) -> str:
        """`heedful compare`: SR and SPL of both runs side by side per task type and clarity, then every group."""
        from heedful.metrics.render import render_comparison_table
        from heedful.metrics.tables import listing_comparison_text

        head = listing_comparison_text(self.paper_tables[0], rows)
        return f"{title}\n{head}\n\n{render_comparison_table(rows)}"

    def report(self, records: Sequence[Record], options: dict[str, Any]) -> list[MetricRow]:
        from heedful.metrics.chance import with_chance
        from heedful.suites.household.metrics import groups_of, household_chance

        rows = super().report(records, options)
        return with_chance(rows, household_chance(records, groups_of))
