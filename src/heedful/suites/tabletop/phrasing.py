"""How far a held-out phrasing is from training: token edit distance after synonym normalisation.

RoboFollow's L2 asks for "novel semantic recombinations" and logically equivalent rewrites, not the
training sentence with one word swapped. The measure that enforces it here:

1. `normalize` the text (lower case, no punctuation);
2. map every synonym to one canonical word (`canonical_tokens`): "grab", "lift", "pick up" -> "take";
   "little" -> "small"; "into", "inside" -> "in"; "avoid passing over", "without passing over",
   "going around" -> "avoid"; ... so that swapping a synonym costs nothing;
3. count word insertions, deletions and substitutions between the two word lists (`token_distance`).

A held-out (L2, L3) phrasing must be at least `MIN_HELD_OUT_DISTANCE` (2) words from its nearest
training phrasing: a synonym swap scores 0 and a single changed word 1, so neither is enough.
Example: "Pick up the little red cube." -> "take the small red cube"; against the training "Grab the small
red cube." (-> "take the small red cube") its distance is 0, so it is rejected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from heedful.suites.tabletop.language import normalize

MIN_HELD_OUT_DISTANCE = 2

# Phrase synonyms, longest first, applied left to right over the word list (first match wins).
SYNONYM_PHRASES: tuple[tuple[tuple[str, ...], str], ...] = tuple(
    sorted(
        (
            (tuple(phrase.split()), canonical)
            for canonical, phrases in {
                "take": ("pick up", "pick", "grab", "lift", "raise", "take", "get"),
                "put": ("put", "place", "move", "drop", "set", "carry", "bring"),
                "on": ("on top of", "onto", "on"),
                "in": ("into", "inside", "in"),
                "push": ("push", "slide", "shove"),
                "beside": ("next to", "beside"),
                "small": ("small", "little"),
                "large": ("large", "big"),
                "larger": ("larger", "bigger"),
                "ball": ("ball", "sphere"),
                "cube": ("cube", "block"),
                "bar": ("bar", "slab"),
                "avoid": (
                    "avoid passing over",
                    "avoiding passing over",
                    "without passing over",
                    "going around",
                    "go around",
                    "avoid",
                ),
                "via": ("passing over", "pass over", "crossing over", "cross over"),
                "else": ("otherwise", "else", "if not"),
                "forward": ("away from you", "forward"),
                "backward": ("toward you", "towards you", "backward"),
                "finish": ("finish", "leave", "leaving"),
            }.items()
            for phrase in phrases
        ),
        key=lambda item: -len(item[0]),
    )
)


_BY_FIRST_WORD: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _phrase, _canonical in SYNONYM_PHRASES:
    _BY_FIRST_WORD.setdefault(_phrase[0], []).append((_phrase, _canonical))


@lru_cache(maxsize=4096)
def canonical_tokens(text: str) -> tuple[str, ...]:
    """The words of `text` with every synonym replaced by its canonical word."""
    words = normalize(text).split()
    out: list[str] = []
    i = 0
    while i < len(words):
        for phrase, canonical in _BY_FIRST_WORD.get(words[i], ()):
            if tuple(words[i : i + len(phrase)]) == phrase:
                out.append(canonical)
                i += len(phrase)
                break
        else:
            out.append(words[i])
            i += 1
    return tuple(out)


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two word sequences (insert, delete, substitute cost 1)."""
    previous = list(range(len(b) + 1))
    for i, word in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != other)))
        previous = current
    return previous[-1]


def token_distance(text: str, other: str) -> int:
    """Words to change between two instructions once synonyms are normalised (0: a synonym swap)."""
    return edit_distance(canonical_tokens(text), canonical_tokens(other))


def nearest(text: str, phrasings: Iterable[tuple[str, str]]) -> tuple[str, str, int]:
    """The (key, phrasing, distance) of the phrasing nearest to `text`; ties go to the first listed.

    Raises:
        ValueError: `phrasings` is empty.
    """
    tokens = canonical_tokens(text)
    best: tuple[str, str, int] | None = None
    for key, phrasing in phrasings:
        d = edit_distance(tokens, canonical_tokens(phrasing))
        if best is None or d < best[2]:
            best = (key, phrasing, d)
    if best is None:
        raise ValueError("no phrasings to compare with")
    return best
