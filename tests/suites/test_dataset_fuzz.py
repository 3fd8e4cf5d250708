"""Fuzzing: mutated dataset files (truncated, a byte flipped, a field dropped, a value edited) and hostile model
replies. Every outcome is a typed error or a correct score, never a traceback or a silent change.

Each dataset mutation is loaded twice: as generated (the content hash must refuse any changed byte) and with
`verify=False` (the per-episode checks must refuse it, or what loads must still be scored correctly: the decisions
oracle, which answers from the constraint set, must be right on every loaded episode). Runs are derandomized, so
CI sees the same cases every time; the counts by outcome are printed (`pytest -s`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heedful.agents.decisions import OracleAgent
from heedful.agents.household_json import choice_question, room_question
from heedful.errors import DatasetError
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.household.tools import parse_tool
from heedful.suites.registry import get_suite
from heedful.suites.tabletop.skillcalls import SkillCallError, parse_call

EXAMPLES = {"decisions": 60, "household": 30, "tabletop": 40}
OUTCOMES: dict[str, Counter[str]] = {name: Counter() for name in EXAMPLES}
_DATA: dict[str, bytes] = {}


def dataset_bytes(name: str, root: Path) -> bytes:
    if name not in _DATA:
        suite = get_suite(name)
        episodes = list(suite.generate(0, dict(suite.check_config)))[:12]
        suite.save_dataset(episodes, root / f"base-{name}", {"seed": 0})
        _DATA[name] = (root / f"base-{name}" / "episodes.jsonl").read_bytes()
    return _DATA[name]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _leaves(item, (*path, key))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _leaves(item, (*path, i))]
    return [path]


def _edit(value: Any, choice: int) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return [value + 1, -value, value * 10, 0, 1e9][choice % 5]
    if isinstance(value, str):
        return ["", value[::-1], value + "x", "spaceship", "L9"][choice % 5]
    return "surprise"


@st.composite
def mutations(draw: st.DrawFn, data: bytes) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["truncate", "flip", "drop", "edit"]))
    if kind == "truncate":
        return kind, data[: draw(st.integers(0, len(data) - 1))]
    if kind == "flip":
        at = draw(st.integers(0, len(data) - 1))
        return kind, data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
    lines = data.split(b"\n")
    row = draw(st.integers(0, len(lines) - 2))
    episode = json.loads(lines[row])
    leaf = draw(st.sampled_from(_leaves(episode)))
    parent = episode
    for key in leaf[:-1]:
        parent = parent[key]
    if kind == "drop":
        del parent[leaf[-1]]
    else:
        parent[leaf[-1]] = _edit(parent[leaf[-1]], draw(st.integers(0, 4)))
    lines[row] = json.dumps(episode, separators=(",", ":")).encode()
    return kind, b"\n".join(lines)


def _oracle_scores_every_episode(name: str, episodes: list[Any]) -> bool:
    if name != "decisions":
        return True  # household and tabletop: what loads passed the world checks (the load is the assertion)
    suite, oracle = get_suite(name), OracleAgent()
    records = [suite.rollout_episode(ep, oracle, RolloutContext(seed=0, index=i)) for i, ep in enumerate(episodes)]
    return all(r.correct is True for r in records)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_mutated_datasets_are_refused_or_still_scored_correctly(
    name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp(f"fuzz-{name}")
    base = dataset_bytes(name, root)
    suite = get_suite(name)
    summary = (root / f"base-{name}" / "dataset.json").read_bytes()
    counter = iter(range(10**6))

    @settings(
        max_examples=EXAMPLES[name],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutation=mutations(base))
    def check(mutation: tuple[str, bytes]) -> None:
        kind, data = mutation
        where = root / f"case{next(counter)}"
        where.mkdir()
        (where / "episodes.jsonl").write_bytes(data)
        (where / "dataset.json").write_bytes(summary)
        if data != base:
            with pytest.raises(DatasetError):
                suite.load_dataset(where)  # the recorded content hash catches every changed byte
        try:
            loaded = list(suite.load_dataset(where, verify=False))
        except DatasetError:
            OUTCOMES[name][f"{kind}: typed error"] += 1
            return
        assert _oracle_scores_every_episode(name, loaded), f"{kind} loaded and broke the scoring"
        OUTCOMES[name][f"{kind}: loaded, scored correctly"] += 1

    check()
    print(f"\n{name}: {EXAMPLES[name]} mutations: {dict(sorted(OUTCOMES[name].items()))}")
    assert sum(OUTCOMES[name].values()) >= EXAMPLES[name] // 2


HOSTILE_TEXT = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    st.integers(1, 60_000).map(lambda n: "[" * n + "]" * n),  # nesting deep enough to exhaust a recursive parser
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    ).map(json.dumps),
    st.sampled_from(['{"decision": NaN}', '{"decision": ["a1", "a1"]}', '{"skill": "pick", "args": {"obj": 1e400}}']),
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=HOSTILE_TEXT)
def test_hostile_model_replies_parse_to_an_answer_or_a_stated_failure(text: str) -> None:
    for kind in ("single", "set", "sequence"):
        parsed = parse_answer(text, kind, ("a1", "a2", "a3"))
        assert parsed.ok != (parsed.reason is not None)
    result = parse_tool(text)
    assert (result.call is None) != (result.reason is None)
    for question in (room_question(4), choice_question(["Go to Room 1", "Done"])):  # household constrained mode
        reading = question.text_of(text, "stop")
        assert (reading.value is None) != (reading.reason is None)
    try:
        parse_call(text, ("red_cube", "blue_bowl"))
    except SkillCallError as exc:
        assert str(exc)
