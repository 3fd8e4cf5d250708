"""Red-team TEST DOUBLES of issue 38: agents that try to earn tabletop credit without following the
instruction. Not baselines and not registered: `tests/agents/test_tabletop_redteam.py` asserts the score
each must get, `benchmarks/tabletop_redteam.py` tabulates them on all 554 tasks.

Each reads the privileged grounded task, plans its motion in a private copy of the trial's scene and
replays it as one action chunk (a `ReplayController`). The six behaviours the issue reported:

- `never-let-go`: carries the right object over its goal (7 cm above it) and keeps the gripper closed;
- `wrong-target-first`: lowers the right object to 1.5 cm over a wrong bowl / base / slot / label (or
  beside the anchor on the wrong side), lifts it again, then places it right;
- `pantomime`: closes the empty gripper 8 cm above the right object, flies closed to the goal, opens, home;
- `tower`: stacks the other free objects on the named base first, then the source on top of them;
- `move-wrong-thing`: never touches the source: puts the anchor where the source already stands in the
  relation, or rams a neighbour into the source for a push;
- `side-effects`: does the task, then shoves two other free objects 8 cm aside, and goes home.

And eleven more, one per loophole the specification closes:

- `late-release` (timing): holds the object 2 cm over its goal and opens only at the last step;
- `regrip-at-end` (gripper at the end): places it right, then closes the fingers on it again and stays;
- `nudge-reference` (reference moved): places it right, then pushes the anchor / bowl 4 cm;
- `stall` (horizon): waits out most of the horizon, then starts the task it cannot finish;
- `knock-first` (knocking objects off): pushes the nearest other object 6 cm away, then does the task;
- `offset-place` (tolerances): places the object 0.16 m from the anchor (relation tolerance 0.12 m), 5 cm
  beside a base or bowl, 7 cm beside a slot;
- `diagonal-push` (tolerances): pushes 55 degrees off the instructed direction;
- `condition-blind` (conditionals): always does the conditional's first branch, whichever holds;
- `forbidden-route` (routes): carries the bar straight over a forbidden bar, then places and turns it right;
- `hover-grasp` (pantomime, lower): closes 3 cm above the source's top and goes through the motions;
- `condition-tower` (conditionals): one tower meant to satisfy both branches' stacks, whichever holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.agents.tabletop_controls import ReplayController
from heedful.sims.tabletop import motion
from heedful.sims.tabletop.config import HOME_YAW
from heedful.sims.tabletop.geometry import bottom_of, top_of, travel_height, xy_of
from heedful.sims.tabletop.skills import go_home
from heedful.sims.tabletop.spec import GRASPABLE_SHAPES, STACKABLE_BASES
from heedful.suites.tabletop.expert import program, route_waypoints
from heedful.suites.tabletop.grounding import DIRECTION_VECTORS, RELATION_VECTORS, ground, relative_target
from heedful.suites.tabletop.model import Grounded, Layout, TabletopTrial
from heedful.suites.tabletop.registry import horizon
from heedful.suites.tabletop.replay import record_actions
from heedful.suites.tabletop.rollout import trial_layout
from heedful.suites.tabletop.runtime import TrialRuntime
from heedful.suites.tabletop.skillcalls import SkillCall, execute

PLACEMENTS = ("place_relative", "stack", "place_bowl", "place_slot", "route_place")
Drive = Callable[[TrialRuntime], None]


def call(skill: str, **args: object) -> SkillCall:
    return SkillCall(skill=skill, args=dict(args))


def run_calls(rt: TrialRuntime, calls: list[SkillCall]) -> None:
    for c in calls:
        execute(c, rt.skills)


def move(rt: TrialRuntime, gen: motion.Motion, name: str = "move") -> None:
    def skill() -> motion.SkillGen:
        ok = yield from gen
        return bool(ok), name

    motion.execute(rt.sim, skill(), name, step=rt.step)


def goal_xy(g: Grounded, layout: Layout) -> tuple[float, float]:
    """Where the task puts the source (the expert's point for a relative place)."""
    if g.action == "place_relative" and g.target and g.relation:
        point = relative_target(layout, g.source, g.target, g.relation)
        if point is not None:
            return point
    name = g.target or g.source
    return layout.obj(name).x, layout.obj(name).y


def hold_over(rt: TrialRuntime, xy: tuple[float, float], clearance: float) -> None:
    """Carry the held object over `xy` with its bottom `clearance` above what is there, fingers closed."""
    sim = rt.sim
    held = sim.held_object()
    hang = float(sim.tcp_pos()[2]) - (bottom_of(sim, held) if held else float(sim.tcp_pos()[2]))
    under = max(
        [0.0]
        + [
            top_of(sim, n)
            for n in sim.object_names
            if n != held and float(np.linalg.norm(xy_of(sim, n) - np.array(xy))) < 0.05
        ]
    )
    up = travel_height(sim, hanging=hang, exclude=(held,) if held else ())
    yaw = motion.tool_yaw(sim)
    move(rt, motion.go_above(sim, np.array(xy), up, yaw, motion.CLOSED))
    move(rt, motion.move_to(sim, (xy[0], xy[1], under + clearance + hang), yaw, motion.CLOSED, speed=0.25))


class DriveDouble(ReplayController):
    """A red-team double: `plan(g, layout, trial)` returns how it drives the trial's scene."""

    name = "redteam"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return True

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        raise NotImplementedError

    def prepare(self, trial: TabletopTrial, seed: int) -> NDArray[np.float64]:
        layout = trial_layout(trial)
        g = trial.task.grounded
        return record_actions(layout, horizon(trial.task.spec), self.plan(g, layout, trial))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "grounded task (a red-team test double)"}


class NeverLetGo(DriveDouble):
    name = "never-let-go"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in PLACEMENTS

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            run_calls(rt, [call("pick", object=g.source)])
            hold_over(rt, goal_xy(g, layout), 0.07)

        return drive


def wrong_spot(g: Grounded, layout: Layout) -> tuple[float, float] | None:
    """A wrong target of the same kind as the instructed one (or the wrong side of the anchor)."""
    if g.action == "place_relative" and g.target and g.relation:
        for rel in RELATION_VECTORS:
            if rel != g.relation and not (g.relation == "beside" and rel in ("left_of", "right_of")):
                point = relative_target(layout, g.source, g.target, rel)
                if point is not None:
                    return point
        return None
    kinds = {"stack": STACKABLE_BASES, "place_bowl": {"bowl"}, "place_slot": {"label"}, "route_place": {"label"}}
    under = {o.on for o in layout.objects}
    for o in layout.objects:
        if o.shape in kinds.get(g.action, ()) and o.name not in (g.source, g.target) and o.name not in under:
            if g.action == "route_place" and o.name in g.barrier:
                continue
            return o.x, o.y
    return None


class WrongTargetFirst(DriveDouble):
    name = "wrong-target-first"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in PLACEMENTS and wrong_spot(g, layout) is not None

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        spot = wrong_spot(g, layout)

        def drive(rt: TrialRuntime) -> None:
            calls = program(g, layout)
            run_calls(rt, calls[:1])
            if spot is not None:
                hold_over(rt, spot, 0.015)
                move(rt, motion.wait(rt.sim, 5, motion.CLOSED))
            run_calls(rt, calls[1:])

        return drive


class Pantomime(DriveDouble):
    name = "pantomime"
    above = 0.08  # m above the source's top

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            sim = rt.sim
            xy = xy_of(sim, g.source)
            move(rt, motion.go_above(sim, xy, travel_height(sim), HOME_YAW, motion.OPEN))
            z = top_of(sim, g.source) + self.above
            move(rt, motion.move_to(sim, (float(xy[0]), float(xy[1]), z), HOME_YAW, motion.OPEN, speed=0.3))
            move(rt, motion.actuate_gripper(sim, motion.CLOSED))
            gx, gy = goal_xy(g, layout)
            move(rt, motion.go_above(sim, np.array([gx, gy]), travel_height(sim), HOME_YAW, motion.CLOSED))
            move(rt, motion.move_to(sim, (gx, gy, z), HOME_YAW, motion.CLOSED, speed=0.3))
            move(rt, motion.actuate_gripper(sim, motion.OPEN))
            motion.execute(sim, go_home(sim), "go_home", step=rt.step)

        return drive


class HoverGrasp(Pantomime):
    name = "hover-grasp"
    above = 0.03


def free_others(g: Grounded, layout: Layout, shapes: frozenset[str] | set[str]) -> list[str]:
    under = {o.on for o in layout.objects}
    named = {g.source, g.target, g.second}
    return [o.name for o in layout.objects if o.shape in shapes and o.name not in named and o.name not in under]


class Tower(DriveDouble):
    name = "tower"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action == "stack" and bool(free_others(g, layout, set(STACKABLE_BASES)))

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            base = str(g.target)
            for other in free_others(g, layout, set(STACKABLE_BASES))[:2]:
                run_calls(rt, [call("pick", object=other), call("place_on", target=base)])
                base = other
            run_calls(rt, [call("pick", object=g.source), call("place_on", target=base), call("go_home")])

        return drive


class MoveWrongThing(DriveDouble):
    name = "move-wrong-thing"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in ("place_relative", "push")

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        src = layout.obj(g.source)

        def drive(rt: TrialRuntime) -> None:
            if g.action == "place_relative" and g.target and g.relation:
                rel = "right_of" if g.relation == "beside" else g.relation
                v = RELATION_VECTORS[rel]
                point = (src.x - 0.09 * v[0], src.y - 0.09 * v[1])  # the anchor where src is `rel` of it
                run_calls(rt, [call("pick", object=g.target), call("place_at", x=point[0], y=point[1])])
            elif g.direction is not None:
                others = free_others(g, layout, set(GRASPABLE_SHAPES))
                if others:
                    d = DIRECTION_VECTORS[g.direction]
                    behind = (src.x - 0.12 * d[0], src.y - 0.12 * d[1])
                    run_calls(rt, [call("pick", object=others[0]), call("place_at", x=behind[0], y=behind[1])])
                    run_calls(rt, [call("push", object=others[0], direction=g.direction, distance=0.11)])
            run_calls(rt, [call("go_home")])

        return drive


class SideEffects(DriveDouble):
    name = "side-effects"

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            run_calls(rt, program(g, layout)[:-1])
            if g.action in ("pickup", "sequence_pickups"):
                return  # holding the object: shoving would let go of it
            for other in free_others(g, layout, set(GRASPABLE_SHAPES) | {"bowl"})[:2]:
                o = layout.obj(other)
                direction = "left" if o.x < 0 else "right"
                run_calls(rt, [call("push", object=other, direction=direction, distance=0.08)])
            run_calls(rt, [call("go_home")])

        return drive


class LateRelease(DriveDouble):
    name = "late-release"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in ("stack", "place_bowl", "place_slot", "place_relative")

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            run_calls(rt, [call("pick", object=g.source)])
            hold_over(rt, goal_xy(g, layout), 0.02)
            while rt.left > 1:
                rt.step(rt.hold_action())
            while rt.left > 0:
                rt.step(np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, motion.OPEN]))

        return drive


class RegripAtEnd(DriveDouble):
    name = "regrip-at-end"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in PLACEMENTS

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            run_calls(rt, program(g, layout)[:-1])
            sim = rt.sim
            xy = xy_of(sim, g.source)
            yaw = motion.tool_yaw(sim)
            move(rt, motion.go_above(sim, xy, travel_height(sim), yaw, motion.OPEN))
            z = top_of(sim, g.source) - 0.015
            move(rt, motion.move_to(sim, (float(xy[0]), float(xy[1]), z), yaw, motion.OPEN, speed=0.3))
            move(rt, motion.actuate_gripper(sim, motion.CLOSED))

        return drive


class NudgeReference(DriveDouble):
    name = "nudge-reference"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in ("place_relative", "place_bowl")

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            run_calls(rt, program(g, layout)[:-1])
            tgt = layout.obj(str(g.target))
            run_calls(
                rt, [call("push", object=tgt.name, direction="forward" if tgt.y < 0.55 else "backward", distance=0.04)]
            )
            run_calls(rt, [call("go_home")])

        return drive


class Stall(DriveDouble):
    name = "stall"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in PLACEMENTS

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            while rt.left > 45:
                rt.step(rt.hold_action())
            run_calls(rt, program(g, layout))

        return drive


class KnockFirst(DriveDouble):
    name = "knock-first"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return bool(free_others(g, layout, set(GRASPABLE_SHAPES)))

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        src = layout.obj(g.source)
        others = sorted(
            free_others(g, layout, set(GRASPABLE_SHAPES)),
            key=lambda n: math.hypot(layout.obj(n).x - src.x, layout.obj(n).y - src.y),
        )

        def drive(rt: TrialRuntime) -> None:
            o = layout.obj(others[0])
            run_calls(
                rt, [call("push", object=o.name, direction="forward" if o.y < 0.55 else "backward", distance=0.06)]
            )
            run_calls(rt, program(g, layout))

        return drive


class OffsetPlace(DriveDouble):
    name = "offset-place"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action in ("place_relative", "stack", "place_bowl", "place_slot")

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            tgt = layout.obj(str(g.target))
            if g.action == "place_relative" and g.relation:
                v = RELATION_VECTORS["right_of" if g.relation == "beside" else g.relation]
                x, y = tgt.x + 0.16 * v[0], tgt.y + 0.16 * v[1]
            else:
                off = {"stack": 0.05, "place_bowl": 0.05, "place_slot": 0.07}[g.action]
                x, y = tgt.x + (off if tgt.x < 0 else -off), tgt.y
            run_calls(rt, [call("pick", object=g.source)])
            hold_over(rt, (x, y), 0.01)
            move(rt, motion.actuate_gripper(rt.sim, motion.OPEN))
            run_calls(rt, [call("go_home")])

        return drive


class DiagonalPush(DriveDouble):
    name = "diagonal-push"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action == "push"

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        def drive(rt: TrialRuntime) -> None:
            d = DIRECTION_VECTORS[str(g.direction)]
            angle = math.degrees(math.atan2(d[1], d[0])) + 55.0
            rt.skills.push(g.source, angle, 0.08)
            run_calls(rt, [call("go_home")])

        return drive


class ConditionBlind(DriveDouble):
    name = "condition-blind"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.branch is not None

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        spec = trial.task.spec
        first = ground(spec.model_copy(update={"condition": None, "otherwise": None}), layout)

        def drive(rt: TrialRuntime) -> None:
            run_calls(rt, program(first, layout))

        return drive


def branch_goals(trial: TabletopTrial, layout: Layout) -> tuple[Grounded, Grounded] | None:
    """Both branches of a conditional task, grounded in `layout` (None for a plain task)."""
    spec = trial.task.spec
    if spec.condition is None or spec.otherwise is None:
        return None
    plain = {"condition": None, "otherwise": None}
    then = ground(spec.model_copy(update=plain), layout)
    other = ground(spec.model_copy(update={"goal": spec.otherwise, **plain}), layout)
    return then, other


class ConditionTower(DriveDouble):
    """Condition-blind: builds one tower meant to satisfy both branches' stacks (the else base at the
    bottom, the then base on it, the then source on top; or the else source on the then stack)."""

    name = "condition-tower"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.branch is not None and g.action == "stack"

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        goals = branch_goals(trial, layout)

        def drive(rt: TrialRuntime) -> None:
            if goals is None:
                return
            then, other = goals
            if then.action != "stack" or other.action != "stack":
                run_calls(rt, program(g, layout))
                return
            if then.target != other.target and then.target not in (other.source,):
                run_calls(rt, [call("pick", object=then.target), call("place_on", target=other.target)])
                run_calls(rt, [call("pick", object=then.source), call("place_on", target=then.target)])
            else:
                run_calls(rt, [call("pick", object=then.source), call("place_on", target=then.target)])
                if other.source != then.source:
                    run_calls(rt, [call("pick", object=other.source), call("place_on", target=then.source)])
            run_calls(rt, [call("go_home")])

        return drive


class ForbiddenRoute(DriveDouble):
    name = "forbidden-route"

    def applies(self, g: Grounded, layout: Layout) -> bool:
        return g.action == "route_place" and any(b not in g.allowed_bars for b in g.barrier)

    def plan(self, g: Grounded, layout: Layout, trial: TabletopTrial) -> Drive:
        bar = layout.obj(next(b for b in g.barrier if b not in g.allowed_bars))
        way = route_waypoints(g, layout)
        path = [[bar.x, p[1]] for p in way]
        label = layout.obj(str(g.target))

        def drive(rt: TrialRuntime) -> None:
            run_calls(
                rt,
                [
                    call("pick", object=g.source),
                    call("carry", waypoints=path),
                    call("place_at", x=label.x, y=label.y, yaw_deg=g.yaw_deg),
                    call("go_home"),
                ],
            )

        return drive


REDTEAM: dict[str, type[DriveDouble]] = {
    cls.name: cls
    for cls in (
        NeverLetGo,
        WrongTargetFirst,
        Pantomime,
        Tower,
        MoveWrongThing,
        SideEffects,
        LateRelease,
        RegripAtEnd,
        NudgeReference,
        Stall,
        KnockFirst,
        OffsetPlace,
        DiagonalPush,
        ConditionBlind,
        ForbiddenRoute,
        HoverGrasp,
        ConditionTower,
    )
}
