"""One reply type for every agent kind; an answer of another type is an interface error, never a guess."""

from __future__ import annotations

import pytest

from heedful.errors import AgentInterfaceError
from heedful.replies import AgentReply, as_reply


def test_a_str_is_the_text_of_a_reply_without_model_queries() -> None:
    reply = as_reply("Navigate(room 2)")
    assert reply == AgentReply("Navigate(room 2)") and reply.queries is None


def test_a_reply_passes_through_unchanged() -> None:
    reply = AgentReply("", usage={"requests": 1}, queries=({"answer": "x"},), end="model_call_limit")
    assert as_reply(reply) is reply


@pytest.mark.parametrize("answer", [None, {"text": "Done()"}, 3, b"Done()"])
def test_anything_else_is_an_interface_error_naming_its_type(answer: object) -> None:
    with pytest.raises(AgentInterfaceError, match=f"got {type(answer).__name__}"):
        as_reply(answer)


def test_a_decisions_agent_answering_a_dict_is_recorded_as_an_interface_error() -> None:
    from heedful.records import Status
    from heedful.runner.episode import rollout_one
    from heedful.runner.manifest import RunSpec
    from heedful.suites.registry import get_suite

    class DictAgent:
        name = "dict"

        def decide(self, observation: object) -> object:
            return {"text": "A"}

    suite = get_suite("decisions")
    small = {"object_anchors": 4, "action_anchors": 4, "atomic_families": 8, "multi_families": 1, "visual_families": 0}
    episode = suite.generate(0, small)[0]
    spec = RunSpec(
        suite="decisions", suite_version=suite.version, dataset_hash="x", dataset_source="test", agent="dict", seed=0
    )
    record = rollout_one(suite, DictAgent(), episode, 0, spec)
    assert record.status is Status.INTERFACE_ERROR and "AgentReply" in str(record.error)
