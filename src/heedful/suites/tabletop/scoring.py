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

Completion is a binary, action-dependent test of the end of the trial: the task done and left done
(released, gripper open, everything at rest, the relation held with physical support, got there by the
robot's action); see `completion.py`, the one implementation shared with the env's `is_success`.
Pickups and sequences also keep RoboFollow's rule (intent and execution >= 0.8). Side effects are
measured beside it: `disturbance` (objects the task does not name that moved, dropped or fell over) and
`complete_clean` (complete, nothing disturbed). The full specification: docs/tabletop-scoring.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.completion import completion, disturbance, required_lift
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.placement import (
    bowl_stage,
    label_stage,
    orientation_stage,
    push_source,
    push_stage,
    relative_stage,
    second_stage,
    slot_stage,
    stack_stage,
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
    disturbed: tuple[str, ...] = ()
    disturbance_detail: str = ""

    def __post_init__(self) -> None:
        # Plain Python types by construction: records are serialized as JSON (finding 1 of issue 12).
        object.__setattr__(self, "intent", float(self.intent))
        object.__setattr__(self, "execution", float(self.execution))
        object.__setattr__(self, "complete", bool(self.complete))
        object.__setattr__(self, "completion_detail", str(self.completion_detail))
        object.__setattr__(self, "disturbed", tuple(str(n) for n in self.disturbed))

    @property
    def complete_clean(self) -> bool:
        """Complete and no other object disturbed."""
        return self.complete and not self.disturbed

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
            "disturbance": float(len(self.disturbed)),
            "disturbed": float(bool(self.disturbed)),
            "complete_clean": float(self.complete_clean),
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
            "disturbed": list(self.disturbed),
            "disturbance": self.disturbance_detail,
        }


def raw_stages(tr: Track, g: Grounded, scene: int) -> list[StageVerdict]:
    """The task's stages, ungated."""
    lift = required_lift(scene, g.action)
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


def score_trajectory(traj: Trajectory, g: Grounded, layout: Layout, scene: int, row: int | None = None) -> TrialScore:
    """Score one trial from its recorded trajectory.

    Args:
        traj: The recorded trial (every control step up to the horizon).
        g: The grounded task (source, target, branch, ...).
        layout: The trial's initial layout (object shapes and sizes).
        scene: 1..4 (selects weights and thresholds).
        row: Judge completion and disturbance at this row (default: the last).
    """
    tr = Track(traj, layout)
    stages = gate(raw_stages(tr, g, scene))
    intent = sum(s.weight for s in stages if s.intent)
    execution = sum(s.weight for s in stages if s.execution)
    route_ok = any(s.name == "route" and s.raw_intent for s in stages)
    complete, why = completion(tr, g, scene, intent, execution, route_ok, row)
    moved, moved_why = disturbance(tr, g, row)
    return TrialScore(round(intent, 9), round(execution, 9), complete, tuple(stages), why, moved, moved_why)
