"""Scorer and independent verifier agree on fuzzed behaviours (issue 38): a fast subset of
`benchmarks/tabletop_fuzz.py`, one trial per scene plus every disagreement the fuzzer ever found
(kept as regression cases: (task, trial, seed))."""

from __future__ import annotations

import pytest

from heedful.suites.tabletop.fuzz import describe, fuzz_trial
from heedful.suites.tabletop.registry import evaluation_tasks

TASKS = {t.task: t for t in evaluation_tasks()}
SAMPLE = [
    ("s1_L1_004_place_relative", 0, 3),
    ("s2_L2_003_stack", 1, 4),
    ("s3_L3_002_route_place", 2, 5),
    ("s4_L1_000_if_stack", 3, 6),
]
REGRESSIONS: list[tuple[str, int, int]] = []  # (task, trial, seed) of fixed disagreements, with the fix named


@pytest.mark.slow
@pytest.mark.parametrize(("task", "trial", "seed"), SAMPLE + REGRESSIONS)
def test_scorer_and_verifier_agree_on_a_fuzzed_trial(task: str, trial: int, seed: int) -> None:
    result = fuzz_trial(TASKS[task], trial, seed)
    assert result.error is None, result.error
    assert not result.diffs, describe(result)
