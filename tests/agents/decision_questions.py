"""Hand-built decision questions for the shallow-control tests (observations only: no gold, no task)."""

from __future__ import annotations

from heedful.suites.decisions.observation import ANSWER_FORMATS, DecisionObservation

# obj-05 of the default dataset: five objects, the purple ones are o2, o3, o5
OBJECTS = (
    ("o1", "small", "green", "block", 0.116, 0.546),
    ("o2", "small", "purple", "block", 0.197, 0.432),
    ("o3", "small", "purple", "cube", -0.095, 0.383),
    ("o4", "large", "green", "cube", 0.015, 0.615),
    ("o5", "small", "purple", "bar", -0.137, 0.498),
)
# act-22: four pushes; a1 and a3 move the same blue cylinder
ACTION_OBJECTS = (
    ("obj1", "large", "blue", "cylinder", -0.243, 0.659),
    ("obj2", "large", "orange", "bar", -0.127, 0.456),
    ("obj3", "small", "blue", "cube", 0.08, 0.346),
)
ACTIONS = (
    ("a1", "push the blue cylinder to the right by 10 cm"),
    ("a2", "push the blue cube to the right by 10 cm"),
    ("a3", "push the blue cylinder toward you by 10 cm"),
    ("a4", "push the bar away from you by 10 cm"),
)


def _state(objects: tuple[tuple[str, str, str, str, float, float], ...]) -> dict[str, object]:
    return {
        "objects": [
            {"name": n, "size": s, "color": c, "shape": sh, "x": x, "y": y, "yaw_deg": 0.0}
            for n, s, c, sh, x, y in objects
        ]
    }


def _observation(
    instruction: str, decision_type: str, candidates: tuple[dict[str, str], ...], state: dict[str, object]
) -> DecisionObservation:
    return DecisionObservation(
        episode_id="hand-built",
        decision_type=decision_type,
        instruction=instruction,
        masked=False,
        state_text="(not read by the controls)",
        state=state,
        candidates=candidates,
        answer_format=ANSWER_FORMATS[decision_type],
        prompt=instruction,
        seed=0,
    )


def object_question(instruction: str, decision_type: str = "single", *, shown: bool = True) -> DecisionObservation:
    """A question over OBJECTS (`shown=False`: the visual condition, no structured state)."""
    candidates = tuple({"id": i, "text": f"{s} {c} {sh.replace('sphere', 'ball')}"} for i, s, c, sh, _, _ in OBJECTS)
    state = _state(tuple((f"obj-{o[0]}", *o[1:]) for o in OBJECTS)) if shown else {}
    return _observation(instruction, decision_type, candidates, state)


def action_question(instruction: str, decision_type: str = "single") -> DecisionObservation:
    """A question over ACTIONS."""
    candidates = tuple({"id": i, "text": t} for i, t in ACTIONS)
    return _observation(instruction, decision_type, candidates, _state(ACTION_OBJECTS))
