"""What a decision agent sees: the state as text and JSON, the candidates with ids, the instruction and
the answer format; in the visual condition an image of the state instead of the object list and positions.
The constraint set (`privileged_task`, `privileged_candidates`) is filled only for agents that declare
`privileged = True` (the oracle; see `heedful.capabilities`); every other agent gets None."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heedful.seeding import derive_seed, episode_token
from heedful.suites.decisions.model import Candidate, DecisionEpisode, Task

FRAME = (
    "A robot arm looks down at a table. Positions are in meters: x grows to the robot's right, "
    "y grows away from the robot."
)

VISUAL_FRAME = (
    "The image shows the table from the robot's camera, which looks across the table from the robot's side: "
    "the image's left is the robot's left, and the top of the image is the far side of the table."
)

ANSWER_FORMATS = {
    "single": 'Answer with only a JSON object: {"decision": "<id>"}, where <id> is exactly one candidate id.',
    "set": (
        'Answer with only a JSON object: {"decision": ["<id>", ...]}, listing every chosen candidate id once, '
        "in any order."
    ),
    "sequence": (
        'Answer with only a JSON object: {"decision": ["<id>", ...]}, listing the chosen candidate ids '
        "in the order they must be carried out."
    ),
}


@dataclass(frozen=True)
class DecisionObservation:
    """One decision question. `prompt` is the complete text a language agent can send as is."""

    episode_id: str
    decision_type: str
    instruction: str
    masked: bool
    state_text: str
    state: dict[str, Any]
    candidates: tuple[dict[str, str], ...]
    answer_format: str
    prompt: str
    seed: int
    privileged_task: Task | None = None
    privileged_candidates: tuple[Candidate, ...] | None = None
    image_png: bytes | None = None
    """Visual condition: the agentview PNG of the state, which replaces the positions in `state_text`."""

    @property
    def candidate_ids(self) -> tuple[str, ...]:
        return tuple(c["id"] for c in self.candidates)


def _at(x: float, y: float) -> str:
    return f"(x={x:+.2f}, y={y:.2f})"


def state_text(episode: DecisionEpisode) -> str:
    """The state and candidate list as plain text."""
    lines = [FRAME]
    if episode.anchor_kind == "object":
        lines.append("Candidate objects on the table:")
        lines += [f"- {c.id}: {c.text} at {_at(c.x, c.y)}" for c in episode.candidates]
        return "\n".join(lines)
    lines.append("Objects on the table:")
    lines += [f"- {o.describe()} at {_at(o.x, o.y)}" for o in episode.state.objects]
    lines.append("Candidate actions (each is executable in this state):")
    lines += [f"- {c.id}: {c.text}" for c in episode.candidates]
    return "\n".join(lines)


def visual_state_text(episode: DecisionEpisode) -> str:
    """The candidate list without the object list and positions: the image shows where everything is."""
    lines = [VISUAL_FRAME]
    if episode.anchor_kind == "object":
        lines.append("Candidate objects (all visible in the image):")
    else:
        lines.append("Candidate actions (each is executable in the pictured state):")
    lines += [f"- {c.id}: {c.text}" for c in episode.candidates]
    return "\n".join(lines)


def shown_seed(run_seed: int, decision_type: str, instruction: str, candidates: Sequence[Mapping[str, str]]) -> int:
    """The seed an agent sees, and the source of its opaque episode token: from the run seed and the words it is
    shown (instruction and candidates), never the episode id. A seed derived from the id (as `RolloutContext.seed`
    is) names the episode, and with it the family and the role, to anyone who hashes the dataset's ids, or guesses
    them (`obj-01-f01-base`, ...), under the usual run seeds; this one says nothing the words do not, is the same
    on every backend, and the same in the structured and visual conditions (a blind agent answers both alike)."""
    words = json.dumps([decision_type, instruction, [[c["id"], c["text"]] for c in candidates]])
    return derive_seed(run_seed, "shown", hashlib.sha256(words.encode("utf-8")).hexdigest())


def build_observation(
    episode: DecisionEpisode, *, run_seed: int, mask: bool, image_png: bytes | None = None, privileged: bool = False
) -> DecisionObservation:
    """Assemble the observation; with `mask` the task-critical words of the instruction are removed; the
    constraint set only with `privileged` (an agent that declares it). Its seed and token: `shown_seed`.

    With `image_png` (the visual condition) the image replaces the structured object list and positions;
    the candidates, the instruction and the answer format stay the same, as in the paper's visual subset.
    """
    instruction = episode.masked_instruction if mask else episode.instruction
    text = state_text(episode) if image_png is None else visual_state_text(episode)
    answer_format = ANSWER_FORMATS[episode.decision_type]
    prompt = f"{text}\n\nInstruction: {instruction}\n\n{answer_format}"
    candidates = tuple({"id": c.id, "text": c.text} for c in episode.candidates)
    seed = shown_seed(run_seed, episode.decision_type, instruction, candidates)
    return DecisionObservation(
        episode_id=episode_token(seed),  # opaque: the dataset's id names the family and role
        decision_type=episode.decision_type,
        instruction=instruction,
        masked=mask,
        state_text=text,
        state=episode.state.model_dump(mode="json") if image_png is None else {},  # the image shows it
        candidates=candidates,
        answer_format=answer_format,
        prompt=prompt,
        seed=seed,
        privileged_task=episode.task if privileged else None,
        privileged_candidates=episode.candidates if privileged else None,
        image_png=image_png,
    )
