"""Hand-written paraphrases of test-split instructions (package data `paraphrases.json`).

A JSON list, one object per line; each holds an episode id of the default dataset (seed 0) of the suite
version below, the template instruction it paraphrases, and the paraphrase: the same request as a person would
word it, so the episode's gold decision is unchanged. They were written one by one (not from the generator's
templates), covering whole families of every category and role, so family metrics hold on them.
`condition=paraphrase` shows them instead of the template wording (see `conditions`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from heedful.errors import DatasetError

SUITE_VERSION = "decisions-v4"
FILE = "paraphrases.json"


@dataclass(frozen=True)
class Paraphrase:
    episode_id: str
    instruction: str
    """The template instruction it rewords, as the dataset holds it (checked before a run)."""
    paraphrase: str


@lru_cache(maxsize=1)
def load() -> dict[str, Paraphrase]:
    """{episode id: paraphrase} from the shipped file.

    Raises:
        DatasetError: a line is malformed or an episode id repeats.
    """
    text = resources.files("heedful.suites.decisions").joinpath(FILE).read_text(encoding="utf-8")
    try:
        rows = json.loads(text)
    except ValueError as exc:
        raise DatasetError(f"{FILE}: not JSON ({exc})") from None
    table: dict[str, Paraphrase] = {}
    for number, row in enumerate(rows if isinstance(rows, list) else [rows], 1):
        try:
            item = Paraphrase(str(row["episode_id"]), str(row["instruction"]), str(row["paraphrase"]))
        except (KeyError, TypeError) as exc:
            raise DatasetError(
                f"{FILE} item {number}: missing {exc}; each needs episode_id, instruction, paraphrase"
            ) from None
        if item.episode_id in table:
            raise DatasetError(f"{FILE} item {number}: episode {item.episode_id} is paraphrased twice")
        table[item.episode_id] = item
    return table
