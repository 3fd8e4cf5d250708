"""The task API: list a suite's tasks (its dataset lines) with their groups, instruction and description.

    import heedful
    for task in heedful.tasks("tabletop", level="L1", scene=2):
        print(task.id, task.instruction)        # task.episode is the full dataset line

A suite's tasks are the lines of its dataset: tabletop's 554 evaluation tasks (each run as 10 trials),
household's 480 episodes, decisions' 4,036 instances. Without `dataset` the default dataset for `seed` is
used (generated once into the dataset cache). Filters match the suite's grouping keys (`episode.keys()`:
tabletop `level`, `scene`, `action`, ...; decisions `category`, `split`, `role`, ...; household `split`,
`task_type`, `ambiguous`, ...); a tabletop scene matches as 2 or "S2".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import ConfigError, UnknownNameError
from heedful.registry import suggest

if TYPE_CHECKING:
    from heedful.suites.base import Episode


@dataclass(frozen=True)
class TaskInfo:
    """One task of a suite: what `heedful list tasks` prints, and the dataset line itself."""

    suite: str
    id: str
    instruction: str
    description: str
    groups: dict[str, str] = field(default_factory=dict)
    episode: Any = field(default=None, repr=False, compare=False)


def _groups(suite: str, episode: Episode) -> dict[str, str]:
    # the grouping keys are not in the Episode protocol: a suite's episodes give them as `keys()` (Suite.task_columns)
    keys = getattr(episode, "keys", None)
    if not callable(keys):
        raise ConfigError(f"{suite} episode {episode.episode_id} has no keys() (its grouping keys) to list it by")
    return dict(keys())


def _matches(wanted: object, value: str) -> bool:
    text, have = str(wanted).lower(), value.lower()
    return text == have or (re.fullmatch(r"s\d+", have) is not None and text == have[1:])


def tasks(suite: str, *, dataset: Path | str | None = None, seed: int = 0, **filters: object) -> list[TaskInfo]:
    """The tasks of `suite` that match every filter, in dataset order.

    Raises:
        UnknownNameError: an unknown suite or filter key (with did-you-mean).
        ConfigError: a filter value that no task has (the message lists the values there are).
    """
    from heedful.api import load_or_generate
    from heedful.suites.registry import get_suite

    suite_obj = get_suite(suite)
    episodes, _ = load_or_generate(suite_obj, Path(dataset) if dataset is not None else None, seed)
    infos = []
    for ep in episodes:
        instruction, description = suite_obj.describe_task(ep)
        infos.append(TaskInfo(suite, ep.episode_id, instruction, description, _groups(suite, ep), ep))
    for key, wanted in filters.items():
        known = set().union(*(t.groups for t in infos)) if infos else set()
        if key not in known:
            raise UnknownNameError(
                f"{suite} tasks have no field {key!r}{suggest(key, known)}; filter by one of {', '.join(sorted(known))}"
            )
        kept = [t for t in infos if _matches(wanted, t.groups[key])]
        if not kept:
            values = sorted({t.groups[key] for t in infos})
            shown = ", ".join(values[:12]) + (", ..." if len(values) > 12 else "")
            raise ConfigError(f"no {suite} task has {key}={wanted!r}{suggest(str(wanted), values)}; values: {shown}")
        infos = kept
    return infos
