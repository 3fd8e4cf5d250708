"""Instruction arms: the words each arm shows, the seeded shuffle and the seeded choice of a substitute."""

from __future__ import annotations

import pytest

from heedful.errors import ConfigError
from heedful.language.arms import arm_of, choose_other, parse_arms, shown_instruction, shuffle_words

TEXT = "Pick up the red block, then put it in the bowl."


def test_shuffle_keeps_the_words_changes_their_order_and_is_the_same_for_one_seed() -> None:
    for seed in range(50):
        shuffled = shuffle_words(TEXT, seed)
        assert sorted(shuffled.split()) == sorted(TEXT.split())
        assert shuffled != TEXT  # an identity draw becomes a rotation
        assert shuffle_words(TEXT, seed) == shuffled
    assert len({shuffle_words(TEXT, seed) for seed in range(50)}) > 40
    assert shuffle_words("stop", 3) == "stop"  # one word has one order


def test_each_arm_shows_its_words() -> None:
    assert shown_instruction("given", TEXT, 1) == TEXT
    assert shown_instruction("empty", TEXT, 1) == ""
    assert shown_instruction("shuffled", TEXT, 1) == shuffle_words(TEXT, 1)
    assert shown_instruction("other", TEXT, 1, "Push the cube left.") == "Push the cube left."
    with pytest.raises(ConfigError, match="substitute"):
        shown_instruction("other", TEXT, 1)


def test_arm_names_are_checked() -> None:
    assert arm_of({}) == "given"
    assert parse_arms("given, empty,other") == ["given", "empty", "other"]
    with pytest.raises(ConfigError, match="unknown instruction arm 'blank'"):
        parse_arms("given,blank")
    with pytest.raises(ConfigError, match="twice"):
        parse_arms("given,given")
    with pytest.raises(ConfigError, match="--arms"):
        parse_arms(" , ")


def test_the_substitute_depends_on_the_episode_only_and_prefers_one_that_asks_for_something_else() -> None:
    pool = ["a", "b", "c", "d"]
    picks = {choose_other(f"ep-{i}", pool) for i in range(40)}
    assert picks == set(pool)
    assert choose_other("ep-1", pool) == choose_other("ep-1", list(pool))
    assert all(choose_other(f"ep-{i}", pool, prefer=["c"]) == "c" for i in range(10))
    assert choose_other("ep-1", []) is None
