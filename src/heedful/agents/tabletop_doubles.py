"""Misbehaving TEST DOUBLES for auditing the tabletop scorer (issue 12). They are not baselines and are
not registered as agents: the regression tests and `benchmarks/tabletop_audit.py` build them directly.

Each reads the privileged grounded task and misbehaves in one known way, so the score it must get is
known (see tests/suites/tabletop/test_tabletop_suite_doubles.py):

- `DropHalfwayDouble`: grasps the right object and lets go of it halfway to its goal (a push: pushes
  1.5 cm only);
- `WrongGoalDouble`: the right object to a wrong goal (another base, bowl, slot, label or relation; the
  opposite push; a pickup put back down; a sequence's second object replaced);
- `WrongObjectDouble`: the right goal with the wrong object (the graspable object nearest the source);
- `SwitchObjectDouble`: descends on the wrong object first, then does the task right;
- `ApproachOnlyDouble`: brings the open fingers to the right object (to the pusher's place for a push)
  and never closes;
- `AroundEndDouble` (scene 3): carries the bar around the barrier's outer end on the label's side;
- `ThreadGapDouble` (scene 3): carries the bar through a gap between two bars (between two allowed ones
  when there are such);
- `UndoDouble`: does the task right, then undoes it (puts the object back where it started).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.agents.base import AgentReply
from heedful.agents.tabletop import planned_reply
from heedful.agents.tabletop_controls import ReplayController
from heedful.sims.tabletop import motion
from heedful.sims.tabletop.config import HOME_POS, HOME_YAW
from heedful.sims.tabletop.geometry import grasp_height, travel_height, xy_of
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.skills import go_home
from heedful.sims.tabletop.spec import GRASPABLE_SHAPES, STACKABLE_BASES
from heedful.suites.tabletop.expert import BARRIER_MARGIN, program, route_waypoints
from heedful.suites.tabletop.grounding import DIRECTION_VECTORS, PUSH_DIST, relative_target
from heedful.suites.tabletop.model import Grounded, Layout, TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation
from heedful.suites.tabletop.registry import horizon
from heedful.suites.tabletop.replay import record_actions
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.runtime import TrialRuntime
from heedful.suites.tabletop.skillcalls import SkillCall, execute

OPPOSITE = {"left": "right", "right": "left", "forward": "backward", "backward": "forward"}
RELATIONS = ("behind", "in_front_of", "left_of", "right_of")
END_X = 0.31  # beyond the outer bars' ends (0.255 m) with more than 2 cm to spare


def call(skill: str, **args: object) -> SkillCall:
    return SkillCall(skill=skill, args=dict(args))


def _xy(layout: Layout, name: str) -> tuple[float, float]:
    o = layout.obj(name)
    return o.x, o.y


def _mid(a: tuple[float, float], b: tuple[float, float]) -> list[float]:
    return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]


def goal_point(g: Grounded, layout: Layout) -> tuple[float, float]:
    """Where the task takes the source: home for pickups, else the target (relative: the expert's point)."""
    if g.action in ("pickup", "sequence_pickups") or g.target is None:
        return HOME_POS[0], HOME_POS[1]
    if g.action == "place_relative" and g.relation is not None:
        point = relative_target(layout, g.source, g.target, g.relation)
        if point is not None:
            return point
    return _xy(layout, g.target)


class ProgramDouble:
    """A planner double: answers the calls of `calls(g, layout)` one by one, then done."""

    name = "double"
    privileged = True  # reads the grounded task and the layout

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        raise NotImplementedError

    def act(self, observation: PlannerObservation) -> AgentReply:
        truth = observation.ground_truth()
        task, layout = truth.task, truth.layout
        return planned_reply(self.calls(task.grounded, layout), observation)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "grounded task (a test double)"}


class DropHalfwayDouble(ProgramDouble):
    name = "double-drop-halfway"

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        if g.action == "push":
            return [call("push", object=g.source, direction=g.direction, distance=0.015), call("go_home")]
        if g.action == "sequence_pickups" and g.second is not None:
            first = _xy(layout, g.source)
            head = [call("pick", object=g.source), call("place_at", x=first[0], y=first[1])]
            drop = call("carry", waypoints=[_mid(_xy(layout, g.second), goal_point(g, layout))])
            return [*head, call("pick", object=g.second), drop, call("go_home")]
        start, goal = _xy(layout, g.source), goal_point(g, layout)
        if g.action == "route_place":  # over the barrier, let go 4 cm past its line (short of the label)
            way = route_waypoints(g, layout)
            path = [way[0], [way[1][0], way[1][1] - BARRIER_MARGIN + 0.04]]
        else:
            path = [_mid(start, goal)]
        return [call("pick", object=g.source), call("carry", waypoints=path), call("go_home")]


def _free_bases(layout: Layout, skip: set[str], shapes: tuple[str, ...]) -> list[str]:
    under = {o.on for o in layout.objects}
    return [o.name for o in layout.objects if o.shape in shapes and o.name not in skip and o.name not in under]


class WrongGoalDouble(ProgramDouble):
    name = "double-wrong-goal"

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        src, start = g.source, _xy(layout, g.source)
        back = [call("pick", object=src), call("place_at", x=start[0], y=start[1]), call("go_home")]
        if g.action == "pickup":
            return back
        if g.action == "push" and g.direction is not None:
            return [call("push", object=src, direction=OPPOSITE[g.direction], distance=PUSH_DIST), call("go_home")]
        if g.action == "sequence_pickups":
            others = _free_bases(layout, {src, str(g.second)}, tuple(GRASPABLE_SHAPES))
            swapped = Grounded(action="sequence_pickups", source=src, second=others[0]) if others else g
            return program(swapped, layout)
        skip = {src, str(g.target)}
        if g.action == "stack":
            bases = _free_bases(layout, skip, tuple(STACKABLE_BASES))
            return [call("pick", object=src), call("place_on", target=bases[0]), call("go_home")] if bases else back
        if g.action == "place_bowl":
            bowls = _free_bases(layout, skip, ("bowl",))
            return [call("pick", object=src), call("place_in", bowl=bowls[0]), call("go_home")] if bowls else back
        if g.action in ("place_slot", "route_place"):
            labels = [o.name for o in layout.objects if o.shape == "label" and o.name not in skip]
            return program(g.model_copy(update={"target": labels[0]}), layout) if labels else back
        if g.action == "place_relative" and g.target is not None:
            bad = {"left_of", "right_of"} if g.relation == "beside" else {g.relation}
            for relation in (r for r in RELATIONS if r not in bad):
                point = relative_target(layout, src, g.target, relation)
                if point is not None:
                    return [call("pick", object=src), call("place_at", x=point[0], y=point[1]), call("go_home")]
        return back


def _nearest_other(g: Grounded, layout: Layout) -> str | None:
    src = layout.obj(g.source)
    skip = {g.source, g.target, g.second}
    under = {o.on for o in layout.objects}
    options = [o for o in layout.objects if o.shape in GRASPABLE_SHAPES and o.name not in skip and o.name not in under]
    options.sort(key=lambda o: (math.hypot(o.x - src.x, o.y - src.y), o.name))
    return options[0].name if options else None


class WrongObjectDouble(ProgramDouble):
    name = "double-wrong-object"

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        other = _nearest_other(g, layout)
        if other is None:
            return [call("go_home")]
        return program(g.model_copy(update={"source": other}), layout)


class UndoDouble(ProgramDouble):
    name = "double-undo"

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        start = _xy(layout, g.source)
        done = program(g, layout)
        if g.action == "push" and g.direction is not None:
            return [*done[:-1], call("push", object=g.source, direction=OPPOSITE[g.direction], distance=PUSH_DIST)]
        if g.action in ("pickup", "sequence_pickups"):
            held = g.second if g.action == "sequence_pickups" and g.second else g.source
            at = _xy(layout, held)
            return [*done, call("place_at", x=at[0], y=at[1]), call("go_home")]
        return [*done, call("pick", object=g.source), call("place_at", x=start[0], y=start[1]), call("go_home")]


def _route_program(g: Grounded, layout: Layout, x: float) -> list[SkillCall]:
    line = float(np.mean([layout.obj(b).y for b in g.barrier]))
    label = layout.obj(str(g.target))
    way = [[x, line - BARRIER_MARGIN], [x, line + BARRIER_MARGIN]]
    return [
        call("pick", object=g.source),
        call("carry", waypoints=way),
        call("place_at", x=label.x, y=label.y, yaw_deg=g.yaw_deg),
        call("go_home"),
    ]


class AroundEndDouble(ProgramDouble):
    name = "double-around-end"

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        if g.action != "route_place":
            return program(g, layout)
        return _route_program(g, layout, math.copysign(END_X, layout.obj(str(g.target)).x))


def gap_x(g: Grounded, layout: Layout) -> float:
    """The center of a gap between barrier bars: between two allowed bars if possible, else the gap
    beside the allowed bar nearest the label."""
    bars = sorted((layout.obj(b) for b in g.barrier), key=lambda o: o.x)
    pairs = list(itertools.pairwise(bars))
    gaps = [((a.x + a.params[0]) + (b.x - b.params[0])) / 2 for a, b in pairs]
    both = [x for x, (a, b) in zip(gaps, pairs, strict=True) if {a.name, b.name} <= set(g.allowed_bars)]
    if both:
        return both[0]
    label = layout.obj(str(g.target))
    return min(gaps, key=lambda x: abs(x - label.x))


class ThreadGapDouble(ProgramDouble):
    name = "double-thread-gap"

    def calls(self, g: Grounded, layout: Layout) -> list[SkillCall]:
        if g.action != "route_place":
            return program(g, layout)
        return _route_program(g, layout, gap_x(g, layout))


def descend_on(sim: TabletopSim, xy: NDArray[np.float64], name: str) -> motion.SkillGen:
    """Open fingers down to 1 cm above `name`'s grasp height at `xy`, a pause, and back up."""
    up = travel_height(sim)
    yield from motion.go_above(sim, xy, up, HOME_YAW, motion.OPEN)
    z = grasp_height(sim, name) + 0.01
    yield from motion.move_to(sim, (float(xy[0]), float(xy[1]), z), HOME_YAW, motion.OPEN, speed=0.3, tol=0.004)
    yield from motion.wait(sim, 10, motion.OPEN)
    yield from motion.move_to(sim, (float(xy[0]), float(xy[1]), up), HOME_YAW, motion.OPEN, tol=0.01)
    return True, f"descended on {name}"


class ApproachOnlyDouble(ReplayController):
    """Brings the open fingers down to the source (for a push, to the pusher's place behind it), waits,
    and goes home without ever closing."""

    name = "double-approach-only"

    def prepare(self, trial: TabletopTrial, seed: int) -> NDArray[np.float64]:
        g = trial.task.grounded

        def drive(rt: TrialRuntime) -> None:
            xy = xy_of(rt.sim, g.source)
            if g.action == "push" and g.direction is not None:
                xy = xy - 0.06 * np.array(DIRECTION_VECTORS[g.direction])
            motion.execute(rt.sim, descend_on(rt.sim, xy, g.source), "approach", step=rt.step)
            motion.execute(rt.sim, go_home(rt.sim), "go_home", step=rt.step)

        return record_actions(trial_layout(trial), horizon(trial.task.spec), drive)


class SwitchObjectDouble(ReplayController):
    """Descends with open fingers on the wrong object first, then does the task right."""

    name = "double-switch-object"

    def prepare(self, trial: TabletopTrial, seed: int) -> NDArray[np.float64]:
        g, layout = trial.task.grounded, trial_layout(trial)
        other = _nearest_other(g, layout)

        def drive(rt: TrialRuntime) -> None:
            if other is not None:
                motion.execute(rt.sim, descend_on(rt.sim, xy_of(rt.sim, other), other), "approach", step=rt.step)
            for c in program(g, layout):
                execute(c, rt.skills)

        return record_actions(layout, horizon(trial.task.spec), drive)


DOUBLES: dict[str, type[Any]] = {
    cls.name: cls
    for cls in (
        DropHalfwayDouble,
        WrongGoalDouble,
        WrongObjectDouble,
        SwitchObjectDouble,
        ApproachOnlyDouble,
        AroundEndDouble,
        ThreadGapDouble,
        UndoDouble,
    )
}
SCENE3_ONLY = ("double-around-end", "double-thread-gap")
