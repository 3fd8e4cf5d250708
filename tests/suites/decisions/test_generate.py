"""The generated benchmark: counts, determinism, unique golds, family structure, splits, language."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from heedful.errors import ConfigError, GenerationError
from heedful.language.realize import MASK_TOKEN, words
from heedful.suites.decisions.generate import GenerationConfig, generate, parse_config
from heedful.suites.decisions.solver import solve
from heedful.suites.decisions.templates import all_template_ids
from heedful.suites.episode_files import episodes_bytes
from heedful.world.objects import FLAT_TOPPED, ROTATABLE, TABLE_X, TABLE_Y


def families(episodes):  # type: ignore[no-untyped-def]
    out: dict[str, dict[str, object]] = defaultdict(dict)
    for ep in episodes:
        out[ep.family_id][ep.role] = ep
    return out


def test_default_counts_match_the_paper(default_episodes) -> None:  # type: ignore[no-untyped-def]
    anchors = {ep.anchor_id: ep.anchor_kind for ep in default_episodes}
    assert Counter(anchors.values()) == {"object": 21, "action": 64}
    fams = families(default_episodes)
    atomic = [f for f, roles in fams.items() if roles["base"].category != "multi"]
    multi = [f for f, roles in fams.items() if roles["base"].category == "multi"]
    assert (len(atomic), len(multi)) == (988, 21)
    assert sum(ep.category != "multi" for ep in default_episodes) == 3952
    assert sum(ep.category == "multi" for ep in default_episodes) == 84
    visual = {ep.family_id for ep in default_episodes if ep.visual}
    assert len(visual) == 187
    assert {ep.anchor_id for ep in default_episodes if ep.visual} == set(anchors)
    assert Counter(ep.category for ep in default_episodes if ep.category != "multi") == {
        "inhibition": 988,
        "set": 988,
        "cardinality": 988,
        "temporal": 988,
    }


def test_same_seed_is_byte_identical_and_another_seed_differs(default_episodes) -> None:  # type: ignore[no-untyped-def]
    config = GenerationConfig()
    assert episodes_bytes(generate(0, config)) == episodes_bytes(default_episodes)
    assert episodes_bytes(generate(1, config)) != episodes_bytes(default_episodes)


def test_every_instance_has_exactly_one_gold(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for ep in default_episodes:
        assert solve(ep.candidates, ep.task) == [ep.gold], ep.episode_id


def test_family_structure_preserve_keeps_and_change_changes_the_gold(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for family_id, roles in families(default_episodes).items():
        assert set(roles) == {"base", "preserve", "change", "change_preserve"}, family_id
        base, preserve, change, change_p = (roles[r] for r in ("base", "preserve", "change", "change_preserve"))
        assert preserve.gold == base.gold and change_p.gold == change.gold
        assert change.gold != base.gold
        assert preserve.task == base.task and change_p.task == change.task
        assert len({ep.anchor_id for ep in roles.values()}) == 1
        assert len({str([c.model_dump() for c in ep.candidates]) for ep in roles.values()}) == 1


def test_rewrites_differ_in_surface_form_not_by_one_word(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for roles in families(default_episodes).values():
        for plain, rewrite in (("base", "preserve"), ("change", "change_preserve")):
            a, b = roles[plain], roles[rewrite]
            assert a.template_id != b.template_id
            assert len(set(words(a.instruction)) ^ set(words(b.instruction))) >= 2, (
                a.instruction,
                b.instruction,
            )
        # the minimal pair shares its template; only the changed constraint's words differ
        assert roles["base"].template_id == roles["change"].template_id
        assert roles["base"].instruction != roles["change"].instruction


def test_every_template_is_exercised_in_both_pair_positions(default_episodes) -> None:  # type: ignore[no-untyped-def]
    as_plain = {ep.template_id for ep in default_episodes if ep.role == "base"}
    as_rewrite = {ep.template_id for ep in default_episodes if ep.role == "preserve"}
    assert as_plain == all_template_ids()
    assert as_rewrite == all_template_ids()


def test_masking_removes_the_task_critical_words(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for roles in families(default_episodes).values():
        assert roles["base"].masked_instruction == roles["change"].masked_instruction
        assert roles["preserve"].masked_instruction == roles["change_preserve"].masked_instruction
        for ep in roles.values():
            assert MASK_TOKEN in ep.masked_instruction
            assert ep.masked_instruction != ep.instruction


def test_splits_are_made_at_the_anchor(default_episodes) -> None:  # type: ignore[no-untyped-def]
    split_of: dict[str, set[str]] = defaultdict(set)
    for ep in default_episodes:
        split_of[ep.anchor_id].add(ep.split)
    assert all(len(s) == 1 for s in split_of.values())
    assert {s for (s,) in split_of.values()} == {"train", "val", "test"}


def test_anchor_sizes_and_action_preconditions(default_episodes) -> None:  # type: ignore[no-untyped-def]
    for ep in {ep.anchor_id: ep for ep in default_episodes}.values():
        objects = {o.name: o for o in ep.state.objects}
        ids = [c.id for c in ep.candidates]
        assert len(ids) == len(set(ids))
        if ep.anchor_kind == "object":
            assert 3 <= len(ep.candidates) <= 7
            continue
        assert 3 <= len(ep.candidates) <= 5
        for c in ep.candidates:
            obj, verb = objects[c.object], c.attrs["verb"]
            if verb == "pick":
                assert obj.graspable
            elif verb == "place_in":
                assert objects[c.target].shape == "bowl" and obj.graspable
            elif verb == "stack_on":
                assert objects[c.target].shape in FLAT_TOPPED and c.target != c.object
            elif verb == "rotate":
                assert obj.shape in ROTATABLE
            elif verb == "push":
                dx, dy = {"left": (-0.1, 0), "right": (0.1, 0), "forward": (0, 0.1), "backward": (0, -0.1)}[c.direction]
                assert TABLE_X[0] <= obj.x + dx <= TABLE_X[1] and TABLE_Y[0] <= obj.y + dy <= TABLE_Y[1]


def test_candidate_ids_are_stable_per_anchor(default_episodes) -> None:  # type: ignore[no-untyped-def]
    per_anchor = defaultdict(set)
    for ep in default_episodes:
        per_anchor[ep.anchor_id].add(tuple((c.id, c.text) for c in ep.candidates))
    assert all(len(v) == 1 for v in per_anchor.values())


def test_small_configs_scale_down() -> None:
    config = parse_config(
        {
            "object_anchors": 2,
            "action_anchors": 3,
            "atomic_families": 20,
            "multi_families": 1,
            "visual_families": 6,
        }
    )
    episodes = generate(5, config)
    assert len({ep.family_id for ep in episodes}) == 21
    assert len({ep.family_id for ep in episodes if ep.visual}) == 6


def test_an_impossible_config_fails_with_a_typed_error_instead_of_looping() -> None:
    config = parse_config(
        {
            "object_anchors": 1,
            "action_anchors": 0,
            "atomic_families": 400,
            "multi_families": 0,
            "visual_families": 0,
        }
    )
    with pytest.raises(GenerationError, match="anchor obj-01"):
        generate(0, config)


def test_config_typos_are_named_with_a_suggestion() -> None:
    with pytest.raises(ConfigError, match="did you mean 'atomic_families'"):
        parse_config({"atomic_familes": 3})


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 9))
def test_the_default_benchmark_generates_for_many_seeds(seed: int) -> None:
    episodes = generate(seed, GenerationConfig())
    assert len(episodes) == 4036
    assert all(solve(ep.candidates, ep.task) == [ep.gold] for ep in episodes[::7])


def test_every_anchor_state_is_physically_valid_for_the_simulator(default_episodes) -> None:  # type: ignore[no-untyped-def]
    from heedful.sims.tabletop.spec import scene_from_tabletop_state, validate_scene

    for ep in {ep.anchor_id: ep for ep in default_episodes}.values():
        validate_scene(scene_from_tabletop_state(ep.state), margin=0.005)  # raises ConfigError on an overlap
