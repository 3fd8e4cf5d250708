"""Task families: four instances on one anchor (base, preserve, change, change_preserve).

A proposal picks the constraint parameters of a base task and of its task-changing variant; the solver
then proves that each has exactly one gold decision and that the two golds differ, and no prohibition may
name an object the gold lifts. Only then is language produced: base and change share one template and one
set of synonym choices (a minimal pair), preserve and change_preserve share a different template with
fresh choices. `held_out` picks the wording (training, held-out, or both; see `wording`).
"""

from __future__ import annotations

from dataclasses import dataclass

from heedful.errors import GenerationError
from heedful.language.realize import Template, realize, words
from heedful.seeding import derive_rng
from heedful.suites.decisions.anchors import Anchor
from heedful.suites.decisions.model import Category, Decision, Task
from heedful.suites.decisions.phrases import Phrasebook
from heedful.suites.decisions.proposals import PROPOSERS, Params
from heedful.suites.decisions.slots import build_slots
from heedful.suites.decisions.solver import unique_solution
from heedful.suites.decisions.tasks import build_task, prohibition_contradicts_gold
from heedful.suites.decisions.templates import template_key, templates_for

MAX_FAMILY_TRIES = 60


@dataclass(frozen=True)
class Instance:
    """One realized instance before it becomes an episode."""

    role: str
    task: Task
    gold: Decision
    instruction: str
    masked_instruction: str
    template_id: str


@dataclass(frozen=True)
class Family:
    family_id: str
    category: Category
    subtype: str
    instances: tuple[Instance, ...]


def _dedupe_key(base: Task, change: Task) -> frozenset[str]:
    return frozenset({base.model_dump_json(), change.model_dump_json()})


def _realize_pair(
    anchor: Anchor, params: tuple[Params, Params], template: Template, seed: int, held_out: bool | None
) -> list[tuple[str, str]]:
    """Realize the two tasks with one template and identical synonym choices (same phrasebook seed)."""
    out = []
    for p in params:
        book = Phrasebook(anchor, seed, held_out)
        out.append(realize(template, build_slots(template.slots, p, book)))
    return out


def _verified(anchor: Anchor, category: str, subtype: str, params: Params) -> tuple[Task, Decision] | None:
    task = build_task(anchor.candidates, category, subtype, params)
    gold = unique_solution(anchor.candidates, task)
    if gold is None or prohibition_contradicts_gold(anchor.candidates, task, gold):
        return None
    return task, gold


def make_family(
    anchor: Anchor,
    family_id: str,
    category: Category,
    root_seed: int,
    used: set[frozenset[str]],
    template_turn: int,
    held_out: bool | None = False,
) -> Family:
    """Build one verified family, or raise GenerationError after MAX_FAMILY_TRIES proposals."""
    for attempt in range(MAX_FAMILY_TRIES):
        rng = derive_rng(root_seed, "family", family_id, attempt)
        proposal = PROPOSERS[category](anchor, rng)
        if proposal is None:
            continue
        subtype, base_p, change_p = proposal
        base, change = _verified(anchor, category, subtype, base_p), _verified(anchor, category, subtype, change_p)
        if base is None or change is None or base[1] == change[1]:
            continue
        (base_task, base_gold), (change_task, change_gold) = base, change
        key = _dedupe_key(base_task, change_task)
        if key in used:
            continue
        templates = templates_for(template_key(category, subtype), held_out)
        first = templates[template_turn % len(templates)]
        second = templates[(template_turn + 1 + int(rng.integers(len(templates) - 1))) % len(templates)]
        plain = _realize_pair(anchor, (base_p, change_p), first, int(rng.integers(2**31)), held_out)
        rewrite = _realize_pair(anchor, (base_p, change_p), second, int(rng.integers(2**31)), held_out)
        if not _distinct_surfaces(plain, rewrite):
            continue
        used.add(key)
        rows = [
            ("base", base_task, base_gold, plain[0], first),
            ("preserve", base_task, base_gold, rewrite[0], second),
            ("change", change_task, change_gold, plain[1], first),
            ("change_preserve", change_task, change_gold, rewrite[1], second),
        ]
        instances = tuple(
            Instance(role, task, gold, text, masked, template.id) for role, task, gold, (text, masked), template in rows
        )
        return Family(family_id=family_id, category=category, subtype=subtype, instances=instances)
    raise GenerationError(
        f"family {family_id}: no valid {category} task on anchor {anchor.anchor_id} in {MAX_FAMILY_TRIES} tries "
        "(the anchor may be too small for this category)"
    )


MIN_REWRITE_WORDS = 2


def _distinct_surfaces(plain: list[tuple[str, str]], rewrite: list[tuple[str, str]]) -> bool:
    """A rewrite must differ from its original by more than one word, and the pair's texts must differ."""
    for (a, _), (b, _) in zip(plain, rewrite, strict=True):
        wa, wb = words(a), words(b)
        if len(set(wa) ^ set(wb)) < MIN_REWRITE_WORDS or wa == wb:
            return False
    return plain[0][0] != plain[1][0]
