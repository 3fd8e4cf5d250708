"""The fuzzer's power, measured: mutants of the scorer and of the verifier, one threshold each moved by half
its value (or one row), that the boundary probes (`fuzz_edges.py`) must expose (issue 38).

A mutant is (module, constant, value) and the probe rules that sit on that threshold. `mutated` applies one
for the duration of a `with` block (the constants are read at call time). `expert_trajectory` and
`drop_trajectory` record the deterministic MuJoCo bases the mutation test probes: the expert's whole
program (complete, so every edit decides the score) and the expert's pick followed by a drop in the air
just inside or just outside the drop radius.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

import numpy as np

from heedful.sims.tabletop import motion
from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.expert import program
from heedful.suites.tabletop.fuzz_edges import drop_motion
from heedful.suites.tabletop.model import Layout, TabletopTask, TabletopTrial
from heedful.suites.tabletop.perturb import trial_seed
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.runtime import HorizonReachedError, TrialRuntime
from heedful.suites.tabletop.skillcalls import execute

PKG = "heedful.suites.tabletop."


@dataclass(frozen=True)
class Mutant:
    """One threshold of one implementation, moved."""

    label: str
    module: str  # under heedful.suites.tabletop
    constant: str
    value: float
    rules: tuple[str, ...]  # the probe rules that sit on this threshold


def _pair(label: str, scorer: tuple[str, str], verifier: str, base: float, rules: tuple[str, ...]) -> list[Mutant]:
    """The threshold loosened and tightened by half (whole rows: by one), in the scorer and in the verifier."""
    rows = isinstance(base, int)
    values = (base - 1, base + 1) if rows else (round(base * 0.5, 6), round(base * 1.5, 6))
    out = []
    for v in values:
        out.append(Mutant(f"scorer {label} {base} -> {v}", scorer[0], scorer[1], v, rules))
        out.append(Mutant(f"verifier {label} {base} -> {v}", "verifier", verifier, v, rules))
    return out


MUTANTS: list[Mutant] = [
    *_pair("support gap", ("completion", "SUPPORT_GAP"), "SUPPORT", 0.01, ("support gap",)),
    *_pair("on the table", ("completion", "TABLE_GAP"), "TABLE", 0.01, ("on the table",)),
    *_pair("placement on the table", ("placement", "STAGE_TABLE"), "STAGE_TABLE", 0.02, ("placement on the table",)),
    *_pair("bowl depth", ("completion", "BOWL_DEPTH"), "BOWL_D", 0.02, ("bowl depth",)),
    *_pair("at-rest speed", ("completion", "REST_SPEED"), "REST_V", 0.02, ("at-rest speed",)),
    *_pair("at-rest steps", ("completion", "REST_ROWS"), "REST_N", 5, ("at-rest steps",)),
    *_pair("reference moved", ("completion", "REF_MOVE"), "REF_D", 0.02, ("reference moved",)),
    *_pair("unexplained motion", ("completion", "UNEXPLAINED"), "LOOSE_D", 0.02, ("unexplained motion",)),
    *_pair("touch window", ("completion", "TOUCH_CARRY"), "CARRY_ROWS", 10, ("touch window",)),
    *_pair("grace rows", ("stages", "GRACE"), "GRACE_ROWS", 10, ("grace rows", "push grace rows")),
    *_pair("drop radius", ("placement", "HEAD_RADIUS"), "HEAD_R", 0.10, ("drop radius",)),
    *_pair("disturbance xy", ("completion", "DISTURB_MOVE"), "DIST_XY", 0.03, ("disturbance xy",)),
    *_pair("disturbance z", ("completion", "DISTURB_DROP"), "DIST_Z", 0.02, ("disturbance z",)),
    *_pair("disturbance tilt", ("completion", "TOPPLE_DEG"), "TOPPLE", 30.0, ("disturbance tilt",)),
    *_pair("down at", ("stages", "DOWN_ABOVE"), "DOWN", 0.015, ("down at",)),
    *_pair("put-down gap", ("placement", "PUT_DOWN"), "PUT_DOWN_GAP", 0.03, ("put-down gap",)),
    *_pair("pickup lift", ("completion", "LIFT"), "LIFT", 0.01, ("pickup lift",)),
    *_pair("scene 2 pickup lift", ("completion", "PICKUP_LIFT_S2"), "LIFT_S2", 0.03, ("scene 2 pickup lift",)),
]


@contextmanager
def mutated(m: Mutant) -> Iterator[None]:
    """Apply mutant `m` inside the block."""
    mod = importlib.import_module(PKG + m.module)
    saved = getattr(mod, m.constant)
    setattr(mod, m.constant, type(saved)(m.value))
    try:
        yield
    finally:
        setattr(mod, m.constant, saved)


def _played_to_horizon(
    task: TabletopTask, trial: int, play: Callable[[TrialRuntime, Layout], None]
) -> tuple[Trajectory, Layout]:
    """`play` on a fresh runtime of the trial's scene, then held still to the horizon: the trajectory and layout."""
    t = TabletopTrial(
        episode_id=f"{task.task}/t{trial}", trial=trial, trial_seed=trial_seed(task.task, trial), task=task
    )
    layout = trial_layout(t)
    rt = TrialRuntime(layout, task.horizon)
    try:
        with suppress(HorizonReachedError):
            play(rt, layout)
        rt.idle_to_horizon()
        return rt.trajectory(), layout
    finally:
        rt.close()


def expert_trajectory(task: TabletopTask, trial: int) -> tuple[Trajectory, Layout]:
    """The expert's whole program on the trial's scene, held still to the horizon."""

    def play(rt: TrialRuntime, layout: Layout) -> None:
        for c in program(task.grounded, layout):
            execute(c, rt.skills)

    return _played_to_horizon(task, trial, play)


def drop_trajectory(task: TabletopTask, trial: int, side: str, seed: int = 0) -> tuple[Trajectory, Layout]:
    """The expert's pick of the source, then a drop in the air `side` ("inside" / "outside") of the drop
    radius from the goal, on the line from the grasp; then home."""
    rng = np.random.default_rng([seed, trial, 38])

    def play(rt: TrialRuntime, layout: Layout) -> None:
        calls = program(task.grounded, layout)
        picks = [k for k, c in enumerate(calls) if c.skill == "pick"]
        for c in calls[: picks[0] + 1] if picks else []:
            execute(c, rt.skills)

        def drop() -> motion.SkillGen:
            ok = yield from drop_motion(rt.sim, task.grounded, rng, side)
            return bool(ok), "drop"

        motion.execute(rt.sim, drop(), "drop", step=rt.step)
        execute(calls[-1], rt.skills)  # the expert's last call: go home

    return _played_to_horizon(task, trial, play)


__all__ = ["MUTANTS", "Mutant", "drop_trajectory", "expert_trajectory", "mutated"]
