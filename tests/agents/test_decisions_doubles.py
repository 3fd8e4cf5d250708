"""The harness's red team: a privileged reader and a family-memory wrapper earn nothing through the harness now,
and the flag that catches each (benchmarks/decisions_harness_doubles.py measures them on the whole test split)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from heedful.agents.decisions_doubles import DeclaredPrivilegedReader, FamilyMemory, IdInverter, PrivilegedReader
from heedful.api import evaluate, report_text
from heedful.conformance import ConformanceError, check_agent
from heedful.report.flags import PRIVILEGED_FLAG
from heedful.runner import load_run
from heedful.runner.episode import episode_context
from heedful.runner.manifest import RunSpec
from heedful.seeding import derive_seed, episode_token
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from decisions_harness_doubles import old_harness

DOUBLES = "heedful.agents.decisions_doubles"


def _first(episode) -> str | list[str]:  # type: ignore[no-untyped-def]
    first = episode.candidates[0].id
    return first if episode.decision_type == "single" else [first]


def test_an_undeclared_privileged_reader_gets_no_constraint_set(default_episodes) -> None:  # type: ignore[no-untyped-def]
    episodes = [ep for ep in default_episodes if ep.split == "test"][:40]
    records = [
        SUITE.rollout_episode(ep, PrivilegedReader(), RolloutContext(seed=i, index=i)) for i, ep in enumerate(episodes)
    ]
    assert [r.prediction for r in records] == [_first(ep) for ep in episodes]  # never the solver's answer
    assert sum(bool(r.correct) for r in records) < len(records) / 2
    declared = [
        SUITE.rollout_episode(ep, DeclaredPrivilegedReader(), RolloutContext(seed=0, index=0)) for ep in episodes
    ]
    assert all(r.correct for r in declared)


def test_a_declared_privileged_reader_is_flagged_in_the_report(tmp_path: Path) -> None:
    evaluate(
        suite="decisions", agent=f"{DOUBLES}:DeclaredPrivilegedReader", out=tmp_path / "r", limit=8, progress=False
    )
    assert load_run(tmp_path / "r")[0].privileged is True
    assert f"[{PRIVILEGED_FLAG}]" in report_text(tmp_path / "r", resamples=50).splitlines()[0]


def _family_success(records) -> float:  # type: ignore[no-untyped-def]
    rows = decision_metrics(records, resamples=20, seed=0)
    return next(r.value for r in rows if r.metric == "family_success" and r.group == "all")


@pytest.fixture(scope="module")
def test_families(default_episodes):  # type: ignore[no-untyped-def]
    return [ep for ep in default_episodes if ep.split == "test"][:240]  # 60 whole families, in dataset order


def test_family_memory_gamed_the_old_harness_and_cannot_see_families_now(test_families) -> None:  # type: ignore[no-untyped-def]
    plain = _family_success(old_harness(FamilyMemory(inner="lexical").inner, test_families))
    gamed = _family_success(old_harness(FamilyMemory(inner="lexical"), test_families))
    assert gamed > plain  # the exploit the issue showed: memory within a family lifts family success
    # now the observation names no family or role: the wrapper can only guess from adjacency
    for i, ep in enumerate(test_families):
        token = build_observation(ep, run_seed=i, mask=False).episode_id
        assert ep.family_id not in token and ep.role not in token and token.startswith("ep-")


def test_the_stateless_audit_flags_family_memory_and_passes_its_reader(tmp_path: Path) -> None:
    args = {"inner": "lexical"}
    for name, agent in (("memory", f"{DOUBLES}:FamilyMemory"), ("plain", "lexical")):
        evaluate(
            suite="decisions",
            agent=agent,
            agent_args=args if name == "memory" else {},
            out=tmp_path / name,
            split="test",
            limit=80,
            progress=False,
            audit_stateless=40,
        )
    audit = load_run(tmp_path / "memory")[0].stateless_audit
    assert audit is not None and audit.replayed == 40 and audit.differing > 0 and audit.examples
    assert "stateful: " in report_text(tmp_path / "memory", resamples=50).splitlines()[0]
    clean = load_run(tmp_path / "plain")[0].stateless_audit
    assert clean is not None and clean.replayed == 40 and clean.differing == 0 and clean.flag is None
    assert "stateful" not in report_text(tmp_path / "plain", resamples=50)


def test_check_agent_catches_family_memory() -> None:
    with pytest.raises(ConformanceError, match="keeps no state between episodes"):
        check_agent("decisions", f"{DOUBLES}:FamilyMemory", {"inner": "lexical"}, episodes=8)


def test_an_id_inverter_finds_no_episode_from_the_seed_and_token_an_agent_sees(default_episodes) -> None:  # type: ignore[no-untyped-def]
    episodes = [ep for ep in default_episodes if ep.split == "test"][:40]
    inverter = IdInverter(inner="lexical")
    # it can fail: the seeds and tokens derived from (run seed, id), which the harness showed before, are all found
    assert all(episode_token(derive_seed(0, ep.episode_id)) in inverter.table for ep in episodes)
    assert all(derive_seed(3, ep.episode_id) in inverter.table for ep in episodes)
    spec = RunSpec(suite="decisions", suite_version="v", dataset_hash="h", dataset_source="s", agent="a", seed=3)
    for i, ep in enumerate(episodes):  # the runner's own contexts
        SUITE.rollout_episode(ep, inverter, episode_context(spec, ep, i))
    assert inverter.found == 0
    # what an agent sees instead: the same for the same run seed and words, never the id-derived one
    shown = build_observation(episodes[0], run_seed=3, mask=False)
    assert shown == build_observation(episodes[0], run_seed=3, mask=False)
    assert shown.seed != build_observation(episodes[0], run_seed=4, mask=False).seed
    assert shown.seed != build_observation(episodes[0], run_seed=3, mask=True).seed
    assert len({build_observation(ep, run_seed=3, mask=False).episode_id for ep in episodes}) == len(episodes)
