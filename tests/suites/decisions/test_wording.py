"""The instructions' wording: grammar, prohibitions that fit the gold, held-out test wording, masking."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from heedful.api import evaluate
from heedful.cli import main
from heedful.errors import RunError
from heedful.language.realize import MASK_TOKEN, words
from heedful.runner.manifest import read_manifest, run_identity, write_manifest
from heedful.suites.decisions import wording as w
from heedful.suites.decisions.generate import generate, parse_config
from heedful.suites.decisions.model import Candidate, Inhibit, Task
from heedful.suites.decisions.suite import SUITE
from heedful.suites.decisions.tasks import LIFTING_VERBS, prohibition_contradicts_gold
from heedful.suites.decisions.templates import TEMPLATES, all_template_ids

SMALL = {"object_anchors": 4, "action_anchors": 8, "atomic_families": 96, "multi_families": 2, "visual_families": 12}


def test_articles_agree_with_the_next_word(default_episodes) -> None:  # type: ignore[no-untyped-def]
    wrong = [
        ep.instruction
        for ep in default_episodes
        if re.search(r"\ba [aeiou]|\ban [^aeiou\W]", ep.instruction, flags=re.IGNORECASE)
    ]
    assert wrong == []
    assert any(" an orange " in ep.instruction for ep in default_episodes)


def test_no_instruction_has_the_old_broken_frames(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for ep in default_episodes:
        text = ep.instruction.lower()
        assert "going starting" not in text and "one by one and starting" not in text, ep.instruction
        assert not re.search(r"\b(\w+) \1\b", text), ep.instruction  # no doubled word ("the the")


def test_no_prohibition_names_an_object_the_gold_lifts(default_episodes) -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for ep in default_episodes:
        by_id = {c.id: c for c in ep.candidates}
        gold = [ep.gold] if isinstance(ep.gold, str) else ep.gold
        lifted = {by_id[i].object for i in gold if by_id[i].attrs.get("verb") in LIFTING_VERBS}
        for constraint in ep.task.constraints:
            if isinstance(constraint, Inhibit):
                checked += 1
                assert by_id[constraint.candidate].object not in lifted, ep.episode_id
    assert checked > 500


def _action(cid: str, verb: str, obj: str) -> Candidate:
    return Candidate(id=cid, kind="action", text=f"{verb} {obj}", attrs={"verb": verb}, x=0, y=0, object=obj)


def test_a_prohibited_pick_contradicts_a_gold_that_stacks_the_same_object() -> None:
    cands = [_action("a1", "pick", "cube"), _action("a2", "stack_on", "cube"), _action("a3", "push", "ball")]
    task = Task(decision_type="single", constraints=(Inhibit(candidate="a1"),))
    assert prohibition_contradicts_gold(cands, task, "a2")
    assert not prohibition_contradicts_gold(cands, task, "a3")


def test_the_test_split_uses_only_held_out_templates(default_episodes) -> None:  # type: ignore[no-untyped-def]
    used = {
        split: {ep.template_id for ep in default_episodes if ep.split == split} for split in ("train", "val", "test")
    }
    assert used["test"] == all_template_ids(held_out=True)
    assert used["train"] == all_template_ids(held_out=False)
    assert used["val"] <= all_template_ids(held_out=False)
    for key, group in TEMPLATES.items():  # each split has two templates per key: base and rewrite differ
        assert sum(t.held_out for t in group) >= 2 and sum(not t.held_out for t in group) >= 2, key


def _pool_words(index: int) -> set[str]:
    found: set[str] = set()
    for value in vars(w).values():
        pools = value.values() if isinstance(value, dict) else [value]
        for pool in pools:
            if isinstance(pool, tuple) and len(pool) == 2 and all(isinstance(p, tuple) for p in pool):
                found |= {word for text in _flat(pool[index]) for word in words(text)}
    return found


def _flat(items: tuple[object, ...]) -> list[str]:
    return [s for item in items for s in (_flat(item) if isinstance(item, tuple) else [str(item)])]


def test_held_out_words_never_appear_in_train_or_val(default_episodes) -> None:  # type: ignore[no-untyped-def]
    train_text = {word for ep in default_episodes if ep.split != "test" for word in words(ep.instruction)}
    test_text = {word for ep in default_episodes if ep.split == "test" for word in words(ep.instruction)}
    template_words = {
        word for group in TEMPLATES.values() for t in group if not t.held_out for word in words(t.template.text)
    }
    held_out_only = _pool_words(1) - _pool_words(0) - template_words - {"o", "t", "d", "n", "l", "a"}
    assert len(held_out_only) > 30
    assert held_out_only & train_text == set()
    assert len(held_out_only & test_text) > 0.8 * len(held_out_only)


RANK_STOPWORDS = {"the", "of", "to", "from", "one", "ones", "two", "head", "k", "n", "l", "objects", "object"}


def _phrase_words(*texts: str) -> set[str]:
    return {word for text in texts for word in words(text)} - RANK_STOPWORDS


def test_held_out_rank_and_order_phrases_share_no_content_word_with_the_training_ones() -> None:
    # a reader fitted on the training wording ("farthest to the left", "closest to you", "from left to right")
    # finds no rank or order cue in the held-out one ("leftmost", "nearest the robot", "furthest back first")
    train = _phrase_words(
        *_flat(tuple(w.RANKS.values())),
        *_flat(tuple(w.COMPARATIVES.values())),
        *w.LANDMARK_RANKS[0],
        *w.LANDMARK_AWAY[0],
        *(pool[0][0] for pool in (*w.ORDERS.values(), *w.POSITION_REFS.values())),
        "by the position of their objects",
    )
    held_out = _phrase_words(
        *_flat(tuple(w.HELD_OUT_RANKS.values())),
        *_flat(tuple(w.HELD_OUT_COMPARATIVES.values())),
        *w.HELD_OUT_LANDMARK,
        *w.HELD_OUT_LANDMARK_AWAY,
        *w.LANDMARK_RANKS[1],
        *w.LANDMARK_AWAY[1],
        *w.HELD_OUT_ACTION_ORDERS.values(),
        *(pool[1][0] for pool in (*w.ORDERS.values(), *w.POSITION_REFS.values())),
    )
    assert {"farthest", "left", "closest", "you"} <= train and {"leftmost", "robot", "furthest", "back"} <= held_out
    assert train & held_out == set()


def test_cardinality_changes_vary_more_than_the_count(default_episodes) -> None:  # type: ignore[no-untyped-def]
    # issue 39: a change that only swaps the count word lets a count reader solve the category
    subtypes = Counter(ep.subtype for ep in default_episodes if ep.category == "cardinality" and ep.role == "base")
    assert set(subtypes) == {"count", "direction", "criterion", "group"}
    assert subtypes["count"] < 0.4 * sum(subtypes.values())
    by_distance = [
        ep for ep in default_episodes if any(c.kind == "prefer" and c.key == "distance" for c in ep.task.constraints)
    ]
    assert len(by_distance) > 200
    assert {ep.template_id for ep in default_episodes if ep.category == "cardinality"} >= {"card-f", "card-g"}


# volumes in cm^3 worked out by hand from the object sizes (boxes: full extents; cylinders and bowls solid)
VOLUME_CM3 = {
    ("sphere", "small"): 33.5, ("cube", "small"): 64, ("cylinder", "small"): 75.4, ("sphere", "large"): 113.1,
    ("bar", "small"): 115.2, ("block", "small"): 128, ("cube", "large"): 216, ("bar", "large"): 241.9,
    ("block", "large"): 250, ("cylinder", "large"): 282.7, ("bowl", "large"): 2544.7,
}  # fmt: skip
SIZE_RANK_WORDS = {"train": {"largest", "tiniest"}, "test": {"biggest", "smallest"}}


def test_cardinality_ranks_by_size_too_and_its_gold_is_the_plainly_biggest(default_episodes) -> None:  # type: ignore[no-untyped-def]
    # issue 39: the ranking criterion varies over position, distance to a named object and size
    by_size = [
        ep for ep in default_episodes if any(c.kind == "prefer" and c.key == "size" for c in ep.task.constraints)
    ]
    assert {ep.split for ep in by_size} == {"train", "val", "test"} and len({ep.family_id for ep in by_size}) >= 30
    assert {ep.subtype for ep in by_size} >= {"count", "direction", "criterion"}
    for ep in by_size:
        prefer = next(c for c in ep.task.constraints if c.kind == "prefer")
        scope = [c.predicate for c in ep.task.constraints if c.kind == "scope"]
        group = [c for c in ep.candidates if all(p.matches(c) for p in scope)]
        size = {c.id: VOLUME_CM3[(c.attrs["shape"], c.attrs["size"])] for c in group}
        chosen, rest = [size[i] for i in ep.gold], [size[c.id] for c in group if c.id not in ep.gold]
        big, small = (chosen, rest) if prefer.descending else (rest, chosen)
        assert min(big) >= 1.6 * max(small), ep.episode_id
        said = set(words(ep.instruction)) & (SIZE_RANK_WORDS["train"] | SIZE_RANK_WORDS["test"])
        assert said and said <= SIZE_RANK_WORDS["test" if ep.split == "test" else "train"], ep.instruction
    others = [ep for ep in default_episodes if ep not in by_size]
    assert not any(set(words(ep.instruction)) & {"largest", "tiniest", "biggest", "smallest"} for ep in others)


def test_the_hold_out_can_be_switched_off() -> None:
    held = generate(3, parse_config(SMALL))
    mixed = generate(3, parse_config({**SMALL, "held_out_wording": False}))
    held_out_ids = all_template_ids(held_out=True)
    assert not {ep.template_id for ep in held if ep.split == "train"} & held_out_ids
    assert {ep.template_id for ep in mixed if ep.split == "train"} & held_out_ids
    assert {ep.template_id for ep in mixed if ep.split == "test"} - held_out_ids
    assert [ep.gold for ep in held] != [] and len(held) == len(mixed)


def test_the_cli_switches_the_hold_out_off(tmp_path: Path) -> None:
    settings = [arg for key, value in SMALL.items() for arg in ("--set", f"{key}={value}")]
    args = ["generate", "decisions", "--seed", "3", "--no-progress", *settings, "--set", "held_out_wording=false"]
    assert main([*args, "--out", str(tmp_path / "d")]) == 0
    lines = (tmp_path / "d" / "episodes.jsonl").read_text().splitlines()
    train_templates = {json.loads(line)["template_id"] for line in lines if json.loads(line)["split"] == "train"}
    assert train_templates & all_template_ids(held_out=True)


def test_a_masked_instruction_keeps_only_its_template_frame(default_episodes) -> None:  # type: ignore[no-untyped-def]
    templates = {t.template.id: t.template for group in TEMPLATES.values() for t in group}
    frame_words = {
        word
        for pool in (w.DO_OBJECT, w.DO_ACTION, w.OBJECT_NOUNS, w.ACTION_NOUNS, w.EVERYTHING_OBJECT, w.EVERYTHING_ACTION)
        for text in pool[0] + pool[1]
        for word in words(text)
    }
    frame_words |= {
        word for forms in (*w.OBJECT_VERBS.values(), *w.ACTION_VERBS.values()) for f in forms for word in words(f)
    }
    for ep in default_episodes:
        literal = set(words(re.sub(r"\{\w+\}", " ", templates[ep.template_id].text)))
        leaked = set(words(ep.masked_instruction.replace(MASK_TOKEN, " "))) - literal - frame_words
        assert leaked == set(), (ep.episode_id, ep.masked_instruction)


def test_the_dataset_version_is_bumped_and_an_old_run_refuses_to_resume(tmp_path: Path) -> None:
    assert SUITE.version == "decisions-v4"
    suite, out, data = SUITE, tmp_path / "run", tmp_path / "data"
    suite.save_dataset(generate(0, parse_config(SMALL)), data, {"seed": 0})
    evaluate(suite="decisions", agent="oracle", out=out, dataset=data, limit=4, progress=False)
    stored = read_manifest(out)  # rewritten as a run made before this change stored it (heedful's own writer)
    spec = stored.spec.model_copy(update={"suite_version": "decisions-v3"})
    identity = run_identity(spec, frozenset(stored.session_args or ()))
    write_manifest(out, stored.model_copy(update={"spec": spec, "run_identity": identity}))
    # the runner names both versions and says what to do (the message every suite's version bump gets)
    with pytest.raises(RunError, match=r"holds a decisions-v3 run, but this heedful runs decisions-v4.*another --out"):
        evaluate(suite="decisions", agent="oracle", out=out, dataset=data, limit=4, resume=True, progress=False)
