"""A cached dataset whose episodes are parsed only when a run uses them.

`heedful run decisions --limit 2` used to validate all 4,036 cached episodes (about 100 us each) to run two.
What a run needs of the whole dataset is small: its content hash, the episode ids (to refuse duplicates) and the
suite's sampling units (for `--limit` and `--shard`). The dataset cache writes those beside the episodes
(`index.json`, tied to the content hash) and loads a `LazyEpisodes`: a read-only sequence that parses a line when
it is first read, so a run's work beyond that fixed part grows with the episodes it selects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar, overload

if TYPE_CHECKING:  # annotations only: `suites.base` imports this module
    from heedful.sampling import Unit
    from heedful.suites.base import Episode

E = TypeVar("E", bound="Episode")
E_contra = TypeVar("E_contra", bound="Episode", contravariant=True)


class Sampled(Protocol[E_contra]):
    """What `sample_units` asks of a suite (not `suites.base.Suite`, which imports this module)."""

    def sample_units(self, episodes: Sequence[E_contra]) -> list[Unit]: ...


class LazyEpisodes(Sequence[E]):
    """The episodes of a hash-checked dataset file, each parsed on first access and kept.

    `lines` are the file's episode lines (without newlines) in order; `parse` turns one into an episode;
    `episode_ids`, `units` (the suite's `sample_units` of the whole dataset) and `content_hash` were computed
    from the same lines when the dataset was cached.
    """

    def __init__(
        self,
        lines: Sequence[str],
        parse: Callable[[str], E],
        *,
        episode_ids: Sequence[str],
        units: Sequence[Unit],
        content_hash: str,
    ) -> None:
        if len(episode_ids) != len(lines):
            raise ValueError(f"{len(episode_ids)} episode ids for {len(lines)} lines")
        self._lines = list(lines)
        self._parse = parse
        self._parsed: list[E | None] = [None] * len(self._lines)
        self.episode_ids: tuple[str, ...] = tuple(episode_ids)
        self.units: list[Unit] = [(stratum, list(positions)) for stratum, positions in units]
        self.content_hash = content_hash

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, position: int) -> E: ...

    @overload
    def __getitem__(self, position: slice) -> list[E]: ...

    def __getitem__(self, position: int | slice) -> E | list[E]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        episode = self._parsed[position]
        if episode is None:
            episode = self._parse(self._lines[position])
            self._parsed[position] = episode
        return episode

    def __iter__(self) -> Iterator[E]:
        return (self[i] for i in range(len(self)))

    @property
    def parsed_count(self) -> int:
        """How many episodes have been parsed so far."""
        return sum(episode is not None for episode in self._parsed)


def episode_ids(episodes: Sequence[Episode]) -> Sequence[str]:
    """The episodes' ids, without parsing a lazy dataset."""
    if isinstance(episodes, LazyEpisodes):
        return episodes.episode_ids
    return [episode.episode_id for episode in episodes]


def sample_units(suite: Sampled[E], episodes: Sequence[E]) -> list[Unit]:
    """`suite.sample_units(episodes)`, read from the index of a lazy dataset instead of parsing it."""
    if isinstance(episodes, LazyEpisodes):
        return [(stratum, list(positions)) for stratum, positions in episodes.units]
    return suite.sample_units(episodes)
