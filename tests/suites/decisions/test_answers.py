"""Strict answer parsing: well-formed answers parse, everything else is a typed failure, nothing raises."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.suites.decisions.answers import MAX_ANSWER_CHARS, parse_answer

IDS = ("o1", "o2", "o3")


def test_well_formed_answers_parse_and_sets_are_normalized() -> None:
    assert parse_answer('{"decision": "o2"}', "single", IDS).decision == "o2"
    assert parse_answer('{"decision": ["o3", "o1"]}', "set", IDS).decision == ["o1", "o3"]
    assert parse_answer('{"decision": ["o3", "o1"]}', "sequence", IDS).decision == ["o3", "o1"]
    assert parse_answer('```json\n{"decision": "o1"}\n```', "single", IDS).decision == "o1"
    assert parse_answer('  {"decision": "o1", "why": "red"}  ', "single", IDS).decision == "o1"


def test_malformed_answers_fail_with_a_reason() -> None:
    cases = [
        ("o1", "single", "not valid JSON"),
        ('{"decision": "o9"}', "single", "unknown candidate id"),
        ('{"decision": ["o1"]}', "single", "one id string"),
        ('{"decision": []}', "set", "non-empty list"),
        ('{"decision": ["o1", "o1"]}', "set", "more than once"),
        ('{"decision": "o1"}', "sequence", "non-empty list"),
        ('{"choice": "o1"}', "single", '"decision" field'),
        ('{"decision": "o1"', "single", "not valid JSON"),
        ('Sure! The answer is {"decision": "o1"}', "single", "not valid JSON"),
        ("x" * (MAX_ANSWER_CHARS + 1), "single", "too long"),
    ]
    for text, kind, reason in cases:
        parsed = parse_answer(text, kind, IDS)
        assert not parsed.ok and parsed.decision is None
        assert reason in (parsed.reason or ""), (text[:40], parsed.reason)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.text(max_size=300), st.binary(max_size=100).map(lambda b: b.decode("latin-1"))),
    st.sampled_from(["single", "set", "sequence"]),
)
def test_arbitrary_text_never_raises(text: str, kind: str) -> None:
    parsed = parse_answer(text, kind, IDS)
    assert parsed.ok == (parsed.decision is not None) and (parsed.ok or parsed.reason)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5) | st.sampled_from(IDS),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["single", "set", "sequence"]))
def test_arbitrary_json_decisions_are_accepted_only_when_exactly_well_formed(value: object, kind: str) -> None:
    parsed = parse_answer(json.dumps({"decision": value}), kind, IDS)
    if kind == "single":
        assert parsed.ok == (value in IDS)
    else:
        well_formed = (
            isinstance(value, list)
            and bool(value)
            and all(v in IDS for v in value)
            and len(set(map(str, value))) == len(value)
        )
        assert parsed.ok == well_formed


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_truncated_json_is_a_parse_failure(suffix: str) -> None:
    full = json.dumps({"decision": ["o1", "o2"]})
    for cut in range(1, len(full) - 1):
        assert not parse_answer(full[:cut], "set", IDS).ok


def test_deeply_nested_json_does_not_raise() -> None:
    assert not parse_answer("[" * 100_00 + "]" * 100_00, "set", IDS).ok
    assert not parse_answer('{"decision": ' + "[" * 5000 + "]" * 5000 + "}", "set", IDS).ok
