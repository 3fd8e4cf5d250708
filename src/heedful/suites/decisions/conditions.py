"""Run conditions of the decisions suite: how the state is presented, and which episodes run.

- `condition=structured` (default): the object list with positions, as text.
- `condition=visual`: the agentview image of the state instead of the object list and positions; the
  candidates, instruction and answer format stay. Runs the visual subset only, and needs a dataset
  generated with images (`heedful generate decisions --images`).
- `condition=paraphrase`: the paraphrased subset (`paraphrases.jsonl`: test-split instructions of the default
  dataset reworded by hand as people say them, gold unchanged), each shown with its paraphrase instead of
  its template instruction. Refuses a dataset whose instructions differ from the ones paraphrased.
- `subset=visual` / `subset=paraphrase`: run only that subset in its own wording, e.g. a template run to pair
  with a paraphrase run (`heedful compare` then matches the same episodes; both runs have the same dataset hash).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError, DatasetError
from heedful.suites.decisions import paraphrases
from heedful.suites.decisions.images import check_images, image_problem, read_image, read_png
from heedful.suites.decisions.model import DecisionEpisode

CONDITIONS = ("structured", "visual", "paraphrase")
SUBSETS = ("all", "visual", "paraphrase")
IMAGE_ROOT = "image_root"


def is_visual(options: dict[str, Any]) -> bool:
    return bool(options.get("condition", "structured") == "visual")


def check_condition_options(options: dict[str, Any]) -> None:
    """Raise ConfigError for an unknown condition or subset, or a subset=all request with condition=visual."""
    condition, subset = options.get("condition", "structured"), options.get("subset", "all")
    if condition not in CONDITIONS:
        raise ConfigError(f"unknown condition {condition!r}; choose one of {', '.join(CONDITIONS)}")
    if subset not in SUBSETS:
        raise ConfigError(f"unknown subset {subset!r}; choose one of {', '.join(SUBSETS)}")
    for special in ("visual", "paraphrase"):
        if condition == special and "subset" in options and subset != special:
            raise ConfigError(f"condition={special} runs the {special} subset only; drop subset={subset}")
    if condition == "paraphrase" and options.get("mask"):
        raise ConfigError("the paraphrase condition shows paraphrased instructions; --mask masks template ones")


def prepare_options(options: dict[str, Any], dataset: Path | None) -> dict[str, Any]:
    """Add where the images are (the dataset directory) for the visual condition.

    Raises:
        ConfigError: condition=visual without a dataset on disk.
    """
    if not is_visual(options) or IMAGE_ROOT in options:
        return options
    if dataset is None:
        raise ConfigError(
            "the visual condition shows images rendered beside a dataset: generate one with "
            "`heedful generate decisions --images --out DIR` (needs heedful[tabletop]) and pass --dataset DIR"
        )
    root = Path(dataset)
    root = root if root.is_dir() else root.parent
    return {**options, IMAGE_ROOT: str(root.resolve())}


def select_for_run(episodes: Sequence[DecisionEpisode], options: dict[str, Any]) -> Sequence[DecisionEpisode]:
    """The episodes a run covers: every one, or the visual subset (whose images are checked up front).

    Raises:
        ConfigError: the selection has no visual episode.
        DatasetError: condition=visual and an image is missing, unreadable or changed.
    """
    if not is_visual(options) and options.get("subset", "all") == "all" and not is_paraphrase(options):
        return episodes  # as given: a cached dataset stays lazy
    if is_paraphrase(options) or options.get("subset") == "paraphrase":
        return paraphrased_subset(episodes)
    chosen = [ep for ep in episodes if ep.visual]
    if not chosen:
        raise ConfigError("these episodes hold no visual family; generate with visual_families above 0")
    if is_visual(options):
        if IMAGE_ROOT not in options:
            raise ConfigError(f"condition=visual needs the option {IMAGE_ROOT} (the dataset directory)")
        missing = [ep.episode_id for ep in chosen if ep.image is None]
        if missing:
            raise DatasetError(
                f"{len(missing)} visual episodes have no image (first: {missing[0]}); regenerate the dataset "
                "with `heedful generate decisions --images --out DIR`"
            )
        check_images(chosen, Path(options[IMAGE_ROOT]))
    return chosen


def is_paraphrase(options: dict[str, Any]) -> bool:
    return bool(options.get("condition") == "paraphrase")


def paraphrased_subset(episodes: Sequence[DecisionEpisode]) -> list[DecisionEpisode]:
    """The episodes that have a paraphrase, each checked to read exactly as the instruction paraphrased.

    Raises:
        DatasetError: an episode reads differently from the instruction its paraphrase was written for (another
            dataset or version), or no episode of the selection has a paraphrase.
    """
    table = paraphrases.load()
    chosen = [ep for ep in episodes if ep.episode_id in table]
    for ep in chosen:
        if table[ep.episode_id].instruction != ep.instruction:
            raise DatasetError(
                f"episode {ep.episode_id} reads {ep.instruction!r}, but its paraphrase was written for "
                f"{table[ep.episode_id].instruction!r}; the paraphrases fit the default dataset "
                f"(`heedful generate decisions`, seed 0) of {paraphrases.SUITE_VERSION}"
            )
    if not chosen:
        raise ConfigError(
            "no episode of this selection has a paraphrase: they cover test-split episodes of the default dataset "
            "(drop --split, or use --split test)"
        )
    return chosen


def worded(episode: DecisionEpisode, options: dict[str, Any]) -> DecisionEpisode:
    """The episode as the agent is shown it: with its paraphrase as the instruction under condition=paraphrase."""
    if not is_paraphrase(options):
        return episode
    return episode.model_copy(update={"instruction": paraphrases.load()[episode.episode_id].paraphrase})


def condition_label(options: dict[str, Any]) -> str:
    """The report title's part for a run with a condition or subset option, e.g. " | condition visual (visual
    subset)"; empty for a plain structured run of every episode."""
    condition, subset = options.get("condition"), options.get("subset")
    if condition is None and subset is None:
        return ""
    subset = subset or (condition if condition in ("visual", "paraphrase") else "all")
    return f" | condition {condition or 'structured'} ({subset} subset)"


def required_inputs(options: dict[str, Any]) -> tuple[str, ...]:
    """Inputs an agent must be able to read under these options ("image" for the visual condition)."""
    return ("image",) if is_visual(options) else ()


def image_for(episode: DecisionEpisode, options: dict[str, Any]) -> bytes | None:
    """The PNG an agent sees for this episode, or None in the structured condition."""
    if not is_visual(options):
        return None
    if episode.image is None or episode.image_sha256 is None or image_problem(episode):
        return read_image(episode, Path(options[IMAGE_ROOT]))  # raises the DatasetError that says how to fix it
    return _cached_png(str(options[IMAGE_ROOT]), episode.image, episode.image_sha256)


@lru_cache(maxsize=128)
def _cached_png(root: str, image: str, sha256: str) -> bytes:
    # Four instances of each family, and several families of each anchor, share one file: read it once.
    return read_png(Path(root), image, sha256)
