"""The `bow` control: deterministic, always well formed, honest about what it was fitted on; on the default
dataset, the properties of a healthy benchmark (today's numbers: `python -m heedful.agents.decisions_audit`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.agents.decisions_bow import BowAgent
from heedful.api import evaluate
from heedful.errors import ConfigError
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE


@pytest.fixture(scope="module")
def small(default_episodes):  # type: ignore[no-untyped-def]
    """200 training and 40 test episodes (whole families)."""
    train = [ep for ep in default_episodes if ep.split == "train"][:200]
    test = [ep for ep in default_episodes if ep.split == "test"][:40]
    return train, test


def answers(agent: BowAgent, episodes, mask: bool = False) -> list[str]:  # type: ignore[no-untyped-def]
    return [agent.decide(build_observation(ep, run_seed=0, mask=mask)).text for ep in episodes]


def test_bow_is_deterministic_and_always_well_formed(small) -> None:  # type: ignore[no-untyped-def]
    train, test = small
    first, second = BowAgent(), BowAgent()
    first.fit(train)
    second.fit(list(train))
    for mask in (False, True):
        texts = answers(first, test, mask)
        assert texts == answers(second, test, mask)
        for ep, text in zip(test, texts, strict=True):
            assert parse_answer(text, ep.decision_type, [c.id for c in ep.candidates]).ok, text
    assert set(first.models) == {(False, True), (True, True)}  # one model per instruction kind, fitted once


def test_masked_and_visual_questions_get_models_fitted_the_same_way(small) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    train, test = small
    agent = BowAgent()
    agent.fit(train)
    bare = dataclasses.replace(build_observation(test[0], run_seed=0, mask=True), state={})
    assert parse_answer(agent.decide(bare).text, test[0].decision_type, bare.candidate_ids).ok
    assert (True, False) in agent.models


def test_bow_refuses_an_empty_train_split_and_in_sample_evaluation(small) -> None:  # type: ignore[no-untyped-def]
    train, test = small
    with pytest.raises(ConfigError, match="no train split"):
        BowAgent().fit([])
    with pytest.raises(ConfigError, match="no train split"):
        BowAgent().check_training([], test)
    with pytest.raises(ConfigError, match="in_sample=true"):
        BowAgent().check_training(train, test + train[:4])
    BowAgent().check_training(train, test)
    BowAgent(in_sample=True).check_training(train, train)
    with pytest.raises(ConfigError, match="in_sample"):
        BowAgent(in_sample="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not fitted"):
        BowAgent().decide(build_observation(test[0], run_seed=0, mask=False))


def test_bow_can_fit_on_another_dataset(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    train, test = small
    SUITE.save_dataset(train, tmp_path / "train", {"seed": 0})
    SUITE.save_dataset(test, tmp_path / "test", {"seed": 0})
    agent = BowAgent(train_dataset=str(tmp_path / "train"))
    agent.check_training([], test)  # the run's own (empty) train split does not matter then
    agent.fit([])
    fitted = BowAgent()
    fitted.fit(train)
    assert answers(agent, test[:20]) == answers(fitted, test[:20])
    with pytest.raises(ConfigError, match="no train split"):
        BowAgent(train_dataset=str(tmp_path / "test")).fit(train)


def test_a_run_on_its_own_training_episodes_is_refused_before_it_starts(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    train, test = small
    SUITE.save_dataset(train + test, tmp_path / "data", {"seed": 0})
    out = tmp_path / "runs" / "all"
    with pytest.raises(ConfigError, match="--split test"):
        evaluate(suite="decisions", agent="bow", dataset=tmp_path / "data", out=out, progress=False)
    assert not out.exists()
    result = evaluate(
        suite="decisions", agent="bow", dataset=tmp_path / "data", split="test", limit=12, out=tmp_path / "t"
    )
    assert result.counts == {"ok": 12}


# --- the default dataset


@pytest.fixture(scope="module")
def bow_rows(default_episodes):  # type: ignore[no-untyped-def]
    """{(group, metric): value} for bow held out (test split), in-sample (as many train episodes), masked."""
    agent = BowAgent(in_sample=True)
    agent.fit(SUITE.training_episodes(default_episodes))
    test = [ep for ep in default_episodes if ep.split == "test"]
    in_sample = [ep for ep in default_episodes if ep.split == "train"][: len(test)]

    def rows(episodes, mask: bool):  # type: ignore[no-untyped-def]
        context = [RolloutContext(seed=0, index=i, options={"mask": mask}) for i in range(len(episodes))]
        records = [SUITE.rollout_episode(ep, agent, c) for ep, c in zip(episodes, context, strict=True)]
        assert all(r.status == "ok" for r in records)
        return {(r.group, r.metric): r.value for r in decision_metrics(records, resamples=1)}

    return {"held_out": rows(test, False), "in_sample": rows(in_sample, False), "masked": rows(test, True)}


@pytest.mark.slow
def test_bow_held_out_is_far_below_in_sample_and_masking_leaves_it_nothing(bow_rows) -> None:  # type: ignore[no-untyped-def]
    held_out, fitted, masked = bow_rows["held_out"], bow_rows["in_sample"], bow_rows["masked"]
    assert held_out[("all", "family_success")] < 0.5 * fitted[("all", "family_success")], (held_out, fitted)
    # nothing outside the task-critical words decides: masked, it cannot follow a change
    assert masked[("all", "decision_sensitivity")] <= 0.05
    assert masked[("all", "family_success")] <= 0.05


@pytest.mark.slow
def test_bow_held_out_reaches_half_family_success_in_no_category(bow_rows) -> None:  # type: ignore[no-untyped-def]
    solved = {
        group: value
        for (group, metric), value in bow_rows["held_out"].items()
        if metric == "family_success" and group.startswith("category:")
    }
    assert all(v is not None and v <= 0.5 for v in solved.values()), solved


@pytest.mark.slow
def test_bow_answers_the_same_in_a_process_pool(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from heedful.runner import load_run

    train, test = small
    SUITE.save_dataset(train + test, tmp_path / "data", {"seed": 0})
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        evaluate(
            suite="decisions",
            agent="bow",
            dataset=tmp_path / "data",
            split="test",
            out=out,
            workers=workers,
            progress=False,
        )
        runs[workers] = sorted((r.episode_id, r.raw_output) for r in load_run(out)[1])
    assert runs[1] == runs[2]
