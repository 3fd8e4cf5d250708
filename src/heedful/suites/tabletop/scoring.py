"""Stage-wise Intent / Execution scoring and the Completion criterion (RoboFollow, REFERENCES section 1).

Intent is the semantic choice at each stage (which object, which target, which direction or route);
Execution the physical sub-goal of that stage. The stage rules, with worked examples, are in `stages.py`
(approach, source, finish), `placement.py` (placements, push, sequence, scene 3 label and orientation)
and `route.py`.

Stages and weights: source 0.8 for pickup-only tasks, else 0.4; the action stage 0.4 (a sequence's
second pickup); finish 0.2. Scene 3 is re-weighted: its blue bar is the only object that can be carried,
so choosing it is no choice and the source stage weighs 0 (it still gates: nothing counts before the
bar is grasped); the three choices a scene 3 instruction makes carry the weight: route 0.3, label 0.3
(which label the bar is taken to), orientation 0.4. (REFERENCES gives source 0.3 / route 0.3 /
orientation 0.4 with the label inside orientation: that made 0.3 free for any agent, finding 5.)

Gates: a stage's intent counts only if every earlier stage's intent is full; its execution only if every
earlier intent and execution, and its own intent, are full. Worked examples:
  - "put the red cube in the green bowl", carried toward the bowl and dropped halfway, then home:
    source (0.4) intent and execution; bowl intent (headed for it) but no execution; finish intent
    (its execution is gated off): Intent 1.0, Execution 0.4, not complete;
  - the same cube put in the yellow bowl instead: bowl intent False, so finish intent is gated off:
    Intent 0.4, Execution 0.4;
  - "pick up the red cube", fingers brought to it but never closed: Intent 0.8, Execution 0;
  - scene 3, right route and yaw to the wrong label: source 0 + route 0.3; label intent False gates the
    orientation off: Intent 0.3 (was 0.6).

Completion is a binary, action-dependent test of the final state: pickups and sequences need intent and
execution both >= 0.8 (RoboFollow's rule; with the held-to-the-end execution above, a dropped object
fails); a placement needs the object where the action puts it at the end of the trial (relation, stack,
bowl, slot), a push a final displacement >= 0.02 m within 45 degrees; scene 3 needs the bar resting on
the label within 20 degrees and, since the final state cannot show a route, the route followed (route
intent). Example: a bowl placement undone at the end (taken out again) is not complete.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.grounding import DIRECTION_VECTORS, angle_deg, relation_satisfied
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.placement import (
    bowl_stage,
    label_stage,
    on_label,
    orientation_stage,
    push_source,
    push_stage,
    relative_stage,
    second_stage,
    slot_stage,
    stack_stage,
    yaw_error_deg,
)
from heedful.suites.tabletop.route import route_stage
from heedful.suites.tabletop.stages import StageVerdict, Track, finish_stage, source_stage

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

    def __post_init__(self) -> None:
        for name in ("intent", "execution", "raw_intent", "raw_execution"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        object.__setattr__(self, "weight", float(self.weight))


@dataclass(frozen=True)
class TrialScore:
    """Scores of one trial."""

    intent: float
    execution: float
    complete: bool
    stages: tuple[StageScore, ...]
    completion_detail: str

    def __post_init__(self) -> None:
        # Plain Python types by construction: records are serialized as JSON (finding 1 of issue 12).
        object.__setattr__(self, "intent", float(self.intent))
        object.__setattr__(self, "execution", float(self.execution))
        object.__setattr__(self, "complete", bool(self.complete))
        object.__setattr__(self, "completion_detail", str(self.completion_detail))

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
    lift = 0.03 if (scene == 2 and g.action == "pickup") else 0.01
    if g.action == "pickup":
        return [source_stage(tr, g, 0.8, lift), finish_stage(tr, g, 0.2)]
    if g.action == "route_place":
        return [
            source_stage(tr, g, 0.0, lift),
            route_stage(tr, g, 0.3),
            label_stage(tr, g, 0.3),
            orientation_stage(tr, g, 0.4),
        ]
    w = 0.4
    stages = [push_source(tr, g, w) if g.action == "push" else source_stage(tr, g, w, lift)]
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
    stages.append(finish_stage(tr, g, 0.2))
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
    placed = on_label(tr, src, g.target, last, 0.0) and bottom <= 0.02
    ok = placed and err <= 20.0 and route_ok
    return ok, f"final: on {g.target}: {placed}, yaw error {err:.0f} deg, route followed: {route_ok}"
