"""The paraphrase condition: hand-written paraphrases of test instructions, shipped, checked and run."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from heedful.api import compare, evaluate
from heedful.errors import ConfigError, DatasetError
from heedful.language.realize import words
from heedful.runner import load_run
from heedful.suites.decisions import paraphrases
from heedful.suites.decisions.model import ROLES
from heedful.suites.decisions.suite import SUITE


def test_the_package_ships_the_paraphrases_as_package_data() -> None:
    shipped = resources.files("heedful.suites.decisions").joinpath(paraphrases.FILE)
    assert shipped.is_file() and shipped.name.endswith(".json")  # pyproject ships heedful/**/*.json
    assert len(json.loads(shipped.read_text(encoding="utf-8"))) == len(paraphrases.load()) >= 300
    assert SUITE.version == paraphrases.SUITE_VERSION


def test_every_paraphrase_rewords_an_existing_test_episode_as_it_reads(default_episodes) -> None:  # type: ignore[no-untyped-def]
    by_id = {ep.episode_id: ep for ep in default_episodes}
    table = paraphrases.load()
    assert set(table) <= set(by_id)
    for item in table.values():
        ep = by_id[item.episode_id]
        assert ep.split == "test" and ep.instruction == item.instruction, item.episode_id
        assert words(item.paraphrase) != words(ep.instruction), item.episode_id
    # whole families (family metrics hold), every category and every role
    families = Counter(by_id[i].family_id for i in table)
    assert set(families.values()) == {4}
    assert Counter((by_id[i].category, by_id[i].role) for i in table).keys() == {
        (c, r) for c in ("inhibition", "set", "cardinality", "temporal", "multi") for r in ROLES
    }
    # written one by one: no paraphrase is a template instruction of the dataset
    assert not {item.paraphrase for item in table.values()} & {ep.instruction for ep in default_episodes}


def test_a_paraphrase_run_shows_the_paraphrases_and_pairs_with_a_template_run(  # type: ignore[no-untyped-def]
    default_episodes, tmp_path: Path
) -> None:
    data = tmp_path / "data"  # the paraphrased episodes and a few others are enough (and quick to save)
    table = paraphrases.load()
    kept = [ep for i, ep in enumerate(default_episodes) if ep.episode_id in table or i < 40]
    SUITE.save_dataset(kept, data, {"seed": 0})
    runs = {}
    for name, options in (("paraphrase", {"condition": "paraphrase"}), ("template", {"subset": "paraphrase"})):
        runs[name] = tmp_path / name
        out = runs[name]
        evaluate(suite="decisions", agent="oracle", out=out, dataset=data, limit=8, options=options, progress=False)
    shown = {r.episode_id: r.inputs["instruction"] for r in load_run(runs["paraphrase"])[1]}
    assert len(shown) == 8 and all(text == table[i].paraphrase for i, text in shown.items())
    template = {r.episode_id: r.inputs["instruction"] for r in load_run(runs["template"])[1]}
    assert all(text == table[i].instruction for i, text in template.items())
    rows = compare(runs["template"], runs["paraphrase"], resamples=20)
    accuracy = next(r for r in rows if r.metric == "accuracy" and r.group == "all")
    assert accuracy.a == accuracy.b == 1.0  # the oracle never reads the words: gold unchanged


def test_paraphrases_refuse_masking_and_a_dataset_they_were_not_written_for(default_episodes) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="masks template"):
        SUITE.check_options({"condition": "paraphrase", "mask": True})
    with pytest.raises(ConfigError, match="paraphrase subset only"):
        SUITE.check_options({"condition": "paraphrase", "subset": "all"})
    table = paraphrases.load()
    edited = [ep.model_copy(update={"instruction": "Take it."}) for ep in default_episodes if ep.episode_id in table]
    with pytest.raises(DatasetError, match="paraphrase was written for"):
        SUITE.episodes_for_run(edited, {"condition": "paraphrase"})
    other = [ep for ep in default_episodes if ep.split == "train"]
    with pytest.raises(ConfigError, match="no episode of this selection has a paraphrase"):
        SUITE.episodes_for_run(other, {"subset": "paraphrase"})
