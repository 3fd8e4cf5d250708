"""Do the tabletop levels test what they claim? The numbers of issue 12, finding 6, per scene and level.

    MUJOCO_GL=egl python benchmarks/tabletop_levels.py [--no-sim]

Columns (every count is over all tasks of that scene and level):
  unmoved   L1/L3 tasks whose training counterpart grounds to the same objects and none of them moved
            (the issue's "effectively L2"): the training spec for L1, the task's own spec in the training
            layout for L3.
  fits      L1/L3 tasks the training motion would still do, judged from grounded positions
            (`behaviour.training_motion_fits` against every reference motion of the task).
  replay    L1/L3 tasks completed by replaying, open loop in MuJoCo, the training expert's actions of a
            reference motion (`registry.reference_motions`) at the training coordinates.
  matcher   tasks completed by the nearest-training-instruction matcher: the training phrasing of the same
            scene with the smallest token distance (`phrasing.nearest`), its expert actions replayed.
  syn / 1w  L2/L3 tasks whose nearest training phrasing is at token distance 0 (a synonym swap) / 1 (one word).
  ambig     relational references ("X left of / right of / behind / in front of A") with a second object
            of X's kind on that side of A (within 45 degrees of the direction, any distance).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections import Counter, defaultdict
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from heedful.suites.tabletop import registry
from heedful.suites.tabletop.behaviour import training_motion_fits
from heedful.suites.tabletop.grounding import RELATION_VECTORS, GroundingError, angle_deg, candidates, ground, resolve
from heedful.suites.tabletop.model import Grounded, Layout, Ref, TabletopTask, TaskSpec
from heedful.suites.tabletop.motion_replay import expert_actions, replay_score
from heedful.suites.tabletop.phrasing import nearest

SECTOR_DEG = 45.0


def refs_of(spec: TaskSpec) -> Iterator[Ref]:
    goals = [spec.goal] + ([spec.otherwise] if spec.otherwise is not None else [])
    for goal in goals:
        for r in (goal.source, goal.second, goal.target):
            if r is not None:
                yield r


def ambiguous_relations(spec: TaskSpec, layout: Layout) -> int:
    """Relational references of `spec` with a second object of the referent's kind on that side."""
    n = 0
    for r in refs_of(spec):
        if r.relation is None or r.anchor is None:
            continue
        anchor = layout.obj(resolve(r.anchor, layout))
        kind = candidates(r.model_copy(update={"relation": None, "anchor": None}), layout)
        side = [
            o
            for o in kind
            if o.name != anchor.name
            and angle_deg(np.array([o.x - anchor.x, o.y - anchor.y]), np.array(RELATION_VECTORS[r.relation]))
            <= SECTOR_DEG
        ]
        n += len(side) > 1
    return n


def unmoved(before: Grounded, before_layout: Layout, after: Grounded, layout: Layout) -> bool:
    same = before.model_copy(update={"branch": None}) == after.model_copy(update={"branch": None})
    involved = {n for n in (after.source, after.second, after.target, *after.allowed_bars) if n}
    where = {o.name: (o.x, o.y) for o in before_layout.objects}
    return same and all(where.get(o.name) == (o.x, o.y) for o in layout.objects if o.name in involved)


def references(task: TabletopTask) -> list[tuple[Grounded, Layout, str]]:
    """The reference motions of an L1/L3 task (works on registries without `reference_motions`)."""
    if hasattr(registry, "reference_motions"):
        return list(registry.reference_motions(task))
    base = registry.training_layouts()[task.base_config]
    out = []
    with contextlib.suppress(GroundingError):
        out.append((ground(task.spec, base), base, "spec in training layout"))
    if task.training_label:
        t = next(t for t in registry.training_tasks() if t.label == task.training_label)
        out.append((t.grounded, t.layout, t.label))
    return out


class Actions:
    """Expert actions per (grounded task, layout), computed once."""

    def __init__(self) -> None:
        self.cache: dict[str, NDArray[np.float64]] = {}

    def __call__(self, g: Grounded, layout: Layout) -> NDArray[np.float64]:
        key = g.model_dump_json() + layout.model_dump_json()
        if key not in self.cache:
            self.cache[key] = expert_actions(g, layout)
        return self.cache[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-sim", action="store_true", help="skip the MuJoCo replays (replay, matcher)")
    args = parser.parse_args()
    start = time.perf_counter()
    tasks = registry.evaluation_tasks()
    train = registry.training_tasks()
    actions = Actions()
    counts: dict[tuple[int, str], Counter[str]] = defaultdict(Counter)
    for task in tasks:
        c = counts[(task.scene, task.level)]
        c["n"] += 1
        c["ambig"] += ambiguous_relations(task.spec, task.layout)
        phrasings = [(t.label, p) for t in train if t.scene == task.scene for p in t.paraphrases]
        label, _, distance = nearest(task.instruction, phrasings)
        if task.level in ("L2", "L3"):
            c["syn"] += distance == 0
            c["1w"] += distance == 1
        refs = references(task) if task.level in ("L1", "L3") else []
        if task.level in ("L1", "L3"):
            base = registry.training_layouts()[task.base_config]
            with contextlib.suppress(GroundingError):
                c["unmoved"] += unmoved(ground(task.spec, base), base, task.grounded, task.layout)
        c["fits"] += any(training_motion_fits(g, lay, task.grounded, task.layout) for g, lay, _ in refs)
        if args.no_sim:
            continue
        c["replay"] += any(
            replay_score(actions(g, lay), task.grounded, task.layout, task.scene, task.horizon).complete
            for g, lay, _ in refs
        )
        matched = next(t for t in train if t.label == label)
        replay = actions(matched.grounded, matched.layout)
        c["matcher"] += replay_score(replay, task.grounded, task.layout, task.scene, task.horizon).complete
    columns = ("n", "unmoved", "fits", "replay", "matcher", "syn", "1w", "ambig")
    print("scene level " + " ".join(f"{c:>8}" for c in columns))
    for (scene, level), c in sorted(counts.items()):
        print(f"S{scene:<4} {level:<5} " + " ".join(f"{c[k]:>8}" for k in columns))
    print(f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
