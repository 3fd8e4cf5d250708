"""Trajectory fuzzer: random programs of skills and free motions in MuJoCo, scored by the suite's scorer and
by the independent reference verifier (`verifier.py`); any difference is a bug in one of them (issue 38).

A program is a short random list of operations drawn with a seeded generator, run on a task's trial scene
until the task's horizon: the expert's program for the task (whole or cut short), skill calls with random
arguments (pick, place on / in / at / beside any object, push any object any way, carry along random
waypoints, rotate, go home), and free motions (descend over any object to a random height, close or open
anywhere, lift, carry to a random point or over any object at a random height, lower onto whatever is
below, wait), and moves at the tolerances' edges (hold just off an object's center just above its top;
nudge any object 0.5-5 cm; pick the source as the expert does and open it in the air at about the drop
radius from the goal). Each trial's trajectory is also edited into boundary probes (`fuzz_edges.py`):
copies just inside and just outside every threshold of the specification, each scored by both. Programs
often start with the expert's, so completed tasks followed by extra actions are common. `fuzz_trial` is
deterministic in (task, trial, seed).

    from heedful.suites.tabletop.fuzz import fuzz_trial
    result = fuzz_trial(task, trial=0, seed=7)     # result.diffs: {} when scorer and verifier agree
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from heedful.errors import ConfigError, SimulationError
from heedful.sims.tabletop import motion
from heedful.sims.tabletop.config import HOME_YAW
from heedful.sims.tabletop.geometry import top_of, travel_height, xy_of
from heedful.sims.tabletop.recorder import Trajectory
from heedful.sims.tabletop.spec import GRASPABLE_SHAPES, STACKABLE_BASES
from heedful.suites.tabletop.expert import program
from heedful.suites.tabletop.fuzz_edges import drop_motion, edge_probes
from heedful.suites.tabletop.model import Layout, TabletopTask, TabletopTrial
from heedful.suites.tabletop.perturb import trial_seed
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.runtime import HorizonReachedError, TrialRuntime
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory
from heedful.suites.tabletop.skillcalls import SkillCall, execute
from heedful.suites.tabletop.verifier import Verdict, verify

OPS = ("expert", "skill", "skill", "descend", "grip", "lift", "carry", "lower", "wait", "home", "near", "nudge", "drop")
DIRECTIONS = ("left", "right", "forward", "backward")
RELATIONS = ("left_of", "right_of", "behind", "in_front_of")


@dataclass
class FuzzResult:
    """One fuzzed trial: what ran, both verdicts, their differences."""

    task: str
    trial: int
    seed: int
    ops: list[str] = field(default_factory=list)
    scorer: dict[str, object] = field(default_factory=dict)
    verifier: dict[str, object] = field(default_factory=dict)
    diffs: dict[str, tuple[object, object]] = field(default_factory=dict)
    error: str | None = None
    probes: int = 0  # boundary probes scored (edited copies of the trajectory)
    probe_diffs: dict[str, dict[str, tuple[object, object]]] = field(default_factory=dict)  # probe -> diffs


def scorer_view(score: TrialScore) -> dict[str, object]:
    """The scorer's verdict in the verifier's terms (`Verdict.comparable`)."""
    out: dict[str, object] = {
        "intent": round(score.intent, 6),
        "execution": round(score.execution, 6),
        "complete": score.complete,
        "disturbed": sorted(score.disturbed),
    }
    for s in score.stages:
        out[f"{s.name}_intent"], out[f"{s.name}_execution"] = s.intent, s.execution
    return out


def compare(score: TrialScore, verdict: Verdict) -> dict[str, tuple[object, object]]:
    a, b = scorer_view(score), verdict.comparable()
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def _call(skill: str, **args: object) -> SkillCall:
    return SkillCall(skill=skill, args=dict(args))


def _point(rng: np.random.Generator) -> list[float]:
    return [round(float(rng.uniform(-0.35, 0.35)), 3), round(float(rng.uniform(0.3, 0.75)), 3)]


def _random_skill(rng: np.random.Generator, layout: Layout) -> SkillCall:
    solid = [o for o in layout.objects if o.shape != "label"]
    grab = [o.name for o in solid if o.shape in GRASPABLE_SHAPES] or [solid[0].name]
    bases = [o.name for o in solid if o.shape in STACKABLE_BASES] or grab
    bowls = [o.name for o in solid if o.shape == "bowl"] or bases
    kind = str(
        rng.choice(["pick", "pick", "place_on", "place_in", "place_at", "place_relative", "push", "carry", "rotate_to"])
    )

    def one(names: list[str]) -> str:
        return str(rng.choice(names))

    if kind == "pick":
        return _call("pick", object=one(grab))
    if kind == "place_on":
        return _call("place_on", target=one(bases))
    if kind == "place_in":
        return _call("place_in", bowl=one(bowls))
    if kind == "place_at":
        x, y = _point(rng)
        return _call("place_at", x=x, y=y)
    if kind == "place_relative":
        return _call("place_relative", anchor=one([o.name for o in solid]), relation=one(list(RELATIONS)))
    if kind == "push":
        dist = round(float(rng.uniform(0.01, 0.12)), 3)
        return _call("push", object=one([o.name for o in solid]), direction=one(list(DIRECTIONS)), distance=dist)
    if kind == "carry":
        return _call("carry", waypoints=[_point(rng) for _ in range(int(rng.integers(1, 4)))])
    return _call("rotate_to", yaw_deg=round(float(rng.uniform(-90, 90)), 1))


def _free_motion(rng: np.random.Generator, rt: TrialRuntime, op: str) -> motion.Motion:
    sim = rt.sim
    grip = sim.gripper_command
    here = sim.tcp_pos()
    names = [n for n in sim.object_names]
    if op == "descend":
        name = str(rng.choice(names))
        xy = xy_of(sim, name) + rng.normal(0.0, 0.015, size=2)
        dz = float(rng.choice([-0.02, -0.01, 0.0, 0.01, 0.02, 0.04, 0.07, 0.10]))
        yield from motion.go_above(sim, xy, travel_height(sim), HOME_YAW, grip)
        z = max(0.012, top_of(sim, name) + dz)
        return (yield from motion.move_to(sim, (float(xy[0]), float(xy[1]), z), HOME_YAW, grip, speed=0.3))
    if op == "grip":
        return (yield from motion.actuate_gripper(sim, -grip if rng.random() < 0.8 else grip))
    if op == "lift":
        z = min(0.45, float(here[2]) + float(rng.uniform(0.02, 0.15)))
        return (yield from motion.move_to(sim, (float(here[0]), float(here[1]), z), motion.tool_yaw(sim), grip))
    if op == "carry":
        if rng.random() < 0.5:
            xy = xy_of(sim, str(rng.choice(names))) + rng.normal(0.0, 0.01, size=2)
        else:
            xy = np.array(_point(rng))
        z = float(rng.uniform(0.03, 0.22))
        return (yield from motion.move_to(sim, (float(xy[0]), float(xy[1]), z), motion.tool_yaw(sim), grip))
    if op == "near":  # over any object, just off its center, lowered to just above its top: the tolerances' edges
        name = str(rng.choice(names))
        xy = xy_of(sim, name) + rng.normal(0.0, 0.03, size=2)
        held = sim.held_object()
        hang = float(here[2]) - (float(sim.object_pose(held)[2]) if held else float(here[2]))
        z = top_of(sim, name) + float(rng.uniform(0.0, 0.05)) + max(hang, 0.0) + 0.02
        yield from motion.go_above(sim, xy, travel_height(sim), motion.tool_yaw(sim), grip)
        return (yield from motion.move_to(sim, (float(xy[0]), float(xy[1]), z), motion.tool_yaw(sim), grip, speed=0.3))
    if op == "lower":
        z = max(0.012, float(here[2]) - float(rng.uniform(0.02, 0.15)))
        return (
            yield from motion.move_to(sim, (float(here[0]), float(here[1]), z), motion.tool_yaw(sim), grip, speed=0.3)
        )
    return (yield from motion.wait(sim, int(rng.integers(1, 25)), grip))


def _motion_skill(gen: motion.Motion) -> motion.SkillGen:
    ok = yield from gen
    return bool(ok), "free motion"


def run_program(rng: np.random.Generator, rt: TrialRuntime, task: TabletopTask, layout: Layout) -> list[str]:
    """Run a random program on `rt` until it ends or the horizon is reached; returns its operations."""
    done: list[str] = []
    ops = [str(rng.choice(OPS)) for _ in range(int(rng.integers(1, 9)))]
    if rng.random() < 0.5:
        ops.insert(0, "expert")
    for op in ops:
        if rt.left <= 0:
            break
        if op == "expert":
            calls = program(task.grounded, layout)
            cut = len(calls) if rng.random() < 0.6 else int(rng.integers(0, len(calls) + 1))
            for c in calls[:cut]:
                execute(c, rt.skills)
            done.append(f"expert[:{cut}]")
        elif op == "skill":
            c = _random_skill(rng, layout)
            execute(c, rt.skills)
            done.append(c.text())
        elif op == "nudge":  # a small push of any object: 0.5-5 cm, the tolerances' edges
            name = str(rng.choice([n for n in rt.sim.object_names if layout.obj(n).shape != "label"]))
            dist = round(float(rng.uniform(0.005, 0.05)), 3)
            execute(_call("push", object=name, direction=str(rng.choice(DIRECTIONS)), distance=dist), rt.skills)
            done.append(f"nudge {name} {dist}")
        elif op == "drop":  # the source picked as the expert does, then opened in the air near the drop radius
            if rt.sim.held_object() is None:
                calls = program(task.grounded, layout)
                picks = [k for k, c in enumerate(calls) if c.skill == "pick"]
                for c in calls[: picks[0] + 1] if picks else []:
                    execute(c, rt.skills)
            motion.execute(rt.sim, _motion_skill(drop_motion(rt.sim, task.grounded, rng)), op, step=rt.step)
            done.append("drop")
        elif op == "home":
            execute(_call("go_home", open_gripper=bool(rng.random() < 0.7)), rt.skills)
            done.append("go_home")
        else:
            motion.execute(rt.sim, _motion_skill(_free_motion(rng, rt, op)), op, step=rt.step, max_steps=150)
            done.append(op)
    return done


def fuzz_trajectory(task: TabletopTask, trial: int, seed: int) -> tuple[Trajectory | None, Layout, FuzzResult]:
    """Run one random program on `task`'s trial scene: its trajectory (None when the program raised), the
    trial's layout and the result so far (ops, error)."""
    result = FuzzResult(task.task, trial, seed)
    t = TabletopTrial(
        episode_id=f"{task.task}/t{trial}", trial=trial, trial_seed=trial_seed(task.task, trial), task=task
    )
    layout = trial_layout(t)
    rng = np.random.default_rng([seed, trial, sum(map(ord, task.task))])
    rt = TrialRuntime(layout, task.horizon)
    try:
        try:
            result.ops = run_program(rng, rt, task, layout)
        except HorizonReachedError:
            result.ops.append("(horizon)")
        except (ConfigError, SimulationError) as exc:  # a skill refused its arguments, or physics blew up
            result.error = f"{type(exc).__name__}: {exc}"
            return None, layout, result
        rt.idle_to_horizon()
        return rt.trajectory(), layout, result
    finally:
        rt.close()


def judge(traj: Trajectory, task: TabletopTask, layout: Layout) -> tuple[TrialScore, Verdict]:
    """The scorer's and the verifier's verdicts on one trajectory."""
    return score_trajectory(traj, task.grounded, layout, task.scene), verify(traj, task.grounded, layout, task.scene)


def probes_of(
    traj: Trajectory, task: TabletopTask, layout: Layout, trial: int, seed: int
) -> list[tuple[str, Trajectory]]:
    """The trajectory's boundary probes (`fuzz_edges.edge_probes`), named "rule side value"; deterministic."""
    rng = np.random.default_rng([seed, trial, sum(map(ord, task.task)), 38])
    return [(f"{p.rule} {p.side} {p.value:.4g}", p.traj) for p in edge_probes(traj, task.grounded, layout, rng)]


def fuzz_trial(task: TabletopTask, trial: int, seed: int, edges: bool = True) -> FuzzResult:
    """Run one random program on `task`'s trial scene; score it, and (`edges`) its boundary probes, with the
    scorer and the verifier."""
    traj, layout, result = fuzz_trajectory(task, trial, seed)
    if traj is None:
        return result
    score, verdict = judge(traj, task, layout)
    result.scorer, result.verifier = scorer_view(score), verdict.comparable()
    result.diffs = compare(score, verdict)
    for name, probe in probes_of(traj, task, layout, trial, seed) if edges else []:
        result.probes += 1
        if diffs := compare(*judge(probe, task, layout)):
            result.probe_diffs[name] = diffs
    return result


def describe(r: FuzzResult) -> str:
    """One line for a disagreement (enough to rerun it: task, trial, seed)."""
    probes = "".join(f"; probe {name}: {d}" for name, d in r.probe_diffs.items())
    return f"{r.task} trial {r.trial} seed {r.seed}: {r.diffs}{probes} after {r.ops}"


__all__ = [
    "FuzzResult",
    "compare",
    "describe",
    "fuzz_trajectory",
    "fuzz_trial",
    "judge",
    "probes_of",
    "run_program",
    "scorer_view",
]
