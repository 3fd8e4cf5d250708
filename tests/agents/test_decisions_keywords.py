"""The keyword readers of the audit (count-rank, keyword-train, keyword-full) on hand-built questions."""

from __future__ import annotations

import json

from decision_questions import object_question

from heedful.agents.decisions_keywords import (
    FULL_CUES,
    HELD_OUT_CUES,
    TRAIN_CUES,
    CountRankAgent,
    FullKeywordAgent,
    TrainKeywordAgent,
)
from heedful.agents.registry import make_agent
from heedful.suites.decisions.observation import DecisionObservation


def answer(agent: object, question: DecisionObservation) -> tuple[object, bool]:
    reply = agent.decide(question)  # type: ignore[attr-defined]
    return json.loads(reply.text)["decision"], bool(reply.info.get("fallback"))


def test_count_rank_reads_the_count_word_the_last_rank_word_and_the_group() -> None:
    q = object_question("Pick up exactly two of the purple objects: the ones farthest to the left.", "set")
    assert answer(CountRankAgent(), q) == (["o3", "o5"], False)  # purple: o5 (x -0.137), o3 (-0.095), o2 (0.197)
    q = object_question("Of the purple objects, pick up the one nearest the robot.", "set")
    assert answer(CountRankAgent(), q) == (["o3"], False)


def test_keyword_readers_know_only_their_cue_lists() -> None:
    q = object_question("Of the purple objects, pick up the two that are farthest to the right.", "set")
    assert answer(TrainKeywordAgent(), q) == (["o2", "o3"], False)
    unseen = object_question("Of the purple objects, pick up the two nearest the right edge of the table.", "set")
    if "nearest the right edge of the table" in HELD_OUT_CUES.ranks:
        assert answer(FullKeywordAgent(), unseen) == (["o2", "o3"], False)
    assert answer(TrainKeywordAgent(), unseen)[1]  # no rank cue it knows: a fallback, flagged


def test_keyword_readers_rank_by_size() -> None:
    # purple: o2 small block (128 cm^3), o5 small bar (115), o3 small cube (64)
    q = object_question("Of the purple objects, pick up the one that is tiniest.", "set")
    assert answer(TrainKeywordAgent(), q) == (["o3"], False)
    held_out = object_question("From the purple things, fetch the two biggest.", "set")
    assert answer(FullKeywordAgent(), held_out) == (["o2", "o5"], False)
    assert answer(TrainKeywordAgent(), held_out)[1]  # "biggest" is held-out wording: no rank cue it knows


def test_keyword_reader_reads_polarity_negation_and_temporal_relations() -> None:
    agent = TrainKeywordAgent()
    assert answer(agent, object_question("Pick up everything except the purple objects.", "set"))[0] == ["o1", "o4"]
    assert answer(agent, object_question("Pick up nothing except the purple objects.", "set"))[0] == ["o2", "o3", "o5"]
    q = object_question("Of the green objects, do not pick up the green block; pick up the other one.")
    assert answer(agent, q)[0] == "o4"
    q = object_question("Pick up the green block after picking up the purple bar.", "sequence")
    assert answer(agent, q)[0] == ["o5", "o1"]
    q = object_question("Before picking up the purple bar, pick up the green block.", "sequence")
    assert answer(agent, q)[0] == ["o1", "o5"]


def test_the_full_cue_list_holds_the_training_one_and_the_agents_are_registered() -> None:
    assert set(TRAIN_CUES.ranks) <= set(FULL_CUES.ranks) and set(TRAIN_CUES.before) <= set(FULL_CUES.before)
    for name in ("count-rank", "keyword-train", "keyword-full"):
        assert make_agent(name, {}, suite="decisions").name == name


def test_the_training_cue_list_is_training_wording(default_episodes) -> None:  # type: ignore[no-untyped-def]
    # keyword-train is "limited to the train / val wording": each of its cue phrases occurs there, and its
    # rank and order cues never occur in the held-out test wording
    from heedful.agents.decisions_keywords import spans
    from heedful.agents.decisions_reading import raw_tokens

    seen = [raw_tokens(ep.instruction) for ep in default_episodes if ep.split != "test"]
    test = [raw_tokens(ep.instruction) for ep in default_episodes if ep.split == "test"]
    cues = TRAIN_CUES
    phrases = [*cues.ranks, *cues.orders, *cues.landmarks, *cues.negations, *cues.retain, *cues.exclude]
    for phrase in [*phrases, *cues.before, *cues.after, *cues.complement]:
        assert any(spans(tokens, phrase) for tokens in seen), phrase
    for phrase in [*cues.ranks, *cues.orders, *cues.landmarks]:
        assert not any(spans(tokens, phrase) for tokens in test), phrase
