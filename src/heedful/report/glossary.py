"""`heedful report --explain`: what every column, mark and metric of a report means.

The general terms are the same for every suite; each suite adds its metrics (from its metric spec, so the
glossary cannot drift from what the report computes) and its own terms (`Suite.glossary`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

GENERAL: tuple[tuple[str, str], ...] = (
    ("value", "the point estimate, in % (a share of units; tabletop: the task-macro mean of per-trial scores)"),
    (
        "95% CI",
        "percentile bootstrap interval: the units named in the header line (decisions families or anchors, household "
        "episodes, tabletop tasks) are resampled with replacement 10,000 times (--resamples); every metric of a group "
        "uses the same resamples",
    ),
    (
        "*",
        "a collapsed bootstrap interval ([100.0, 100.0], [50.0, 50.0]): every resample gave the same value because "
        "every unit scored alike. It is not certainty: read the Wilson interval beside it",
    ),
    (
        "Wilson 95%",
        "the Wilson score interval of k successes in n units taken as independent (tabletop: trials, for the "
        "0/1 rates); it stays informative where the bootstrap collapses, and is too narrow where units cluster",
    ),
    (
        "chance",
        "decisions only: the exact expected score of a uniformly random valid answer (what random-valid draws), "
        "computed from the episodes, not sampled. A score near it is no evidence of instruction following",
    ),
    (
        "blind draw",
        "tabletop's reference level (the `blind draw` column and the `blind ...` rows of Table 1): the exact "
        "expected score of drawing a training branch without reading the instruction. A strong baseline, not "
        "chance: a random policy or a broken model scores far below it",
    ),
    (
        "words-only",
        "household's reference level: the success of one uniform guess among the rooms the words fit with all else "
        "perfect, an upper bound for an agent that ignores the human. A strong baseline, not chance",
    ),
    ("k/n", "successes and units behind a value; n alone where the value is a mean"),
    (
        "status",
        "records by how the episode ended: ok and parse_error are scored (a parse error counts as wrong, never "
        "guessed); interface_error, timeout and crashed are failures of the transport or the harness, counted "
        "apart and rerun by --resume",
    ),
    (
        "partial",
        "the run stopped before its plan (killed, interrupted, a budget): 'partial: N of M planned'; "
        "continue it with the same command and --resume",
    ),
    (
        "--limit",
        "'a sample of N of M episodes, stratified by ...': a seeded sample spread over the suite's groups; "
        "numbers from it estimate the whole benchmark with the wider intervals a smaller n gives",
    ),
)


def explain(suites: Sequence[Any], width: int = 100) -> str:
    """The glossary: the general terms, then each suite's metrics and terms."""
    lines = ["Reading a heedful report", ""]
    lines += _entries(GENERAL, width)
    for suite in suites:
        lines += ["", f"{suite.name}: metrics (heedful report rows; lower is better where marked)"]
        metrics = [
            (m.name, m.description + ("" if m.higher_is_better else " (lower is better)")) for m in suite.metric_spec
        ]
        lines += _entries(metrics, width)
        if suite.glossary:
            lines += ["", f"{suite.name}: terms"]
            lines += _entries(suite.glossary, width)
    return "\n".join(lines)


def _entries(entries: Sequence[tuple[str, str]], width: int) -> list[str]:
    out = []
    for term, text in entries:
        body = textwrap.wrap(text, width=width - 18) or [""]
        out.append(f"  {term:<15} {body[0]}")
        out += [" " * 18 + line for line in body[1:]]
    return out
