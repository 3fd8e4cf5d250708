"""The tabletop suite (RoboFollow protocol): generate the registry, expand it into trials, roll out,
score stage by stage, report per scene x level.

The dataset holds the 554 evaluation tasks. A run turns them into trials (`episodes_for_run`): 10 per
task by default, round by round, each with RoboFollow's trial seed, optionally restricted to some
levels and scenes. Run options: `level` (list of L0..L3), `scene` (list of 1..4), `trials`, `video_dir`,
`max_calls` (planners).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError, DatasetError
from heedful.language.arms import OTHER_EPISODE, arm_of, shown_instruction
from heedful.language.reinstruct import SWITCH_EPISODE, SWITCH_INSTRUCTION, SWITCH_STEP, reinstruct_of
from heedful.metrics.layouts import FigureLayout, PaperTable
from heedful.metrics.rows import MetricRow
from heedful.records import Record, Status
from heedful.requirements import Requirement
from heedful.sampling import Unit
from heedful.suites.base import RolloutContext, SuiteBase
from heedful.suites.episode_files import content_hash
from heedful.suites.tabletop import arms, dataset
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
from heedful.suites.tabletop.rollout import MAX_CALLS, run_trial

if TYPE_CHECKING:
    from heedful.metrics.scoring import Scoring


def _task_of(episode: Any) -> TabletopTask:
    """The task of a task or of a trial."""
    if isinstance(episode, TabletopTrial):
        return episode.task
    if isinstance(episode, TabletopTask):
        return episode
    raise ConfigError(f"not a tabletop task or trial: {type(episode).__name__}")


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


class TabletopSuite(SuiteBase):
    """RoboFollow's four scene families at levels L0-L3 on the MuJoCo tabletop simulator."""

    name = "tabletop"
    version = "tabletop/robofollow-v2"  # v2: issue 38 (completion, intent, disturbance)
    run_options = TabletopRunOptions
    agent_kinds = ("planner", "controller")

    def generate(
        self, seed: int = 0, config: dict[str, Any] | None = None, progress: Callable[..., Any] | None = None
    ) -> list[TabletopTask]:
        """The 554 evaluation tasks. The registry is part of the protocol: `seed` does not change it, and the
        registry builds in well under a second, so `progress` is not called."""
        if config:
            raise ConfigError(f"tabletop generation takes no settings, got {sorted(config)}")
        from heedful.suites.tabletop.registry import evaluation_tasks

        tasks = list(evaluation_tasks())
        return tasks

    def load_dataset(self, path: Path, *, verify: bool = True) -> list[TabletopTask]:
        return dataset.load_episodes(Path(path), verify=verify)

    def save_dataset(self, episodes: Sequence[TabletopTask], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
        return dataset.save(episodes, Path(out), {"suite": self.name, "version": self.version, **meta})

    def episode_schema(self) -> str:
        return json.dumps(TabletopTask.model_json_schema(), indent=2) + "\n"

    def parse_episode(self, text: str) -> TabletopTask | TabletopTrial:
        version = json.loads(text).get("schema_version")
        if version == TRIAL_SCHEMA_VERSION:
            return TabletopTrial.model_validate_json(text)
        if version == TASK_SCHEMA_VERSION:
            return TabletopTask.model_validate_json(text)
        raise DatasetError(f"not a tabletop task or trial (schema_version {version!r})")

    def dataset_hash(self, episodes: Sequence[Any]) -> str:
        """The hash of the tasks or the trials, whatever the run holds (without `other` substitutes: the arms of
        one selection pair in `heedful compare`)."""
        if any(isinstance(e, TabletopTrial) and (e.other is not None or e.switch is not None) for e in episodes):
            episodes = [e.model_copy(update={"other": None, "switch": None}) for e in episodes]
        return content_hash(episodes)

    def training_episodes(self, episodes: Sequence[Any]) -> list[TabletopTask]:
        """The L0 tasks: the training task labels in their training layouts (what `blind` fits on)."""
        tasks = {t.task: t for t in map(_task_of, episodes)}
        return [t for t in tasks.values() if t.level == "L0"]

    def check_options(self, options: dict[str, Any]) -> None:
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
        super().check_options(options)
        reinstruct_of(options)

    def episodes_for_run(self, episodes: Sequence[Any], options: dict[str, Any]) -> list[TabletopTrial]:
        """Trials of the selected tasks, round by round (all tasks' first trial, then their second, ...)."""
        self.check_options(options)
        levels = set(_as_list(options.get("level", LEVELS)))
        scenes = set(_as_list(options.get("scene", SCENES)))
        if not all(isinstance(t, TabletopTask) for t in episodes):
            raise ConfigError("a tabletop run expects tabletop tasks (a dataset of `heedful generate tabletop`)")
        tasks = [t for t in episodes if t.level in levels and t.scene in scenes]
        rounds = int(options.get("trials", TRIALS))
        other = arms.others(tasks, episodes) if arm_of(options) == "other" else {}
        rule = reinstruct_of(options)
        new = arms.others(tasks, episodes) if rule is not None else {}
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
            for t in tasks
        ]

    def _record(
        self, trial: TabletopTrial, context: RolloutContext, switch_step: int | None = None, **fields: Any
    ) -> Record:
        gold = {"grounded": trial.task.grounded.model_dump(mode="json", exclude_defaults=True)}
        arm = arm_of(context.options)
        other = trial.other if arm == "other" else None
        words = shown_instruction(arm, trial.task.instruction, context.seed, other.instruction if other else None)
        inputs: dict[str, Any] = {"instruction": words, **({OTHER_EPISODE: other.task} if other else {})}
        if trial.switch is not None:
            inputs.update({SWITCH_EPISODE: trial.switch.to.task, SWITCH_INSTRUCTION: trial.switch.to.instruction})
            if switch_step is not None:
                inputs[SWITCH_STEP] = switch_step
        return Record(
            episode_id=trial.episode_id, index=context.index, keys=trial.keys(), gold=gold, inputs=inputs, **fields
        )

    def episode_steps(self, episode: Any) -> int | None:
        """The trial's horizon: every trial steps to it (no early stop)."""
        return episode.task.horizon if isinstance(episode, TabletopTrial) else None

    def rollout(self, trial: TabletopTrial, agent: Any, context: RolloutContext) -> Record:
        """Run one trial; transport errors of the agent propagate to the runner."""
        if not isinstance(trial, TabletopTrial):
            raise ConfigError("a tabletop run rolls out trials; build them with episodes_for_run")
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
        return self._record(
            trial,
            context,
            status=run.status,
            error=run.error,
            raw_output="\n---\n".join(run.replies) if run.replies else None,
            prediction=prediction,
            correct=score.complete,
            scores={**score.scores(), "acting_steps": float(run.acting_steps), **run.followed, **run.switch},
            switch_step=run.switch_step,
            usage=dict(run.usage),
            agent_info=dict(run.info),
            timing=dict(run.timing),
        )

    def failure_record(self, trial: TabletopTrial, context: RolloutContext, status: Status, error: str) -> Record:
        return self._record(trial, context, status=status, error=error)

    def report(self, records: Sequence[Record], options: dict[str, Any]) -> list[MetricRow]:
        from heedful.metrics.chance import with_chance
        from heedful.suites.tabletop.chance import chance_rows
        from heedful.suites.tabletop.metrics import CHANCE_PREFIX

        rows = super().report(records, options)
        chance = chance_rows(records)
        levels = {(r.group.removeprefix(CHANCE_PREFIX), r.metric): r.value for r in chance if r.value is not None}
        return with_chance(rows, levels) + chance

    def render_report(self, rows: Sequence[MetricRow], title: str) -> str:
        """The metric table (with the chance column), then the paper's Table 1 layout (scenes x levels, with the
        chance rows)."""
        from heedful.metrics.render import render_metric_table
        from heedful.metrics.tables import table_text
        from heedful.suites.tabletop.metrics import CHANCE_PREFIX

        measured = [row for row in rows if not row.group.startswith(CHANCE_PREFIX)]
        notes = (
            "Wilson: for the 0/1 rates (intent_full, execution_full, complete, complete_clean, disturbed), trials "
            "taken as independent: optimistic, as the trials of one task are alike",
        )
        level = self.scoring.reference  # the blind branch draw, not chance
        table = render_metric_table(
            measured, title=title, notes=notes, chance_note=level.note, reference_label=level.label
        )
        return f"{table}\n\n{table_text(self.paper_tables[0], rows)}"

    def requirements(self, options: dict[str, Any]) -> tuple[Requirement, ...]:
        """The simulator, its Gymnasium core, and with --video the MP4 writer."""
        needs = [
            Requirement("mujoco", "the tabletop simulator", "tabletop"),
            Requirement("gymnasium", "the environment core of every trial", "tabletop"),
        ]
        if options.get("video_dir"):
            needs += [
                Requirement("imageio", "--video", "tabletop"),
                Requirement("imageio_ffmpeg", "--video", "tabletop"),
            ]
        return tuple(needs)

    sample_strata = "scene x level"
    task_columns = ("level", "scene", "action")
    glossary = (
        (
            "levels",
            "L0 training tasks in training layouts; L1 new layouts where the training motion fails; L2 "
            "held-out phrasings in training layouts; L3 both (RoboFollow's protocol, 554 tasks, 10 trials each)",
        ),
        (
            "stages",
            "each task is cut into weighted stages (e.g. source 0.4, target 0.4, finish 0.2); a stage's "
            "intent is the policy showing it understood (approaching or grasping the right object, heading to the "
            "right target), its execution the physical success; gates: a stage counts only if every earlier stage's "
            "intent (for execution: intent and execution) was earned",
        ),
        (
            "intent_full",
            "every stage's intent earned: the robot showed it understood the whole task, whatever its motor success",
        ),
        (
            "complete",
            "RoboFollow's completion criterion on the final state, per action (pickup: intent and "
            "execution >= 0.8; place in a bowl: within 4 cm of its centre and inside; push: moved >= 2 cm within "
            "45 deg of the direction; ...). A trial can be intent_full but not complete (understood, dropped it) "
            "and, rarely, complete without intent_full (a later gated stage missed)",
        ),
        (
            "task macro",
            "each task's trials are averaged first, then tasks unweighted, per scene x level; the mean "
            "over scenes is the unweighted mean of the four scenes (the paper's headline numbers)",
        ),
        (
            "chance rows",
            "Table 1's `chance ...` lines and the chance column: the exact expected score of the "
            "blind branch draw (a training branch of the scene chosen without the instruction, its expert motion "
            "run in the task's layout), computed over every branch, not sampled",
        ),
    )

    def observation_summary(self, episode: Any) -> list[tuple[str, str]]:
        """The task's initial layout (each trial shifts it by 1-2 cm, see the record's prediction.layout)."""
        task: TabletopTask = episode
        objects = [f"{o.name} at ({o.x:+.3f}, {o.y:.3f})" for o in task.layout.objects]
        inside = [f"{inner} in {bowl}" for inner, bowl in task.layout.inside]
        return [("layout", f"{task.config}: " + ", ".join(objects + inside))]

    def record_details(self, record: Record) -> list[tuple[str, str]]:
        """Each stage's gated Intent / Execution with its reason, the skill calls, completion and the video."""
        payload = TrialPayload.read(record.prediction)
        if payload is None:
            return []
        stages = [
            f"{s.name:<10} weight {s.weight:.1f}  intent {'yes' if s.intent else 'no ':3}  "
            f"execution {'yes' if s.execution else 'no ':3}  {s.detail}"
            for s in payload.stages
        ]
        lost = f"first lost: {payload.failed_stage} ({payload.failed_on})" if payload.failed_stage else "all earned"
        out = [("stages", "\n".join([*stages, lost])), ("completion", payload.completion)]
        if payload.calls:
            calls = [f"{c.call} -> {'ok' if c.ok else 'failed: ' + c.reason} (step {c.start})" for c in payload.calls]
            out.append(("skill calls", "\n".join(calls)))
        out.append(("steps", f"{payload.acting_steps} acting of {payload.steps}"))
        if payload.video:
            out.append(("video", payload.video))
        return out

    def describe_task(self, episode: Any) -> tuple[str, str]:
        task: TabletopTask = episode
        g = task.grounded
        what = " -> ".join(x for x in (g.source, g.target or g.direction or g.second) if x)
        origin = f", varies {task.derived_from}" if task.derived_from and task.level != "L0" else ""
        return task.instruction, f"{task.action} {what} in layout {task.config}{origin}; {task.horizon} steps"

    def sample_units(self, episodes: Sequence[Any]) -> list[Unit]:
        """One unit per trial, stratified by scene x level (a run's episodes are trials)."""
        return [(f"S{_task_of(t).scene}/{_task_of(t).level}", [i]) for i, t in enumerate(episodes)]

    @property
    def scoring(self) -> Scoring:
        from heedful.suites.tabletop.metrics import SCORING

        return SCORING

    @property
    def paper_tables(self) -> tuple[PaperTable, ...]:
        from heedful.suites.tabletop.layouts import PAPER_TABLES

        return PAPER_TABLES

    @property
    def figure(self) -> FigureLayout:
        from heedful.suites.tabletop.layouts import FIGURE

        return FIGURE
