"""The fuzzer has power (issue 38): on its boundary probes of a few expert trials and two drops, scorer and
verifier agree, and a scorer or verifier with any one threshold of the specification moved (support gap,
table height, bowl depth, at-rest speed and steps, reference moved, unexplained motion and its touch
window, grace rows, drop radius, disturbance distance, height and tilt, the down-at height, the put-down gap,
the pickup lift (scene 2's too); each loosened and tightened)
disagrees with the other on some probe."""

from __future__ import annotations

from functools import cache

import pytest

from heedful.sims.tabletop.recorder import Trajectory
from heedful.suites.tabletop.fuzz import judge, probes_of, scorer_view
from heedful.suites.tabletop.fuzz_mutants import MUTANTS, Mutant, drop_trajectory, expert_trajectory, mutated
from heedful.suites.tabletop.model import Layout, TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.scoring import score_trajectory
from heedful.suites.tabletop.verifier import verify

TASKS = {t.task: t for t in evaluation_tasks()}
EXPERT_BASES = (
    "s2_L0_004_stack",
    "s2_L0_012_place_bowl",
    "s2_L0_008_push",
    "s1_L0_004_place_relative",
    "s1_L0_000_pickup",
    "s2_L0_000_pickup",
)
DROP_BASE = "s2_L0_004_stack"

Case = tuple[str, TabletopTask, Trajectory, Layout]


@cache
def probes() -> list[Case]:
    out: list[Case] = []
    for name in EXPERT_BASES:
        task = TASKS[name]
        traj, layout = expert_trajectory(task, 0)
        out += [(rule, task, p, layout) for rule, p in probes_of(traj, task, layout, 0, 0)]
    for side in ("inside", "outside"):
        traj, layout = drop_trajectory(TASKS[DROP_BASE], 0, side)
        out.append((f"drop radius {side}", TASKS[DROP_BASE], traj, layout))
    return out


@cache
def verdicts() -> list[tuple[dict[str, object], dict[str, object]]]:
    """(scorer, verifier) of every probe, unmutated."""
    return [
        (scorer_view(s), v.comparable()) for s, v in (judge(traj, task, layout) for _, task, traj, layout in probes())
    ]


@pytest.mark.slow
def test_scorer_and_verifier_agree_on_every_boundary_probe() -> None:
    cases = probes()
    rules = {rule.rsplit(" ", 2)[0] if not rule.startswith("drop") else "drop radius" for rule, *_ in cases}
    assert {r for m in MUTANTS for r in m.rules} <= rules  # every threshold has its probes
    bad = {c[0]: (s, v) for c, (s, v) in zip(cases, verdicts(), strict=True) if s != v}
    assert not bad


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.label for m in MUTANTS])
def test_a_moved_threshold_is_caught_by_the_probes(mutant: Mutant) -> None:
    mine = [(c, v) for c, v in zip(probes(), verdicts(), strict=True) if c[0].startswith(mutant.rules)]
    assert mine, f"no probe for {mutant.rules}"
    caught = []
    for (rule, task, traj, layout), (scorer, verifier) in mine:
        with mutated(mutant):
            if mutant.module == "verifier":
                moved, other = verify(traj, task.grounded, layout, task.scene).comparable(), scorer
            else:
                moved, other = scorer_view(score_trajectory(traj, task.grounded, layout, task.scene)), verifier
        if moved != other:
            caught.append(rule)
    assert caught, f"{mutant.label}: no probe of {mutant.rules} exposes it"
