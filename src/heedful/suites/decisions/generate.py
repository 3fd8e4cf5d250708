"""Generate the decisions benchmark: anchors, families, splits and the visual subset.

Defaults follow the paper: 85 anchors (21 object-centric + 64 action-sequence), 988 atomic families
(3,952 instances) plus 21 multi-constraint families (84 instances), 187 visual families covering every
anchor, and splits made at the anchor so that no physical state appears in two partitions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from heedful.errors import ConfigError, GenerationError
from heedful.seeding import derive_rng
from heedful.suites.decisions.anchors import Anchor, action_anchor, object_anchor
from heedful.suites.decisions.families import Family, make_family
from heedful.suites.decisions.model import ATOMIC_CATEGORIES, Category, DecisionEpisode, Split
from heedful.suites.decisions.proposals import groups

MAX_ANCHOR_TRIES = 40

Turns = dict[tuple[str, bool | None], int]  # (category, wording) -> families made: templates take turns


class GenerationConfig(BaseModel):
    """Counts and split fractions. Every field has the paper's default."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # upper bounds about 50 times the defaults: a typo (atomic_families=99999999999999999999) must not fill memory
    object_anchors: int = Field(21, ge=0, le=1_000)
    action_anchors: int = Field(64, ge=0, le=5_000)
    atomic_families: int = Field(988, ge=0, le=50_000)
    multi_families: int = Field(21, ge=0, le=5_000)
    visual_families: int = Field(187, ge=0, le=50_000)
    val_fraction: float = Field(0.2, ge=0, le=1)
    test_fraction: float = Field(0.2, ge=0, le=1)
    held_out_wording: bool = Field(
        True,
        description="word the test split with templates and phrases train and val never use; "
        "false draws every split from all of them",
    )

    @model_validator(mode="after")
    def _consistent(self) -> GenerationConfig:
        anchors = self.object_anchors + self.action_anchors
        if anchors == 0:
            raise ValueError("at least one anchor is needed")
        if self.visual_families > self.atomic_families:
            raise ValueError("visual_families cannot exceed atomic_families")
        if self.val_fraction + self.test_fraction > 1:
            raise ValueError("val_fraction + test_fraction must be at most 1")
        return self


def parse_config(values: dict[str, Any] | None) -> GenerationConfig:
    """Build a config, turning pydantic's errors into one ConfigError line per problem."""
    from pydantic import ValidationError

    from heedful.registry import suggest

    try:
        return GenerationConfig(**(values or {}))
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            name = ".".join(map(str, err["loc"])) or "config"
            hint = suggest(name, GenerationConfig.model_fields) if err["type"] == "extra_forbidden" else ""
            problems.append(f"{name}: {err['msg']}{hint}")
        raise ConfigError("invalid decisions generation config: " + "; ".join(problems)) from None


def _anchor_ids(config: GenerationConfig) -> list[tuple[str, str]]:
    return [(f"obj-{i + 1:02d}", "object") for i in range(config.object_anchors)] + [
        (f"act-{i + 1:02d}", "action") for i in range(config.action_anchors)
    ]


def _allocate(config: GenerationConfig, anchor_ids: list[str]) -> dict[str, list[Category]]:
    """Categories per anchor. Slot j goes to anchor j mod A with category j mod 4, which balances both."""
    plan: dict[str, list[Category]] = {a: [] for a in anchor_ids}
    for j in range(config.atomic_families):
        plan[anchor_ids[j % len(anchor_ids)]].append(ATOMIC_CATEGORIES[j % len(ATOMIC_CATEGORIES)])
    return plan


def _splits(config: GenerationConfig, ids: list[tuple[str, str]], seed: int) -> dict[str, Split]:
    out: dict[str, Split] = {}
    for kind in ("object", "action"):
        members = [a for a, k in ids if k == kind]
        order = [members[i] for i in derive_rng(seed, "splits", kind).permutation(len(members))]
        n_val, n_test = round(len(members) * config.val_fraction), round(len(members) * config.test_fraction)
        for i, anchor_id in enumerate(order):
            out[anchor_id] = "val" if i < n_val else "test" if i < n_val + n_test else "train"
    return out


def held_out_for(config: GenerationConfig, split: Split) -> bool | None:
    """Which wording a split draws from: held-out (test), training (train, val), or all (hold-out off)."""
    return split == "test" if config.held_out_wording else None


def _build_anchor(
    anchor_id: str, kind: str, categories: list[Category], seed: int, turns: Turns, held_out: bool | None
) -> tuple[Anchor, list[Family]]:
    """Draw anchor states until one hosts all its families (bounded)."""
    maker = object_anchor if kind == "object" else action_anchor
    for attempt in range(MAX_ANCHOR_TRIES):
        anchor = maker(anchor_id, derive_rng(seed, "anchor", anchor_id, attempt))
        used: set[frozenset[str]] = set()
        trial_turns = dict(turns)
        try:
            families = []
            for j, category in enumerate(categories):
                family_id = f"{anchor_id}-f{j + 1:02d}"
                turn = trial_turns.get((category, held_out), 0)
                families.append(make_family(anchor, family_id, category, seed, used, turn, held_out))
                trial_turns[(category, held_out)] = turn + 1
        except GenerationError:
            continue
        turns.update(trial_turns)
        return anchor, families
    raise GenerationError(
        f"anchor {anchor_id}: no state hosts {len(categories)} distinct families in {MAX_ANCHOR_TRIES} tries; "
        "lower atomic_families or raise the anchor count"
    )


def _multi_families(
    anchors: dict[str, Anchor], count: int, seed: int, held_out: dict[str, bool | None]
) -> list[tuple[str, Family]]:
    """One multi-constraint family on each of `count` anchors, object anchors first, in a seeded order."""
    eligible = sorted(a for a, anchor in anchors.items() if any(len(m) >= 4 for _, m in groups(anchor)))
    order = [eligible[i] for i in derive_rng(seed, "multi-hosts").permutation(len(eligible))]
    families: list[tuple[str, Family]] = []
    turns: Turns = {}
    for anchor_id in sorted(order, key=lambda a: not a.startswith("obj")):
        if len(families) == count:
            break
        try:
            wording = held_out[anchor_id]
            turn = turns.get(("multi", wording), 0)
            family = make_family(anchors[anchor_id], f"{anchor_id}-m01", "multi", seed, set(), turn, wording)
            turns[("multi", wording)] = turn + 1
            families.append((anchor_id, family))
        except GenerationError:
            continue  # this anchor's groups admit no biting prohibition; try the next one
    if len(families) < count:
        raise GenerationError(f"only {len(families)} anchors can host a multi-constraint family; {count} requested")
    return families


def _visual(families: list[tuple[str, Family]], count: int, seed: int) -> set[str]:
    """Spread `count` visual families over anchors, as evenly as possible, covering every anchor."""
    per_anchor: dict[str, list[str]] = {}
    for anchor_id, fam in families:
        per_anchor.setdefault(anchor_id, []).append(fam.family_id)
    anchors = sorted(per_anchor)
    base, extra = divmod(count, len(anchors))
    lucky = {anchors[i] for i in derive_rng(seed, "visual").permutation(len(anchors))[:extra]}
    chosen: set[str] = set()
    for a in anchors:
        chosen.update(per_anchor[a][: base + (a in lucky)])
    return chosen


def generate(
    seed: int, config: GenerationConfig, progress: Callable[[int, int], Any] | None = None
) -> list[DecisionEpisode]:
    """Generate the benchmark. `progress(1, total_anchors)` is called as each anchor is finished."""
    ids = _anchor_ids(config)
    if config.atomic_families and config.atomic_families < len(ids):
        raise ConfigError(f"atomic_families={config.atomic_families} is below the anchor count {len(ids)}")
    plan = _allocate(config, [a for a, _ in ids])
    splits = _splits(config, ids, seed)
    held_out = {anchor_id: held_out_for(config, split) for anchor_id, split in splits.items()}
    turns: Turns = {}
    anchors: dict[str, Anchor] = {}
    atomic: list[tuple[str, Family]] = []
    for anchor_id, kind in ids:
        anchor, fams = _build_anchor(anchor_id, kind, plan[anchor_id], seed, turns, held_out[anchor_id])
        anchors[anchor_id] = anchor
        atomic.extend((anchor_id, f) for f in fams)
        if progress:
            progress(1, len(ids))
    multi = _multi_families(anchors, config.multi_families, seed, held_out)
    visual = _visual(atomic, config.visual_families, seed) if config.visual_families else set()
    every = atomic + multi
    order = derive_rng(seed, "family-order").permutation(len(every))
    episodes: list[DecisionEpisode] = []
    for i in order:
        anchor_id, fam = every[i]
        episodes.extend(_episodes(anchors[anchor_id], fam, splits[anchor_id], fam.family_id in visual))
    return episodes


def _episodes(anchor: Anchor, family: Family, split: Split, visual: bool) -> Iterator[DecisionEpisode]:
    for inst in family.instances:
        yield DecisionEpisode(
            episode_id=f"{family.family_id}-{inst.role}",
            family_id=family.family_id,
            anchor_id=anchor.anchor_id,
            anchor_kind=anchor.kind,
            role=inst.role,  # type: ignore[arg-type]
            category=family.category,
            subtype=family.subtype,
            decision_type=inst.task.decision_type,
            split=split,
            visual=visual,
            state=anchor.state,
            candidates=anchor.candidates,
            instruction=inst.instruction,
            masked_instruction=inst.masked_instruction,
            gold=inst.gold,
            task=inst.task,
            template_id=inst.template_id,
        )
