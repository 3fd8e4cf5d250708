"""The task registry: 75 training task labels and the 554 evaluation tasks (75 / 86 / 173 / 220 at
L0 / L1 / L2 / L3, split per scene as in RoboFollow).

- L0: every training task in its training layout, in its first training phrasing.
- L1: training phrasings in layouts that differ from training, only where the training motion no longer
  does the task (`behaviour.training_motion_fits`: the source, target, reference or branch changed).
- L2: held-out phrasings (new referring expressions, equivalent rewrites, recombinations) in the training
  layouts, each at least `phrasing.MIN_HELD_OUT_DISTANCE` words from every training phrasing of its scene
  once synonyms are normalised.
- L3: held-out phrasings (as L2) in L1 layouts, where neither the motion of the training task they
  rewrite nor (when the spec grounds in the training layout) the spec's own motion there does the task.

Candidates that do not ground, are infeasible, or repeat a phrasing are dropped; the rest are picked
round-robin over (layout, action) strata in a fixed pseudo-random order, so the registry is the same on
every machine. It is part of the protocol: it does not depend on any run seed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache

from heedful.errors import GenerationError, UnknownNameError
from heedful.registry import suggest
from heedful.seeding import stable_hash
from heedful.suites.tabletop import scene1, scene2, scene3, scene4
from heedful.suites.tabletop.behaviour import training_motion_fits
from heedful.suites.tabletop.family import Family
from heedful.suites.tabletop.grounding import GroundingError, ground
from heedful.suites.tabletop.language import normalize, paraphrases
from heedful.suites.tabletop.model import Grounded, Layout, Level, TabletopTask, TaskSpec, TrainingTask
from heedful.suites.tabletop.phrasing import MIN_HELD_OUT_DISTANCE, canonical_tokens, edit_distance

FAMILIES: tuple[Family, ...] = (scene1.FAMILY, scene2.FAMILY, scene3.FAMILY, scene4.FAMILY)
HELD_LEVELS: tuple[Level, ...] = ("L1", "L2", "L3")
REGISTRY_SALT = "robofollow-heedful-v1"
# Control steps per trial (20 Hz), about twice the scripted expert's longest use over perturbations.
HORIZONS = {
    "pickup": 180,
    "push": 200,
    "place_relative": 240,
    "stack": 240,
    "place_bowl": 240,
    "place_slot": 240,
    "route_place": 280,
    "sequence_pickups": 300,
}


def task_kind(spec: TaskSpec) -> str:
    """A short name of what a task asks: its action, prefixed with `if_` for conditionals."""
    return f"if_{spec.goal.action}" if spec.condition is not None else spec.goal.action


def horizon(spec: TaskSpec) -> int:
    """Control steps of every trial of a task: the longest of its branches' horizons."""
    return max(HORIZONS[action] for action in spec.actions)


@cache
def training_tasks() -> tuple[TrainingTask, ...]:
    """The 75 training task labels in their 6 configurations."""
    out = []
    for family in FAMILIES:
        for i, (config, spec) in enumerate(family.training):
            layout = family.configs[config]
            out.append(
                TrainingTask(
                    label=f"s{family.scene}_t{i:02d}_{task_kind(spec)}",
                    scene=family.scene,
                    config=config,
                    spec=spec,
                    paraphrases=paraphrases(spec, family.wording),
                    grounded=ground(spec, layout),
                    layout=layout,
                )
            )
    return tuple(out)


@dataclass(frozen=True)
class _Candidate:
    layout: Layout
    base_config: str
    spec: TaskSpec
    grounded: Grounded
    instruction: str
    label: str | None
    derived_from: str
    preferred: bool = False

    @property
    def stratum(self) -> tuple[str, str]:
        return (self.layout.layout_id, task_kind(self.spec))

    @property
    def order(self) -> int:
        return stable_hash(f"{REGISTRY_SALT}/{self.layout.layout_id}/{self.instruction}", 1 << 62)


_GROUNDED: dict[tuple[TaskSpec, str], Grounded | None] = {}


def _try_ground(spec: TaskSpec, layout: Layout) -> Grounded | None:
    """`ground(spec, layout)`, or None where it does not ground; remembered per (spec, layout id), since
    the candidates of a level repeat the same specs in the same few registry layouts."""
    key = (spec, layout.layout_id)
    if key not in _GROUNDED:
        try:
            _GROUNDED[key] = ground(spec, layout)
        except GroundingError:
            _GROUNDED[key] = None
    return _GROUNDED[key]


Motion = tuple[Grounded, Layout, str]


def _motions(spec: TaskSpec, base: TrainingTask) -> list[Motion]:
    """The training motions a variant of `base` must not be solvable by: its own spec grounded in the
    training layout (when it grounds there) and the training task it varies."""
    out: list[Motion] = []
    g = _try_ground(spec, base.layout)
    if g is not None:
        out.append((g, base.layout, f"{base.config} (this task's spec)"))
    if not any(m[0] == base.grounded for m in out):
        out.append((base.grounded, base.layout, base.label))
    return out


def reference_motions(task: TabletopTask) -> list[Motion]:
    """(grounded task, training layout, name) of every training motion that an L1 or L3 `task` must not
    be solvable by (see `behaviour.training_motion_fits`).

    Raises:
        GenerationError: the task names no training label it derives from (a dataset from before
            `derived_from` existed) or an unknown one.
    """
    label = task.derived_from or task.training_label
    base = next((t for t in training_tasks() if t.label == label), None)
    if base is None:
        raise GenerationError(f"task {task.task} derives from no known training label ({label!r}): regenerate it")
    return _motions(task.spec, base)


def _changed(spec: TaskSpec, g: Grounded, layout: Layout, base: TrainingTask) -> bool:
    """Whether no training motion of `base` (see `_motions`) does the task grounded as `g` in `layout`."""
    motions = _motions(spec, base)
    return not any(training_motion_fits(mg, ml, g, layout) for mg, ml, _ in motions)


class _Phrasings:
    """Canonical word lists of a scene's training phrasings and whether a text is far enough from all."""

    def __init__(self, train: list[TrainingTask]) -> None:
        self.tokens = [canonical_tokens(p) for t in train for p in t.paraphrases]
        self.bags = [Counter(words) for words in self.tokens]
        self.known: dict[str, bool] = {}

    def far_enough(self, text: str) -> bool:
        if text not in self.known:
            words = canonical_tokens(text)
            bag = Counter(words)
            self.known[text] = all(
                # Words the two do not share bound the edit distance from below: skip the full count.
                max(len(words), len(other)) - sum((bag & other_bag).values()) >= MIN_HELD_OUT_DISTANCE
                or edit_distance(words, other) >= MIN_HELD_OUT_DISTANCE
                for other, other_bag in zip(self.tokens, self.bags, strict=True)
            )
        return self.known[text]


def _select(candidates: list[_Candidate], n: int, where: str) -> list[_Candidate]:
    """Pick `n` distinct candidates, preferred first, round-robin over strata in a fixed order."""
    unique: dict[tuple[str, str], _Candidate] = {}
    for c in candidates:
        unique.setdefault((c.layout.layout_id, normalize(c.instruction)), c)
    if len(unique) < n:
        raise GenerationError(f"{where}: only {len(unique)} valid candidate tasks, {n} needed")
    chosen: list[_Candidate] = []
    for preferred in (True, False):
        strata: dict[tuple[str, str], list[_Candidate]] = defaultdict(list)
        for c in sorted(unique.values(), key=lambda c: c.order):
            if c.preferred == preferred:
                strata[c.stratum].append(c)
        queues = [strata[key] for key in sorted(strata)]
        while len(chosen) < n and any(queues):
            for queue in queues:
                if queue and len(chosen) < n:
                    chosen.append(queue.pop(0))
    return chosen


def _level_candidates(
    family: Family, level: Level, train: list[TrainingTask], seen: set[str], phrasings: _Phrasings
) -> list[_Candidate]:
    out: list[_Candidate] = []
    if level == "L1":
        for base, layout in family.l1_layouts:
            for t in (t for t in train if t.config == base):
                g = _try_ground(t.spec, layout)
                if g is not None and _changed(t.spec, g, layout, t):
                    # First the tasks whose referents or branch change, not only their positions: "the block
                    # in front of the red ball" now names another block; the condition takes the other branch.
                    other = g != t.grounded
                    out.append(_Candidate(layout, base, t.spec, g, t.paraphrases[0], t.label, t.label, other))
        return out
    places = [(t.config, t.layout) for t in train] if level == "L2" else family.l1_layouts
    for base, layout in dict.fromkeys(places):
        for t in (t for t in train if t.config == base):
            for spec, text in family.held_out(t.spec, layout):
                if normalize(text) in seen or not phrasings.far_enough(text):
                    continue
                g = _try_ground(spec, layout)
                if g is None:
                    continue
                if level == "L3" and not _changed(spec, g, layout, t):
                    continue
                out.append(_Candidate(layout, base, spec, g, text, None, t.label))
    return out


def _task(family: Family, level: Level, k: int, c: _Candidate) -> TabletopTask:
    return TabletopTask(
        task=f"s{family.scene}_{level}_{k:03d}_{task_kind(c.spec)}",
        scene=family.scene,
        level=level,
        config=c.layout.layout_id,
        base_config=c.base_config,
        action=c.grounded.action,
        instruction=c.instruction,
        spec=c.spec,
        grounded=c.grounded,
        layout=c.layout,
        horizon=horizon(c.spec),
        training_label=c.label,
        derived_from=c.derived_from,
    )


@cache
def evaluation_tasks() -> tuple[TabletopTask, ...]:
    """The 554 evaluation tasks, ordered by scene, level and name.

    Raises:
        GenerationError: a scene and level has fewer valid candidates than the protocol needs.
    """
    training = training_tasks()
    seen = {normalize(p) for t in training for p in t.paraphrases}
    out: list[TabletopTask] = []
    for family in FAMILIES:
        train = [t for t in training if t.scene == family.scene]
        l0 = [_Candidate(t.layout, t.config, t.spec, t.grounded, t.paraphrases[0], t.label, t.label) for t in train]
        out += [_task(family, "L0", k, c) for k, c in enumerate(l0)]
        phrasings = _Phrasings(train)
        for level, n in zip(HELD_LEVELS, family.counts[1:], strict=True):
            found = _level_candidates(family, level, train, seen, phrasings)
            picked = _select(found, n, f"scene {family.scene} {level}")
            out += [_task(family, level, k, c) for k, c in enumerate(picked)]
    return tuple(out)


@cache
def _tasks_by_id() -> dict[str, TabletopTask]:
    return {t.task: t for t in evaluation_tasks()}


def evaluation_task(task_id: str) -> TabletopTask:
    """The evaluation task `task_id` (e.g. 's1_L0_000_pickup').

    Raises:
        UnknownNameError: no such task; the message suggests the nearest id.
    """
    by_id = _tasks_by_id()
    if task_id not in by_id:
        raise UnknownNameError(
            f"unknown tabletop task {task_id!r}{suggest(task_id, by_id)}; ids look like 's1_L0_000_pickup' "
            "(scene, level, number, action): `heedful list tasks tabletop` lists all 554"
        )
    return by_id[task_id]


def training_task(label: str) -> TrainingTask:
    """The training task `label` (e.g. 's1_t00_pickup').

    Raises:
        UnknownNameError: no such label; the message suggests the nearest one.
    """
    by_label = {t.label: t for t in training_tasks()}
    if label not in by_label:
        raise UnknownNameError(
            f"unknown training task {label!r}{suggest(label, by_label)}; labels look like 's1_t00_pickup' "
            "(scene, number, action): `heedful list tasks tabletop --training` lists all 75"
        )
    return by_label[label]


def training_layouts() -> dict[str, Layout]:
    """The six training configurations by id."""
    return {t.config: t.layout for t in training_tasks()}


def training_entropy() -> dict[str, object]:
    """H(T | S) of the training set, its 75 labels grouped by their task-independent layout (3.782 bits)."""
    from heedful.metrics.entropy import entropy_report, scene_key

    pairs = [(t.label, _scene_content(t.layout)) for t in training_tasks()]
    names = {scene_key(_scene_content(t.layout)): t.config for t in training_tasks()}
    return entropy_report(pairs, names)


def _scene_content(layout: Layout) -> dict[str, object]:
    """Everything in the initial scene but its name: the objects and what lies in which bowl."""
    return layout.model_dump(mode="json", exclude={"layout_id"})
