"""Trial seeds and the 1-2 cm perturbations that give every trial and demonstration a fresh scene.

RoboFollow's seed rule: trial seed = 42 + round * 100 + (stable hash of the task name) % 1000. The seed
draws a shift of 1-2 cm in a random direction for every object that rests on the table (stacked objects
and the contents of a bowl move with their support); a draw after which the scene would not build, or
the task would ground differently, is redrawn (bounded).
"""

from __future__ import annotations

import math

import numpy as np

from heedful.errors import ConfigError, GenerationError
from heedful.seeding import stable_hash
from heedful.sims.tabletop.spec import validate_scene
from heedful.suites.tabletop.grounding import GroundingError, ground
from heedful.suites.tabletop.model import Grounded, Layout, TaskSpec

TRIALS = 10
SHIFT_M = (0.01, 0.02)
MAX_TRIES = 100


def trial_seed(task: str, round_index: int) -> int:
    """RoboFollow's trial seed for round `round_index` (0-based) of task `task`."""
    return 42 + round_index * 100 + stable_hash(task, 1000)


def shifted(layout: Layout, rng: np.random.Generator) -> Layout:
    """The layout with every table-resting object moved 1-2 cm in a random direction."""
    offsets: dict[str, tuple[float, float]] = {}
    for o in layout.objects:
        if o.on is None:
            r, a = float(rng.uniform(*SHIFT_M)), float(rng.uniform(0.0, 2 * math.pi))
            offsets[o.name] = (r * math.cos(a), r * math.sin(a))
    supports = {o.name: o.on for o in layout.objects}
    supports.update({inner: bowl for inner, bowl in layout.inside})

    def root(name: str) -> str:
        seen = 0
        while supports.get(name) is not None and seen < len(supports):
            name, seen = str(supports[name]), seen + 1
        return name

    objects = tuple(
        o.model_copy(
            update={"x": round(o.x + offsets[root(o.name)][0], 4), "y": round(o.y + offsets[root(o.name)][1], 4)}
        )
        for o in layout.objects
    )
    return layout.model_copy(update={"objects": objects})


def perturb(layout: Layout, spec: TaskSpec, expected: Grounded, rng: np.random.Generator) -> Layout:
    """A perturbed copy of `layout` in which `spec` grounds exactly as `expected`.

    Raises:
        GenerationError: no valid perturbation within MAX_TRIES draws.
    """
    for _ in range(MAX_TRIES):
        candidate = shifted(layout, rng)
        try:
            validate_scene(candidate.scene_spec(), margin=0.005)
            if ground(spec, candidate) == expected:
                return candidate
        except (GroundingError, ConfigError):
            continue
    raise GenerationError(f"no valid 1-2 cm perturbation of {layout.layout_id} in {MAX_TRIES} draws")
