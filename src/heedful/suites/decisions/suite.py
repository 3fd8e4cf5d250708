"""The decisions suite (One Word, Different Action protocol), declared in five parts: fixed decision states with
paired task-preserving and task-changing instructions, one question per episode, scored by exact match."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import cast

from pydantic import BaseModel

from heedful.errors import ConfigError
from heedful.language.arms import arm_of
from heedful.protocols import Agent, DecisionAgent
from heedful.records import PROMPT, JSONValue, Record, Status
from heedful.replies import as_reply
from heedful.sampling import Unit
from heedful.suites.base import RolloutContext
from heedful.suites.decisions import arms, conditions, dataset
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.decisions.chance import chance_levels
from heedful.suites.decisions.layouts import FIGURE, PAPER_TABLES
from heedful.suites.decisions.metrics import SCORING
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.observation import build_observation, state_text
from heedful.suites.decisions.options import DecisionsRunOptions
from heedful.suites.declared import DeclaredSuite
from heedful.suites.episode_files import content_hash_without
from heedful.suites.parts import (
    Episodes,
    Images,
    Options,
    Progress,
    RecordBase,
    Rollout,
    RunOptionValues,
    Sampling,
    View,
)

# --- episodes ---


def generate(seed: int, config: Mapping[str, object], progress: Progress | None) -> list[DecisionEpisode]:
    # imported here: a run of a cached dataset never generates (the generator's modules cost 40 ms to import)
    from heedful.suites.decisions import generate as generator

    return generator.generate(seed, generator.parse_config(dict(config)), progress)


def attach_images(
    episodes: Sequence[DecisionEpisode], out: Path, size: int, progress: Progress | None
) -> list[DecisionEpisode]:
    """Render the visual subset's states into `out/images/` (see `heedful.suites.decisions.images`)."""
    from heedful.suites.decisions import images

    return images.attach_images(episodes, out, size=size, progress=progress)


def content_hash(episodes: Sequence[BaseModel]) -> str:
    """The hash of the dataset lines, without an `other` arm's substitutes (the arms of one dataset pair)."""
    return content_hash_without(episodes, "other")


# --- options ---


def check_options(options: RunOptionValues) -> None:
    arms.check_arm_options(options, arm_of(options))


def run_label(options: RunOptionValues) -> str:
    """The report title's part naming masking and the condition, e.g. " | condition visual (visual subset)"."""
    return (" (masked instructions)" if options.get("mask") else "") + conditions.condition_label(options)


def run_tag(options: RunOptionValues) -> str:
    """ "-masked", "-visual" and "-paraphrase" in the default run directory's name."""
    tag = "-visual" if conditions.is_visual(options) else "-paraphrase" if conditions.is_paraphrase(options) else ""
    return ("-masked" if options.get("mask") else "") + tag


# --- rollout ---


def for_run(episodes: Sequence[DecisionEpisode], options: RunOptionValues) -> Sequence[DecisionEpisode]:
    """All episodes, or the visual subset for condition=visual / subset=visual; under `--instruction other` each
    with its substitute (`heedful.suites.decisions.arms`)."""
    chosen = conditions.select_for_run(episodes, options)
    return arms.with_others(chosen) if arm_of(options) == "other" else chosen


def parse(text: str) -> DecisionEpisode:
    if arms.OTHER_KEY in text:  # a run's line with its `--instruction other` substitute
        return arms.DecisionRunEpisode.model_validate_json(text)
    return DecisionEpisode.model_validate_json(text)


def record_base(episode: DecisionEpisode, context: RolloutContext) -> RecordBase:
    """The episode's keys and gold, and what the agent is shown: the instruction (as worded, masked under --mask),
    the candidates, the image if any."""
    episode = conditions.worded(episode, context.options)  # condition=paraphrase: the paraphrase is shown
    arm = arm_of(context.options)
    seen = arms.shown(episode, arm, context.seed)
    shown: dict[str, JSONValue] = {
        "instruction": seen.masked_instruction if context.options.get("mask") else seen.instruction,
        "candidates": [c.id for c in episode.candidates],
        **arms.arm_inputs(episode, arm),
    }
    visual = conditions.is_visual(context.options) and episode.image is not None
    inputs = {**shown, **({"image": episode.image} if visual else {})}
    return RecordBase(keys=episode.keys(), gold=episode.gold, inputs=inputs)


def rollout(episode: DecisionEpisode, agent: Agent, context: RolloutContext) -> Record:
    """Ask the agent once, parse strictly, score by exact match.

    Transport errors (AgentInterfaceError, AgentTimeoutError) propagate to the runner, which records
    them with their own status.
    """
    declared = context.declarations(agent)
    if declared.kind != "decision":  # the kind its methods give (heedful.capabilities), `name` or not
        raise ConfigError(f"decisions rolls out decision agents, got a {declared.kind} agent")
    base = record_base(episode, context)
    episode = conditions.worded(episode, context.options)
    arm = arm_of(context.options)
    observation = build_observation(
        arms.shown(episode, arm, context.seed),
        run_seed=context.run_seed,
        mask=bool(context.options.get("mask")),
        image_png=conditions.image_for(episode, context.options),
        privileged=declared.privileged,
    )
    reply = as_reply(cast(DecisionAgent, agent).decide(observation))
    parsed = parse_answer(reply.text, episode.decision_type, observation.candidate_ids)
    info = dict(reply.info)
    prompt = info.pop(PROMPT, None)
    return Record(
        episode_id=episode.episode_id,
        index=context.index,
        keys=base.keys,
        gold=base.gold,
        status=Status.OK if parsed.ok else Status.PARSE_ERROR,
        error=parsed.reason,
        raw_output=reply.text,
        prediction=parsed.decision,
        correct=parsed.ok and parsed.decision == episode.gold,
        scores=arms.arm_scores(episode, arm, parsed.decision, parsed.ok),
        usage=dict(reply.usage),
        agent_info=info,
        inputs={**base.inputs, **({PROMPT: prompt} if isinstance(prompt, dict) else {})},
    )


def family_units(episodes: Sequence[DecisionEpisode]) -> list[Unit]:
    """One unit per family (its instances are scored together), stratified by category x split."""
    families: dict[str, list[int]] = {}
    strata: dict[str, str] = {}
    for position, ep in enumerate(episodes):
        families.setdefault(ep.family_id, []).append(position)
        strata[ep.family_id] = f"{ep.category}/{ep.split}"
    return [(strata[family], positions) for family, positions in families.items()]


# --- view ---

GLOSSARY: tuple[tuple[str, str], ...] = (
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


def describe(episode: DecisionEpisode) -> tuple[str, str]:
    return episode.instruction, (
        f"{episode.subtype}, {episode.decision_type} among {len(episode.candidates)} candidates; "
        f"family {episode.family_id}"
    )


def observation(episode: DecisionEpisode) -> list[tuple[str, str]]:
    """The state and candidates as the structured condition shows them, and the image of the visual one."""
    return [("observation", state_text(episode)), *([("image", episode.image)] if episode.image else [])]


SUITE: DeclaredSuite[DecisionEpisode, DecisionEpisode] = DeclaredSuite(
    name="decisions",
    version="decisions-v4",
    episodes=Episodes(
        DecisionEpisode,
        generate,
        dataset.DATASET_FORMAT,
        check_line=dataset.inconsistency,
        check_dataset=dataset.check_roles,
        summarize=dataset.summarize,
        splits=("all", "train", "val", "test"),
        check_config={
            "object_anchors": 4,
            "action_anchors": 4,
            "atomic_families": 8,
            "multi_families": 1,
            "visual_families": 0,
        },
        images=Images(attach_images),
        schema_text=dataset.schema_text,
        content_hash=content_hash,
        generation_cpu_s=2.2,  # time.process_time, development machine, 2026-12-04
    ),
    options=Options(
        DecisionsRunOptions,
        precheck=conditions.check_condition_options,
        check=check_options,
        prepare=conditions.prepare_options,
        required_inputs=conditions.required_inputs,
        label=run_label,
        tag=run_tag,
    ),
    rollout=Rollout(
        DecisionEpisode,
        rollout,
        record_base,
        kinds=frozenset({"decision"}),
        for_run=for_run,
        parse=parse,
        sampling=Sampling(family_units, "category x split, whole families (the last one may be cut)"),
    ),
    scoring=replace(SCORING, reference_levels=chance_levels),
    view=View(
        paper_tables=PAPER_TABLES,
        figure=FIGURE,
        glossary=GLOSSARY,
        task_columns=("split", "category", "role"),
        export_columns={
            "family_id": "string",
            "anchor_id": "string",
            "anchor_kind": "string",
            "role": "string",
            "category": "string",
            "subtype": "string",
            "decision_type": "string",
            "split": "string",
            "visual": "boolean",
        },
        describe=describe,
        observation=observation,
    ),
)
