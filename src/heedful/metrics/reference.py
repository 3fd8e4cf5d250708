"""What each suite's reference level is, named for what it is (a row's `chance` field holds its value).

Only decisions' level is chance: the expected score of a uniformly random valid answer. Tabletop's is the blind
branch draw (a training branch chosen without reading the instruction) and household's the words-only level (one
uniform guess among the rooms the words fit, everything else perfect): both are strong baselines, so an agent
below them is not "below chance". Each suite declares its level with its scoring (`Scoring.reference`); reports and
figures take the label and the note from there (`heedful.metrics.scoring.reference_of`).
"""

from __future__ import annotations

from typing import NamedTuple


class Reference(NamedTuple):
    label: str
    """The column's and the figure's name for the level."""
    note: str
    """What the level is, in one line."""


GENERIC = Reference("reference", "the exact score of an agent that ignores what the suite tests, computed, not sampled")
