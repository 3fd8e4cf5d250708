"""Tabletop records store a typed trial payload: skill calls, gated stages and where the first stage was lost."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from heedful.agents.tabletop import OracleAgent
from heedful.agents.tabletop_controls import NoopAgent
from heedful.records import Record, Status
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.payload import FailedOn, TrialPayload
from heedful.suites.tabletop.suite import SUITE


@pytest.fixture(scope="module")
def records() -> dict[str, Record]:
    trial = SUITE.episodes_for_run(SUITE.generate(0)[:1], {"trials": 1})[0]
    return {
        name: SUITE.rollout_episode(trial, agent, RolloutContext(seed=0, index=0))
        for name, agent in (("oracle", OracleAgent()), ("noop", NoopAgent()))
    }


def test_a_solved_trial_reads_back_with_its_calls_and_no_lost_stage(records: dict[str, Record]) -> None:
    record = records["oracle"]
    payload = TrialPayload.read(record.prediction)
    assert payload is not None and payload.as_prediction() == record.prediction
    assert payload.calls and all(call.ok for call in payload.calls) and payload.failed_on is None
    assert all(stage.intent and stage.execution for stage in payload.stages)


def test_a_policy_that_never_moves_loses_the_first_stage_on_intent(records: dict[str, Record]) -> None:
    payload = TrialPayload.read(records["noop"].prediction)
    assert payload is not None and payload.failed_on is FailedOn.INTENT and payload.failed_stage is not None
    assert payload.calls == []  # a controller makes no skill call


def test_an_edited_payload_fails_naming_the_field(records: dict[str, Record]) -> None:
    edited = dict(records["oracle"].prediction)
    edited["stages"] = [{**edited["stages"][0], "intent": "yes"}]
    with pytest.raises(ValidationError, match=r"stages\.0\.intent"):
        TrialPayload.read(edited)
    with pytest.raises(ValidationError, match="failed_on"):
        TrialPayload.read({**records["oracle"].prediction, "failed_on": "motor"})


def test_an_unscored_trial_has_no_payload() -> None:
    trial = SUITE.episodes_for_run(SUITE.generate(0)[:1], {"trials": 1})[0]
    failed = SUITE.failure_record(trial, RolloutContext(seed=0, index=0), Status.TIMEOUT, "no answer")
    assert TrialPayload.read(failed.prediction) is None
