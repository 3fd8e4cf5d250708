"""Stage-wise Intent / Execution scoring and the Completion criterion (RoboFollow, REFERENCES section 1).

Stages and weights: source 0.8 for pickup-only tasks, else 0.4 (0.3 in scene 3); the action stage 0.4
(0.3 in scene 3; a sequence's second pickup); finish 0.2, or in scene 3 orientation 0.4.
Gates: a stage's intent counts only if every earlier stage's intent is full; its execution only if every
earlier intent and execution, and its own intent, are full. Completion is a binary, action-dependent
test of the final state: pickups and sequences need intent and execution both >= 0.8 (RoboFollow's rule);
a placement needs the object where the action puts it at the end of the trial (relation, stack, bowl,
slot), a push a final displacement >= 0.02 m within 45 degrees; scene 3 needs the bar resting on the label
within 20 degrees and, since the final state cannot show a route, the route followed (route intent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.grounding import DIRECTION_VECTORS, angle_deg, relation_satisfied
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.route import route_stage
from heedful.suites.tabletop.stages import (
    StageVerdict,
    Track,
    bowl_stage,
    finish_stage,
    on_label,
    orientation_stage,
    push_stage,
    relative_stage,
    second_stage,
    slot_stage,
    source_stage,
    stack_stage,
    yaw_error_deg,
)

FULL = 1.0 - 1e-9


@dataclass(frozen=True)
class StageScore:
    """One stage after gating."""

    name: str
    weight: float
    intent: bool
    execution: bool
    raw_intent: bool
    raw_execution: bool
    detail: str


@dataclass(frozen=True)
class TrialScore:
    """Scores of one trial."""

    intent: float
    execution: float
    complete: bool
    stages: tuple[StageScore, ...]
    completion_detail: str

    @property
    def failed_stage(self) -> tuple[str, str] | None:
        """(stage, "intent" | "execution") of the first stage not fully earned, or None."""
        for s in self.stages:
            if not s.intent:
                return s.name, "intent"
        for s in self.stages:
            if not s.execution:
                return s.name, "execution"
        return None

    def scores(self) -> dict[str, float]:
        """Flat per-episode scores for the record."""
        out = {
            "intent": round(self.intent, 6),
            "execution": round(self.execution, 6),
            "complete": float(self.complete),
            "intent_full": float(self.intent >= FULL),
            "execution_full": float(self.execution >= FULL),
        }
        for s in self.stages:
            out[f"{s.name}_intent"] = float(s.intent)
            out[f"{s.name}_execution"] = float(s.execution)
        return out

    def details(self) -> dict[str, object]:
        failed = self.failed_stage
        return {
            "stages": [
                {"name": s.name, "weight": s.weight, "intent": s.intent, "execution": s.execution, "detail": s.detail}
                for s in self.stages
            ],
            "failed_stage": failed[0] if failed else None,
            "failed_on": failed[1] if failed else None,
            "completion": self.completion_detail,
        }


def raw_stages(tr: Track, g: Grounded, scene: int) -> list[StageVerdict]:
    """The task's stages, ungated."""
    s3 = scene == 3
    lift = 0.03 if (scene == 2 and g.action == "pickup") else 0.01
    if g.action == "pickup":
        return [source_stage(tr, g, 0.8, lift), finish_stage(tr, g, 0.2)]
    w = 0.3 if s3 else 0.4
    stages = [source_stage(tr, g, w, lift)]
    if g.action == "place_relative":
        stages.append(relative_stage(tr, g, w))
    elif g.action == "stack":
        aim, rest = (0.07, 0.05) if scene == 4 else (0.03, 0.03)
        stages.append(stack_stage(tr, g, w, aim, rest))
    elif g.action == "push":
        stages.append(push_stage(tr, g, w))
    elif g.action == "place_bowl":
        stages.append(bowl_stage(tr, g, w))
    elif g.action == "place_slot":
        stages.append(slot_stage(tr, g, w))
    elif g.action == "sequence_pickups":
        stages.append(second_stage(tr, g, w))
    elif g.action == "route_place":
        stages.append(route_stage(tr, g, w))
    stages.append(orientation_stage(tr, g, 0.4) if s3 else finish_stage(tr, g, 0.2))
    return stages


def gate(stages: list[StageVerdict]) -> list[StageScore]:
    """Apply RoboFollow's gates to raw verdicts."""
    out = []
    intent_ok = execution_ok = True
    for s in stages:
        intent = s.intent and intent_ok
        execution = s.execution and s.intent and intent_ok and execution_ok
        out.append(StageScore(s.name, s.weight, intent, execution, s.intent, s.execution, s.detail))
        intent_ok = intent_ok and s.intent
        execution_ok = execution_ok and s.execution and s.intent
    return out


def score_trajectory(traj: Trajectory, g: Grounded, layout: Layout, scene: int) -> TrialScore:
    """Score one trial from its recorded trajectory.

    Args:
        traj: The recorded trial (every control step up to the horizon).
        g: The grounded task (source, target, branch, ...).
        layout: The trial's initial layout (object shapes and sizes).
        scene: 1..4 (selects weights and thresholds).
    """
    tr = Track(traj, layout)
    stages = gate(raw_stages(tr, g, scene))
    intent = sum(s.weight for s in stages if s.intent)
    execution = sum(s.weight for s in stages if s.execution)
    complete, why = completion(tr, g, scene, intent, execution, stages)
    return TrialScore(round(intent, 9), round(execution, 9), complete, tuple(stages), why)


def completion(
    tr: Track, g: Grounded, scene: int, intent: float, execution: float, stages: list[StageScore]
) -> tuple[bool, str]:
    """RoboFollow's action-dependent completion criterion on the final state."""
    last = tr.last
    if g.action in ("pickup", "sequence_pickups"):
        ok = intent >= 0.8 - 1e-9 and execution >= 0.8 - 1e-9
        return ok, f"intent {intent:.2f} and execution {execution:.2f} (both >= 0.8 needed)"
    src = tr.xy(g.source, last)
    if g.action == "push":
        if g.direction is None:
            return False, "no direction"
        disp = src - tr.xy(g.source, 0)
        moved, angle = float(np.linalg.norm(disp)), angle_deg(disp, np.array(DIRECTION_VECTORS[g.direction]))
        return moved >= 0.02 and angle <= 45.0, f"final displacement {moved:.3f} m, {angle:.0f} deg off"
    if g.target is None:
        return False, "no target"
    off = float(np.linalg.norm(src - tr.xy(g.target, last)))
    bottom = tr.bottom(g.source, last)
    if g.action == "place_relative" and g.relation is not None:
        ok = relation_satisfied(src, tr.xy(g.target, last), g.relation) and bottom <= 0.02
        return ok, f"final: {off:.3f} m from {g.target}, bottom {bottom:.3f} m"
    if g.action == "stack":
        limit = 0.05 if scene == 4 else 0.03
        ok = off <= limit and bottom >= tr.top(g.target, last) - 0.01
        return ok, f"final: {off:.3f} m off {g.target} (limit {limit}), resting on top: {ok}"
    if g.action == "place_bowl":
        return off <= 0.04 and bottom <= tr.top(g.target, last), f"final: {off:.3f} m from the bowl's center"
    if g.action == "place_slot":
        return off <= 0.05 and bottom <= 0.02, f"final: {off:.3f} m from the slot's center"
    route_ok = any(s.name == "route" and s.raw_intent for s in stages)
    err = yaw_error_deg(tr.yaw(g.source, last), g.yaw_deg or 0.0)
    placed = on_label(tr, g.source, g.target, last, 0.0) and bottom <= 0.02
    ok = placed and err <= 20.0 and route_ok
    return ok, f"final: on {g.target}: {placed}, yaw error {err:.0f} deg, route followed: {route_ok}"
