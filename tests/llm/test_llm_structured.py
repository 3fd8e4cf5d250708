"""The decision schema admits exactly the well-formed answers of an episode (checked with jsonschema)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.errors import ConfigError
from heedful.llm.structured import decision_schema
from heedful.suites.decisions.answers import parse_answer

IDS = ["a1", "a2", "a3", "a4"]


def valid(schema: dict[str, Any], answer: object) -> bool:
    return bool(jsonschema.Draft202012Validator(schema).is_valid(answer))


def test_the_gold_answer_of_every_default_episode_fits_its_schema(default_episodes: list[Any]) -> None:
    for episode in default_episodes[::7]:
        schema = decision_schema(episode.decision_type, [c.id for c in episode.candidates])
        jsonschema.Draft202012Validator.check_schema(schema)
        assert valid(schema, {"decision": episode.gold}), episode.episode_id


def test_schemas_reject_other_ids_duplicates_empty_and_extra_fields() -> None:
    single, subset, sequence = (decision_schema(t, IDS) for t in ("single", "set", "sequence"))
    assert valid(single, {"decision": "a2"})
    assert not valid(single, {"decision": "a9"}) and not valid(single, {"decision": ["a2"]})
    for schema in (subset, sequence):
        assert valid(schema, {"decision": ["a3", "a1"]})
        assert not valid(schema, {"decision": ["a1", "a1"]})
        assert not valid(schema, {"decision": []})
        assert not valid(schema, {"decision": ["a5"]})
        assert not valid(schema, {"decision": ["a1"], "why": "x"})
        assert not valid(schema, {})
    assert single["properties"]["decision"]["enum"] == IDS


@given(st.sampled_from(["single", "set", "sequence"]), st.lists(st.sampled_from([*IDS, "a5", ""]), max_size=6))
def test_every_answer_the_schema_admits_the_parser_accepts(kind: str, ids: list[str]) -> None:
    answer = {"decision": ids[0] if kind == "single" and ids else ids}
    if valid(decision_schema(kind, IDS), answer):
        assert parse_answer(json.dumps(answer), kind, IDS).ok


def test_bad_schema_requests_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="decision type"):
        decision_schema("bag", IDS)
    with pytest.raises(ConfigError, match="distinct"):
        decision_schema("set", ["a1", "a1"])
