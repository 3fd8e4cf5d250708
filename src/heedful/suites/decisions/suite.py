"""The decisions suite (One Word, Different Action protocol): generate, roll out, score, report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.language.arms import arm_of
from heedful.metrics.layouts import FigureLayout, PaperTable
from heedful.metrics.rows import MetricRow
from heedful.records import PROMPT, Record, Status
from heedful.replies import as_reply
from heedful.sampling import Unit
from heedful.suites.base import RolloutContext, SuiteBase
from heedful.suites.decisions import arms, conditions, dataset
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.options import DecisionsRunOptions

if TYPE_CHECKING:
    from heedful.metrics.scoring import Scoring


class DecisionsSuite(SuiteBase):
    """Fixed decision states with paired task-preserving and task-changing instructions."""

    name = "decisions"
    version = "decisions-v4"
    run_options = DecisionsRunOptions
    splits = ("all", "train", "val", "test")
    agent_kinds = ("decision",)
    check_config = {  # noqa: RUF012 - read only
        "object_anchors": 4,
        "action_anchors": 4,
        "atomic_families": 8,
        "multi_families": 1,
        "visual_families": 0,
    }
    has_images = True

    def generate(
        self, seed: int, config: dict[str, Any] | None = None, progress: Callable[[int, int], Any] | None = None
    ) -> list[DecisionEpisode]:
        # imported here: a run of a cached dataset never generates (the generator's modules cost 40 ms to import)
        from heedful.suites.decisions.generate import generate, parse_config

        return generate(seed, parse_config(config), progress)

    def load_dataset(self, path: Path, *, verify: bool = True) -> list[DecisionEpisode]:
        return dataset.load_episodes(path, verify=verify)

    def save_dataset(self, episodes: Sequence[DecisionEpisode], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
        return dataset.save(episodes, out, {"suite": self.name, "version": self.version, **meta})

    def attach_images(
        self, episodes: Sequence[DecisionEpisode], out: Path, *, size: int, progress: Callable[[int, int], Any] | None
    ) -> list[DecisionEpisode]:
        """Render the visual subset's states into `out/images/` (see `heedful.suites.decisions.images`)."""
        from heedful.suites.decisions.images import attach_images

        return attach_images(episodes, out, size=size, progress=progress)

    def episode_schema(self) -> str:
        return dataset.schema_text()

    def parse_episode(self, text: str) -> DecisionEpisode:
        if arms.OTHER_KEY in text:  # a run's line with its `--instruction other` substitute
            return arms.DecisionRunEpisode.model_validate_json(text)
        return DecisionEpisode.model_validate_json(text)

    def dataset_hash(self, episodes: Sequence[DecisionEpisode]) -> str:
        """The hash of the dataset lines, without an `other` arm's substitutes (the arms of one dataset pair)."""
        from heedful.suites.episode_files import content_hash_without

        return content_hash_without(episodes, "other")

    def training_episodes(self, episodes: Sequence[DecisionEpisode]) -> list[DecisionEpisode]:
        return [ep for ep in episodes if ep.split == "train"]

    def check_options(self, options: dict[str, Any]) -> None:
        conditions.check_condition_options(options)
        super().check_options(options)
        arms.check_arm_options(options, arm_of(options))

    def prepare_options(self, options: dict[str, Any], dataset: Path | None) -> dict[str, Any]:
        """Options completed from the dataset's location (the visual condition reads images beside it)."""
        return conditions.prepare_options(options, dataset)

    def episodes_for_run(
        self, episodes: Sequence[DecisionEpisode], options: dict[str, Any]
    ) -> Sequence[DecisionEpisode]:
        """All episodes, or the visual subset for condition=visual / subset=visual; under `--instruction other` each
        with its substitute (`heedful.suites.decisions.arms`)."""
        chosen = conditions.select_for_run(episodes, options)
        return arms.with_others(chosen) if arm_of(options) == "other" else chosen

    def run_label(self, options: dict[str, Any]) -> str:
        """The report title's part naming masking and the condition, e.g. " | condition visual (visual subset)"."""
        return (" (masked instructions)" if options.get("mask") else "") + conditions.condition_label(options)

    def run_tag(self, options: dict[str, Any]) -> str:
        """ "-masked", "-visual" and "-paraphrase" in the default run directory's name."""
        tag = "-visual" if conditions.is_visual(options) else "-paraphrase" if conditions.is_paraphrase(options) else ""
        return ("-masked" if options.get("mask") else "") + tag

    def required_inputs(self, options: dict[str, Any]) -> tuple[str, ...]:
        """What an agent must read under `options`: ("image",) in the visual condition."""
        return conditions.required_inputs(options)

    def _record(self, episode: DecisionEpisode, context: RolloutContext, **fields: Any) -> Record:
        return Record(
            episode_id=episode.episode_id,
            index=context.index,
            keys=episode.keys(),
            gold=episode.gold,
            **fields,
        )

    def rollout(self, episode: DecisionEpisode, agent: Any, context: RolloutContext) -> Record:
        """Ask the agent once, parse strictly, score by exact match.

        Transport errors (AgentInterfaceError, AgentTimeoutError) propagate to the runner, which records
        them with their own status.
        """
        episode = conditions.worded(episode, context.options)  # condition=paraphrase: the paraphrase is shown
        arm = arm_of(context.options)
        observation = build_observation(
            arms.shown(episode, arm, context.seed),
            run_seed=context.run_seed,
            mask=bool(context.options.get("mask")),
            image_png=conditions.image_for(episode, context.options),
            privileged=context.declarations(agent).privileged,
        )
        reply = as_reply(agent.decide(observation))
        parsed = parse_answer(reply.text, episode.decision_type, observation.candidate_ids)
        info = dict(reply.info)
        prompt = info.pop(PROMPT, None)
        return self._record(
            episode,
            context,
            status=Status.OK if parsed.ok else Status.PARSE_ERROR,
            error=parsed.reason,
            raw_output=reply.text,
            prediction=parsed.decision,
            correct=parsed.ok and parsed.decision == episode.gold,
            scores=arms.arm_scores(episode, arm, parsed.decision, parsed.ok),
            usage=dict(reply.usage),
            agent_info=info,
            inputs={**self._inputs(episode, context), **({PROMPT: prompt} if isinstance(prompt, dict) else {})},
        )

    @staticmethod
    def _inputs(episode: DecisionEpisode, context: RolloutContext) -> dict[str, Any]:
        """What the agent is shown: the instruction (masked under --mask), the candidates, the image if any."""
        masked = bool(context.options.get("mask"))
        arm = arm_of(context.options)
        seen = arms.shown(episode, arm, context.seed)
        shown = {
            "instruction": seen.masked_instruction if masked else seen.instruction,
            "candidates": [c.id for c in episode.candidates],
            **arms.arm_inputs(episode, arm),
        }
        visual = conditions.is_visual(context.options) and episode.image is not None
        return {**shown, **({"image": episode.image} if visual else {})}

    def failure_record(self, episode: DecisionEpisode, context: RolloutContext, status: Status, error: str) -> Record:
        episode = conditions.worded(episode, context.options)
        return self._record(episode, context, status=status, error=error, inputs=self._inputs(episode, context))

    sample_strata = "category x split, whole families (the last one may be cut)"
    task_columns = ("split", "category", "role")
    glossary = (
        (
            "family",
            "four instances on one fixed decision state: base, preserve (a rewording with the same gold "
            "decision), change (one constraint changed, so the decision must change) and change_preserve; the "
            "bootstrap resamples whole families (--cluster anchor: anchors)",
        ),
        (
            "exact match",
            "a decision is right only when it equals the gold exactly (sets compared as sets, "
            "sequences in order); an answer that does not parse is wrong and counts against parse_success",
        ),
        (
            "invariance",
            "decision_invariance: a preserving pair answered right and identically; over_sensitivity: "
            "a preserving pair whose decision moved (the wording, not the meaning, changed it)",
        ),
        (
            "sensitivity",
            "decision_sensitivity: a changing pair answered right and differently; over_invariance: "
            "a changing pair that kept its decision (the instruction's changed word was ignored)",
        ),
        (
            "chance",
            "a uniformly random valid answer: 1/m for one of m candidates, 1/(2^m - 1) for a set, "
            "1/(number of orderings) for a sequence; pair and family metrics follow exactly from these",
        ),
        (
            "masked",
            "--mask removes the task-critical words of each instruction: what remains shows how far the "
            "scene alone suggests the answer",
        ),
    )

    def observation_summary(self, episode: Any) -> list[tuple[str, str]]:
        """The state and candidates as the structured condition shows them, and the image of the visual one."""
        from heedful.suites.decisions.observation import state_text

        ep: DecisionEpisode = episode
        return [("observation", state_text(ep)), *([("image", ep.image)] if ep.image else [])]

    def describe_task(self, episode: Any) -> tuple[str, str]:
        ep: DecisionEpisode = episode
        return ep.instruction, (
            f"{ep.subtype}, {ep.decision_type} among {len(ep.candidates)} candidates; family {ep.family_id}"
        )

    def sample_units(self, episodes: Sequence[DecisionEpisode]) -> list[Unit]:
        """One unit per family (its instances are scored together), stratified by category x split."""
        families: dict[str, list[int]] = {}
        strata: dict[str, str] = {}
        for position, ep in enumerate(episodes):
            families.setdefault(ep.family_id, []).append(position)
            strata[ep.family_id] = f"{ep.category}/{ep.split}"
        return [(strata[family], positions) for family, positions in families.items()]

    @property
    def scoring(self) -> Scoring:
        from heedful.metrics.decisions import SCORING

        return SCORING

    @property
    def paper_tables(self) -> tuple[PaperTable, ...]:
        from heedful.suites.decisions.layouts import PAPER_TABLES

        return PAPER_TABLES

    @property
    def figure(self) -> FigureLayout:
        from heedful.suites.decisions.layouts import FIGURE

        return FIGURE

    def report(self, records: Sequence[Record], options: dict[str, Any]) -> list[MetricRow]:
        from heedful.metrics.chance import with_chance
        from heedful.metrics.decisions_chance import decisions_chance

        return with_chance(super().report(records, options), decisions_chance(records))

    def render_report(self, rows: Sequence[MetricRow], title: str) -> str:
        """The metric table with a chance column: the exact score of a uniformly random valid answer."""
        from heedful.metrics.render import render_metric_table

        level = self.scoring.reference  # chance: a uniformly random valid answer
        return render_metric_table(rows, title=title, chance_note=level.note, reference_label=level.label)
