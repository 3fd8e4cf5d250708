"""Statelessness, checked: replay episodes on a fresh agent in another order and compare the answers.

Agents must keep no state from one episode to the next: a decisions agent that remembers its answers within a
family (copying base's answer to preserve, forcing change to differ) would earn family metrics without reading
the instructions. The runner hides which episodes belong together (an opaque token instead of the id, a seeded
shuffle instead of the dataset's order), and this module tests what hiding cannot guarantee: an agent whose
answer to an episode depends on what it saw before answers differently when the same episodes come in another
order on a fresh copy of it. `heedful check agent` replays its sample that way; `heedful run --audit-stateless K`
replays K episodes of a real run after it finished and records the outcome in the manifest, which every report
then flags ("stateful: ...") when any answer differs.

An answer is the record's status, raw output and parsed prediction: not its timing or usage (a cached model
reply costs nothing the second time) and not its video path.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from heedful.records import Record
from heedful.seeding import derive_rng

if TYPE_CHECKING:  # annotations only: the manifest imports this module
    from heedful.runner.manifest import RunSpec
    from heedful.suites.base import Episode, Suite

AUDIT_STREAM = "stateless-audit"
"""The name the replay's randomness (which episodes, in which order) is derived under, from the run seed."""

MAX_NAMED = 10
"""Episodes a differing audit names in the manifest (it counts them all)."""


class StatelessAudit(BaseModel):
    """What `--audit-stateless K` found: K episodes replayed on a fresh agent in another order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    replayed: int = Field(description="Episodes replayed (K, or fewer when the run scored fewer).")
    differing: int = Field(description="How many of them got another answer on replay.")
    examples: list[str] = Field(default_factory=list, description=f"Up to {MAX_NAMED} differing episodes and how.")

    @property
    def flag(self) -> str | None:
        """The report flag of a failed audit, or None."""
        if not self.differing:
            return None
        return (
            f"stateful: {self.differing} of {self.replayed} answers changed when replayed on a fresh agent in "
            "another order (--audit-stateless)"
        )


def combined_audit(audits: Sequence[StatelessAudit | None]) -> StatelessAudit | None:
    """The audits of a run's shards as one (`heedful merge`): replays and differences summed; None if none ran."""
    ran = [a for a in audits if a is not None]
    if not ran:
        return None
    examples = [e for a in ran for e in a.examples][:MAX_NAMED]
    return StatelessAudit(
        replayed=sum(a.replayed for a in ran), differing=sum(a.differing for a in ran), examples=examples
    )


def answer(record: Record) -> str:
    """What a replay must reproduce: status, raw output and parsed prediction (no timing, usage or video)."""
    prediction = record.prediction
    if isinstance(prediction, dict):
        prediction = {k: v for k, v in prediction.items() if k != "video"}
    return json.dumps([record.status.value, record.raw_output, prediction], sort_keys=True, default=str)


def replay_order(n: int, seed: int) -> list[int]:
    """A seeded order of n positions that starts with the last one (then the others shuffled), so a fresh agent
    never starts where the original order did, nor next to it (a decisions base and its preserve share their gold:
    an agent that repeats its first answer would pass a replay that starts one episode later)."""
    rest = [int(i) for i in derive_rng(seed, AUDIT_STREAM, "order").permutation(n - 1)] if n > 1 else []
    return [n - 1, *rest] if n else []


def differences(stored: Sequence[Record], replayed: Sequence[Record]) -> list[str]:
    """Episode by episode (matched by id), how a replayed answer differs from the stored one."""
    by_id = {r.episode_id: r for r in replayed}
    found = []
    for record in stored:
        again = by_id.get(record.episode_id)
        if again is None:
            found.append(f"{record.episode_id}: not replayed")
        elif answer(again) != answer(record):
            found.append(f"{record.episode_id}: {_short(record)} in the run, {_short(again)} on replay")
    return found


def _short(record: Record) -> str:
    text = record.raw_output if record.raw_output is not None else f"({record.status.value})"
    return repr(text if len(text) <= 60 else text[:57] + "...")


def audit_sample(records: Sequence[Record], k: int, seed: int) -> list[Record]:
    """K of a run's scored records, drawn with the run seed (the same K whatever the backend)."""
    scored = sorted((r for r in records if r.status.scored), key=lambda r: r.index)
    if k >= len(scored):
        return scored
    chosen = derive_rng(seed, AUDIT_STREAM, "sample").choice(len(scored), size=k, replace=False)
    return [scored[int(i)] for i in sorted(chosen)]


def audit(
    spec: RunSpec, suite: Suite, stored: Sequence[Record], episodes: Sequence[Episode], train: Sequence[Episode], k: int
) -> StatelessAudit:
    """Replay `k` of the `stored` records' episodes on a fresh agent (built from `spec`, fitted on `train`), in
    another order, serially, and compare the answers.

    Args:
        spec: The run's RunSpec (agent, arguments, seed, options: each episode gets the run's derived seed).
        suite: The run's suite.
        stored: The run's records.
        episodes: The run's episodes (the dataset whose positions the records' `index` gives).
        train: What a fittable agent fits on.
        k: How many episodes to replay.
    """
    from heedful.agents.registry import make_agent
    from heedful.capabilities import capabilities
    from heedful.runner.episode import fit_agent, rollout_one

    sample = audit_sample(stored, k, spec.seed)
    agent = make_agent(spec.agent, spec.agent_args, suite=spec.suite)
    try:
        fit_agent(agent, train)
        replayed = []
        for position in replay_order(len(sample), spec.seed):
            index = sample[position].index  # the episode's dataset position, as the run rolled it out
            replayed.append(rollout_one(suite, agent, episodes[index], index, spec))
    finally:
        close = capabilities(agent).close
        if close is not None:
            close()
    found = differences(sample, replayed)
    return StatelessAudit(replayed=len(sample), differing=len(found), examples=found[:MAX_NAMED])
