"""`heedful/Tabletop-v0`: the tabletop env with RoboFollow's evaluation tasks loaded by id and scored.

    import gymnasium as gym, heedful
    env = gym.make("heedful/Tabletop-v0")                  # or heedful/TabletopScene2-v0 for scene 2 only
    obs, info = env.reset(options={"task": "s2_L1_020_place_bowl", "trial": 0})
    obs, reward, terminated, truncated, info = env.step(action)   # 7-D delta_eef in [-1, 1]

A reset with `{"task": ID}` (ids from `heedful list tasks tabletop` or `heedful.tasks("tabletop")`) builds
that task's trial scene exactly as a benchmark run does (the layout perturbed by RoboFollow's trial seed for
round `"trial"`, default 0; objects inside bowls) and sets its instruction (`info["instruction"]`). A reset
without options draws a task with the reset seed, among the env's scene and level when it was made with
them (`gym.make("heedful/Tabletop-v0", scene=2, level="L1")`). `{"scene": ..., "instruction": ...}` is
free play as in the simulator's `TabletopEnv`: reward 0, no task; the scene is a `SceneSpec` (or its dict) or a
scene number, `{"scene": 2, "instruction": "put the red cube in the green bowl"}`, for that scene's default layout.

With a task, every step scores the trajectory so far with the benchmark's stage scorer. `info` carries
`intent`, `execution`, `complete`, `disturbance`, `settled` (every object at rest), the gated `stages` and
the task's `task`, `level` and `scene`. Success (`is_success`, reward 1.0 on that step and 0 otherwise,
`terminated`) is `complete`: the benchmark's own completion rule (`completion.py`, one implementation),
judged at the current step: done and left done, i.e. released with the gripper open (a pickup: held up),
every object at rest, the relation held with physical support, got there by the robot's action. A block
carried over its target, or still held in the bowl, is not a success. `truncated` is set at the task's
horizon (180-300 control steps). A benchmark run instead always runs the full horizon and scores its end,
so a policy that undoes its work is scored as it ends there.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray

from heedful.errors import ConfigError
from heedful.sims.tabletop.config import SimConfig
from heedful.sims.tabletop.env import Obs, TabletopEnv
from heedful.sims.tabletop.recorder import TrajectoryRecorder
from heedful.sims.tabletop.spec import SceneSpec
from heedful.suites.tabletop.completion import at_rest
from heedful.suites.tabletop.model import LEVELS, Layout, TabletopTask, TabletopTrial
from heedful.suites.tabletop.perturb import trial_seed
from heedful.suites.tabletop.registry import evaluation_task, evaluation_tasks, training_layouts
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.runtime import build_sim
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory
from heedful.suites.tabletop.stages import Track

TASK_OPTIONS = frozenset({"task", "trial"})


def scene_layout(scene: int) -> Layout:
    """Scene `scene`'s (1-4) default layout: the first one its training tasks start from (scene 4, which has one
    per task family: s4/bowl)."""
    if scene not in (1, 2, 3, 4):
        raise ConfigError(f"options['scene'] as a number must be 1, 2, 3 or 4, got {scene!r}")
    return next(layout for layout in training_layouts().values() if layout.scene == scene)


class TabletopTaskEnv(TabletopEnv):
    """`TabletopEnv` with the benchmark's tasks: reset by task id, sparse success reward, stage scores.

    Args:
        scene: RoboFollow scene 1..4 whose tasks option-less resets draw (all four when omitted), or a
            `SceneSpec` for free play until a reset passes a task.
        level: L0..L3, likewise (all levels when omitted).
        config: Simulator configuration (cameras, image size, action space).
        render_mode: None or "rgb_array".
        record_cameras: Cameras whose frames the trajectory recorder keeps.
    """

    def __init__(
        self,
        scene: int | SceneSpec | None = None,
        level: str | None = None,
        config: SimConfig | None = None,
        render_mode: str | None = None,
        record_cameras: tuple[str, ...] = (),
    ) -> None:
        if scene is not None and not isinstance(scene, SceneSpec) and scene not in (1, 2, 3, 4):
            raise ConfigError(f"scene must be 1, 2, 3 or 4 (or a SceneSpec), got {scene!r}")
        if level is not None and level not in LEVELS:
            raise ConfigError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
        super().__init__(
            scene=scene if isinstance(scene, SceneSpec) else None,
            config=config,
            render_mode=render_mode,
            record_cameras=record_cameras,
        )
        self.scene_filter = scene if isinstance(scene, int) else None
        self.level_filter = level
        self.free_play = isinstance(scene, SceneSpec)  # option-less resets keep that scene
        self.task: TabletopTask | None = None
        self.layout: Layout | None = None
        self.score: TrialScore | None = None
        self.settled = False

    def task_pool(self) -> tuple[TabletopTask, ...]:
        """The tasks an option-less reset draws from."""
        return tuple(
            t
            for t in evaluation_tasks()
            if (self.scene_filter is None or t.scene == self.scene_filter)
            and (self.level_filter is None or t.level == self.level_filter)
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Start a task trial (`{"task": ID, "trial": R}`, or a drawn task), or free play (`{"scene": ...}`)."""
        options = dict(options or {})
        if isinstance(options.get("scene"), int) and not isinstance(options["scene"], bool):
            options["scene"] = scene_layout(options["scene"]).scene_spec()  # free play in that scene's layout
        if not options.keys() & TASK_OPTIONS and (options or self.free_play):
            self.task = self.layout = self.score = None
            return super().reset(seed=seed, options=options)
        other = set(options) - TASK_OPTIONS
        if other:
            raise ConfigError(
                f"reset options {sorted(other)} do not go with 'task': the task sets the scene and the instruction"
            )
        gym_reset = super(TabletopEnv, self).reset  # seeds self.np_random; the task's layout sets the scene
        gym_reset(seed=seed)
        task = self._chosen_task(options.get("task"))
        trial = options.get("trial", 0)
        if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
            raise ConfigError(f"options['trial'] must be a round number >= 0, got {trial!r}")
        self._load(task, trial)
        return self._observe(), self._info()

    def _chosen_task(self, task_id: object) -> TabletopTask:
        if task_id is None:
            pool = self.task_pool()
            return pool[int(self.np_random.integers(len(pool)))]
        if not isinstance(task_id, str):
            raise ConfigError(f"options['task'] must be a task id string, got {type(task_id).__name__}")
        return evaluation_task(task_id)

    def _load(self, task: TabletopTask, trial: int) -> None:
        """Build the trial's scene exactly as a benchmark run does."""
        seed = trial_seed(task.task, trial)
        layout = trial_layout(
            TabletopTrial(episode_id=f"{task.task}/t{trial}", trial=trial, trial_seed=seed, task=task)
        )
        self.sim.close()
        self.sim = build_sim(layout, self.config)
        self.recorder = TrajectoryRecorder(self.sim, self.record_cameras)
        self.recorder.reset()
        self._skills = None
        self.task, self.layout, self.score, self.settled = task, layout, None, False
        self.instruction = task.instruction

    def step(self, action: NDArray[Any]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """One control step; with a task: reward 1.0 and terminated on completion, truncated at its horizon."""
        obs, reward, terminated, truncated, info = super().step(action)
        if self.task is None or self.layout is None:
            return obs, reward, terminated, truncated, info
        trajectory = self.trajectory()
        self.score = score_trajectory(trajectory, self.task.grounded, self.layout, self.task.scene)
        self.settled = at_rest(Track(trajectory, self.layout), len(trajectory) - 1)[0]
        success = self.score.complete
        truncated = self.sim.steps >= self.task.horizon and not success
        return obs, float(success), success, truncated, self._info()

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        if self.task is None:
            return info
        info.update(task=self.task.task, scene=self.task.scene, level=self.task.level, horizon=self.task.horizon)
        s = self.score
        info.update(
            intent=s.intent if s else 0.0,
            execution=s.execution if s else 0.0,
            complete=bool(s and s.complete),
            settled=self.settled,
            is_success=bool(s and s.complete),
            disturbance=len(s.disturbed) if s else 0,
            stages=s.details()["stages"] if s else [],
        )
        return info
