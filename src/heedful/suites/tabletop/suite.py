"""The tabletop suite (RoboFollow protocol): generate the registry, expand it into trials, roll out,
score stage by stage, report per scene x level.

The dataset holds the 554 evaluation tasks (`TabletopTask`). A run turns them into trials (`TabletopTrial`,
`for_run`): 10 per task by default, round by round, each with RoboFollow's trial seed, optionally restricted to
some levels and scenes. Run options: `level` (list of L0..L3), `scene` (list of 1..4), `trials`, `video_dir`,
`max_calls` (planners).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from heedful.errors import ConfigError, DatasetError
from heedful.language.arms import OTHER_EPISODE, arm_of, shown_instruction
from heedful.language.reinstruct import SWITCH_EPISODE, SWITCH_INSTRUCTION, SWITCH_STEP, reinstruct_of
from heedful.protocols import Agent
from heedful.records import JSONValue, Record
from heedful.requirements import Requirement
from heedful.sampling import Unit
from heedful.suites.base import RolloutContext
from heedful.suites.declared import DeclaredSuite
from heedful.suites.episode_files import content_hash_without
from heedful.suites.options import validate
from heedful.suites.parts import Episodes, Options, Progress, RecordBase, Rollout, RunOptionValues, Sampling
from heedful.suites.tabletop import arms, dataset, view
from heedful.suites.tabletop.metrics import SCORING
from heedful.suites.tabletop.model import (
    LEVELS,
    SCENES,
    TASK_SCHEMA_VERSION,
    TRIAL_SCHEMA_VERSION,
    TabletopTask,
    TabletopTrial,
    TrialSwitch,
)
from heedful.suites.tabletop.options import TabletopRunOptions
from heedful.suites.tabletop.payload import TrialPayload
from heedful.suites.tabletop.perturb import TRIALS, trial_seed
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.rollout import MAX_CALLS, run_trial

# --- episodes: the tasks


def generate(seed: int, config: Mapping[str, object], progress: Progress | None) -> list[TabletopTask]:
    """The 554 evaluation tasks. The registry is part of the protocol: `seed` does not change it, and the
    registry builds in well under a second, so `progress` is not called."""
    if config:
        raise ConfigError(f"tabletop generation takes no settings, got {sorted(config)}")
    return list(evaluation_tasks())


def training(tasks: Sequence[TabletopTask]) -> list[TabletopTask]:
    """The L0 tasks, each once: the training task labels in their training layouts (what `blind` fits on)."""
    return [t for t in {t.task: t for t in tasks}.values() if t.level == "L0"]


def dataset_hash(episodes: Sequence[BaseModel]) -> str:
    """The hash of the tasks or the trials, whatever the run holds, without the run-only `other` and `switch` (the
    arms of one selection pair in `heedful compare`)."""
    return content_hash_without(episodes, "other", "switch")


# --- options


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else [value]


def precheck(options: RunOptionValues) -> None:
    """Levels, scenes and counts named in the suite's words, before the model's check."""
    for level in _as_list(options.get("level", [])):
        if level not in LEVELS:
            raise ConfigError(f"unknown level {level!r}; choose among {', '.join(LEVELS)}")
    for scene in _as_list(options.get("scene", [])):
        if isinstance(scene, bool) or scene not in SCENES:
            raise ConfigError(f"unknown scene {scene!r}; choose among 1, 2, 3, 4")
    for name, default in (("trials", TRIALS), ("max_calls", MAX_CALLS)):
        value = options.get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"{name} must be a positive integer, got {value!r}")


def check(options: RunOptionValues) -> None:
    """A `--reinstruct` rule only with the given instruction."""
    reinstruct_of(options)


def requirements(options: RunOptionValues) -> tuple[Requirement, ...]:
    """The simulator, its Gymnasium core, and with --video the MP4 writer."""
    needs = [
        Requirement("mujoco", "the tabletop simulator", "tabletop"),
        Requirement("gymnasium", "the environment core of every trial", "tabletop"),
    ]
    if options.get("video_dir"):
        needs += [Requirement("imageio", "--video", "tabletop"), Requirement("imageio_ffmpeg", "--video", "tabletop")]
    return tuple(needs)


# --- rollout: the trials


def trials(tasks: Sequence[TabletopTask], options: RunOptionValues) -> list[TabletopTrial]:
    """Trials of the selected tasks, round by round (all tasks' first trial, then their second, ...)."""
    precheck(options)
    validate("tabletop", TabletopRunOptions, options)
    rule = reinstruct_of(options)
    levels = set(_as_list(options.get("level", LEVELS)))
    scenes = set(_as_list(options.get("scene", SCENES)))
    chosen = [t for t in tasks if t.level in levels and t.scene in scenes]
    rounds = int(options.get("trials", TRIALS))
    other = arms.others(chosen, tasks) if arm_of(options) == "other" else {}
    new = arms.others(chosen, tasks) if rule is not None else {}
    return [
        TabletopTrial(
            episode_id=f"{t.task}/t{r}",
            trial=r,
            trial_seed=trial_seed(t.task, r),
            task=t,
            other=other.get(t.task),
            switch=TrialSwitch(to=new[t.task], rule=rule.text) if rule is not None else None,
        )
        for r in range(rounds)
        for t in chosen
    ]


def parse(text: str) -> TabletopTask | TabletopTrial:
    """A task (a dataset line) or a trial (a run's episode) from its JSON, by its schema version."""
    version = json.loads(text).get("schema_version")
    if version == TRIAL_SCHEMA_VERSION:
        return TabletopTrial.model_validate_json(text)
    if version == TASK_SCHEMA_VERSION:
        return TabletopTask.model_validate_json(text)
    raise DatasetError(f"not a tabletop task or trial (schema_version {version!r})")


def record_base(trial: TabletopTrial, context: RolloutContext) -> RecordBase:
    """The trial's keys, its grounded goal, and the words it shows (with `--instruction other` / `--reinstruct`, the
    other task)."""
    gold: JSONValue = {"grounded": trial.task.grounded.model_dump(mode="json", exclude_defaults=True)}
    arm = arm_of(context.options)
    other = trial.other if arm == "other" else None
    words = shown_instruction(arm, trial.task.instruction, context.seed, other.instruction if other else None)
    inputs: dict[str, JSONValue] = {"instruction": words, **({OTHER_EPISODE: other.task} if other else {})}
    if trial.switch is not None:
        inputs.update({SWITCH_EPISODE: trial.switch.to.task, SWITCH_INSTRUCTION: trial.switch.to.instruction})
    return RecordBase(keys=trial.keys(), gold=gold, inputs=inputs)


def rollout(trial: TabletopTrial, agent: Agent, context: RolloutContext) -> Record:
    """Run one trial; transport errors of the agent propagate to the runner."""
    options = context.options
    run = run_trial(
        trial,
        agent,
        context.seed,
        video_dir=options.get("video_dir"),
        max_calls=options.get("max_calls", MAX_CALLS),
        arm=arm_of(options),
        declared=context.declarations(agent),
    )
    score = run.score
    if score is None:
        raise ConfigError("the trial was not scored")
    prediction = TrialPayload.model_validate(
        {
            "calls": run.calls,
            **score.details(),
            "acting_steps": run.acting_steps,
            "steps": run.steps,
            "layout": [(o.name, o.x, o.y) for o in run.layout.objects],
            "video": run.video,
        }
    ).as_prediction()
    base = record_base(trial, context)
    made = trial.switch is not None and run.switch_step is not None  # a switch the trial came to
    return Record(
        episode_id=trial.episode_id,
        index=context.index,
        keys=base.keys,
        gold=base.gold,
        inputs={**base.inputs, SWITCH_STEP: run.switch_step} if made else base.inputs,
        status=run.status,
        error=run.error,
        raw_output="\n---\n".join(run.replies) if run.replies else None,
        prediction=prediction,
        correct=score.complete,
        scores={**score.scores(), "acting_steps": float(run.acting_steps), **run.followed, **run.switch},
        usage=dict(run.usage),
        agent_info=dict(run.info),
        timing=dict(run.timing),
    )


def horizon(trial: TabletopTrial) -> int:
    """The trial's horizon: every trial steps to it (no early stop)."""
    return trial.task.horizon


def units(trials: Sequence[TabletopTrial]) -> list[Unit]:
    """One unit per trial, stratified by scene x level."""
    return [(f"S{t.task.scene}/{t.task.level}", [i]) for i, t in enumerate(trials)]


SUITE: DeclaredSuite[TabletopTask, TabletopTrial] = DeclaredSuite(
    name="tabletop",
    version="tabletop/robofollow-v2",  # v2: issue 38 (completion, intent, disturbance)
    episodes=Episodes(
        TabletopTask,
        generate,
        dataset.DATASET_FORMAT,
        check_line=dataset.inconsistency,
        summarize=dataset.summarize,
        training=training,
        content_hash=dataset_hash,
        generation_cpu_s=1.6,  # time.process_time, development machine, 2026-12-04
    ),
    options=Options(TabletopRunOptions, precheck=precheck, check=check, requirements=requirements),
    rollout=Rollout(
        TabletopTrial,
        rollout,
        record_base,
        kinds=frozenset({"planner", "controller"}),
        for_run=trials,
        parse=parse,
        line_of=lambda trial: trial.task,
        steps=horizon,
        sampling=Sampling(units, "scene x level"),
    ),
    scoring=SCORING,
    view=view.VIEW,
)
"""RoboFollow's four scene families at levels L0-L3 on the MuJoCo tabletop simulator."""
