"""The decisions suite's validity-control audit: every control on one dataset, as a Markdown table.

    python -m heedful.agents.decisions_audit                      # the default dataset (seed 0), in memory
    python -m heedful.agents.decisions_audit --dataset data/d --out audit.md --json audit.json --check

Rows: oracle, random-valid, majority, lexical, unnamed-member and order-of-mention on every episode; the keyword
readers of `decisions_keywords` (count-rank and keyword-full on the test split, keyword-train on test and
in-sample on train); `bow` on
the test split, with `--mask` on the test split, and in-sample on the train split (fitted on the train split
each time). Columns: accuracy, pair success, decision sensitivity, over-invariance and family success, overall,
per category and per category/subtype. Episodes run through the suite's own rollout (prompt, strict parsing,
scoring) exactly as in `heedful run`.

A healthy benchmark (issue 13): no shallow control above 50% family success in any category, and bow's
held-out family success far below its in-sample score. `--check` exits with status 1 when either fails
(bow's test score counts as far below when it is under half its train score).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heedful.agents.registry import make_agent
from heedful.capabilities import capabilities
from heedful.records import Record
from heedful.seeding import derive_seed
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.metrics import decision_metrics
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.suite import SUITE

COLUMNS = ("accuracy", "pair_success", "decision_sensitivity", "over_invariance", "family_success")
SHALLOW = (
    "lexical",
    "unnamed-member",
    "order-of-mention",
    "bow (test)",
    "bow --mask (test)",
    "count-rank (test)",
    "keyword-train (test)",
)
FAMILY_SUCCESS_LIMIT = 0.5
HELD_OUT_RATIO_LIMIT = 0.5


@dataclass(frozen=True)
class Control:
    """One row block of the table: an agent, its arguments, the split it runs on and whether it is masked."""

    label: str
    agent: str
    split: str = "all"
    mask: bool = False
    args: dict[str, Any] = field(default_factory=dict)


CONTROLS = (
    Control("oracle", "oracle"),
    Control("random-valid", "random-valid"),
    Control("majority", "majority"),
    Control("lexical", "lexical"),
    Control("unnamed-member", "unnamed-member"),
    Control("order-of-mention", "order-of-mention"),
    Control("bow (test)", "bow", split="test"),
    Control("bow --mask (test)", "bow", split="test", mask=True),
    Control("bow (train, in-sample)", "bow", split="train", args={"in_sample": True}),
    Control("count-rank (test)", "count-rank", split="test"),
    Control("keyword-train (test)", "keyword-train", split="test"),
    Control("keyword-train (train, in-sample)", "keyword-train", split="train"),
    Control("keyword-full (test)", "keyword-full", split="test"),
)


def run_control(control: Control, episodes: Sequence[DecisionEpisode], seed: int) -> list[Record]:
    """Fit the control on the train split when it learns, then roll out its split's episodes."""
    agent = make_agent(control.agent, control.args, suite="decisions")
    chosen = [ep for ep in episodes if control.split in ("all", ep.split)]
    train = SUITE.training_episodes(episodes)
    declared = capabilities(agent)
    if declared.fit is not None:
        if declared.check_training is not None:
            declared.check_training(train, chosen)
        declared.fit(train)
    options = {"mask": control.mask}
    return [
        SUITE.rollout_episode(
            ep, agent, RolloutContext(derive_seed(seed, ep.episode_id), index=i, options=options, run_seed=seed)
        )
        for i, ep in enumerate(chosen)
    ]


def metric_values(records: Sequence[Record]) -> dict[str, dict[str, float | None]]:
    """{group: {metric: value}} for "all", every category and every category/subtype."""
    rows = decision_metrics(records, resamples=1)
    groups = {"all"} | {g for g in (r.group for r in rows) if g.startswith("category:")}
    out = {g.removeprefix("category:"): {r.metric: r.value for r in rows if r.group == g} for g in sorted(groups)}
    for subtype in sorted({f"{r.keys['category']}/{r.keys['subtype']}" for r in records}):
        part = [r for r in records if f"{r.keys['category']}/{r.keys['subtype']}" == subtype]
        out[subtype] = {r.metric: r.value for r in decision_metrics(part, resamples=1) if r.group == "all"}
    return out


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def markdown_table(results: dict[str, dict[str, dict[str, float | None]]]) -> str:
    """One row per (control, group), values in %."""
    lines = [
        "| control | group | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " |",
        "|---|---|" + "---:|" * len(COLUMNS),
    ]
    for label, groups in results.items():
        for group, values in groups.items():
            cells = " | ".join(_percent(values.get(c)) for c in COLUMNS)
            lines.append(f"| {label} | {group} | {cells} |")
    return "\n".join(lines)


def verdict(results: dict[str, dict[str, dict[str, float | None]]]) -> tuple[list[str], bool]:
    """The healthy-benchmark checks as lines of text, and whether they all pass."""
    lines, healthy = [], True
    for label in SHALLOW:
        for group, values in results.get(label, {}).items():
            score = values.get("family_success")
            if "/" not in group and group != "all" and score is not None and score > FAMILY_SUCCESS_LIMIT:
                lines.append(f"- FAIL: {label} reaches {_percent(score)}% family success on {group} (limit 50%)")
                healthy = False
    test = results.get("bow (test)", {}).get("all", {}).get("family_success")
    train = results.get("bow (train, in-sample)", {}).get("all", {}).get("family_success")
    if test is not None and train is not None:
        ok = test < HELD_OUT_RATIO_LIMIT * train
        healthy &= ok
        lines.append(
            f"- {'ok' if ok else 'FAIL'}: bow family success {_percent(test)}% on the test split vs "
            f"{_percent(train)}% in-sample (held out counts as far below under half the in-sample score)"
        )
    if healthy:
        lines.insert(0, "- ok: no shallow control above 50% family success in any category")
    return lines, healthy


def audit(
    episodes: Sequence[DecisionEpisode], seed: int = 0, progress: Callable[[str], object] | None = None
) -> dict[str, dict[str, dict[str, float | None]]]:
    """{control label: {group: {metric: value}}} for every control in CONTROLS (`progress` hears each label)."""
    results = {}
    for control in CONTROLS:
        if progress is not None:
            progress(control.label)
        results[control.label] = metric_values(run_control(control, episodes, seed))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m heedful.agents.decisions_audit",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Healthy: no shallow control above 50% family success in any category; bow held out far "
        "below bow in-sample.",
    )
    parser.add_argument("--dataset", type=Path, help="dataset directory (default: generate the default one)")
    parser.add_argument("--seed", type=int, default=0, help="generation seed without --dataset, and run seed")
    parser.add_argument("--out", type=Path, help="also write the Markdown table and verdict here")
    parser.add_argument("--json", type=Path, help="also write every value as JSON here")
    parser.add_argument("--check", action="store_true", help="exit 1 when the benchmark is not healthy")
    args = parser.parse_args(argv)
    episodes = SUITE.load_dataset(args.dataset) if args.dataset else SUITE.generate(args.seed)
    results = audit(episodes, args.seed, lambda label: print(f"audit: {label} ...", file=sys.stderr, flush=True))
    lines, healthy = verdict(results)
    source = str(args.dataset) if args.dataset else f"generated, seed {args.seed}"
    text = f"Validity controls on {source} ({SUITE.dataset_hash(episodes)}), values in %\n\n"
    text += markdown_table(results) + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 1 if args.check and not healthy else 0


if __name__ == "__main__":
    raise SystemExit(main())
