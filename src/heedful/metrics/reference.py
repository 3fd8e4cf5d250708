"""What each suite's reference level is, named for what it is (a row's `chance` field holds its value).

Only decisions' level is chance: the expected score of a uniformly random valid answer. Tabletop's is the blind
branch draw (a training branch chosen without reading the instruction) and household's the words-only level (one
uniform guess among the rooms the words fit, everything else perfect): both are strong baselines, so an agent
below them is not "below chance". Reports, figures and the glossary take the label and the note from here.
"""

from __future__ import annotations

from typing import NamedTuple


class Reference(NamedTuple):
    label: str
    """The column's and the figure's name for the level."""
    note: str
    """What the level is, in one line."""


REFERENCES: dict[str, Reference] = {
    "decisions": Reference(
        "chance", "the exact expected score of a uniformly random valid answer (what random-valid draws), not sampled"
    ),
    "tabletop": Reference(
        "blind draw",
        "the exact expected score of the blind branch draw: a training branch chosen without the language (a "
        "strong baseline, not chance)",
    ),
    "household": Reference(
        "words-only",
        "the success of one uniform guess among the rooms the words fit, all else perfect (PnP and clear tasks "
        "100%; a strong baseline, not chance); SPL has none",
    ),
}
GENERIC = Reference("reference", "the exact score of an agent that ignores what the suite tests, computed, not sampled")


def reference(suite: str) -> Reference:
    """The reference level of `suite` (a suite of one's own: the generic description)."""
    return REFERENCES.get(suite, GENERIC)
