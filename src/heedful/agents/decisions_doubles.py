"""Red-team doubles for the decisions harness: agents that would earn credit through the harness, not the language.

- `PrivilegedReader` reads the constraint set (`privileged_task`) and answers the solver's solution, without
  declaring `privileged`. The rollout hands the constraint set only to declared agents, so it gets None and falls
  back to the first candidate; `DeclaredPrivilegedReader` declares it, solves everything, and every report marks
  its run "privileged: not a language agent".
- `FamilyMemory` wraps a reader (`bow` by default, any decisions agent by `inner`) and remembers its answers within
  a family: preserve copies base's answer, change_preserve copies change's, and change is forced to differ from
  base. It finds the family from the observation's id (`obj-19-f03-change_preserve`) or, when the id is opaque,
  from adjacency (the dataset's order puts a family's four instances in a row). Given the real ids in dataset
  order it lifts the family metrics of the reader it wraps; the runner now gives an opaque token and a shuffled
  order, and `heedful run --audit-stateless K` (or `heedful check agent`) catches its memory.

- `IdInverter` is `FamilyMemory` that recovers the real id from the observation's seed or token: it hashes every
  id the dataset's naming scheme allows (`obj-01-f01-base`, ...: no dataset needed) under the first run seeds, as
  the harness derived episode seeds from them. Agents now see a seed derived from the run seed and what they are
  shown (`decisions.observation.shown_seed`), so it finds nothing and falls back to FamilyMemory's guess.

Run them with `--agent heedful.agents.decisions_doubles:FamilyMemory [--agent-arg inner=lexical]`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from heedful.agents.base import AgentReply
from heedful.capabilities import capabilities
from heedful.errors import ConfigError
from heedful.protocols import DecisionAgent
from heedful.replies import as_reply
from heedful.seeding import derive_seed, episode_token
from heedful.suites.decisions.answers import parse_answer
from heedful.suites.decisions.model import Decision
from heedful.suites.decisions.observation import DecisionObservation
from heedful.suites.decisions.solver import solve

ROLES = ("base", "preserve", "change", "change_preserve")
_ROLE_ID = re.compile(r"^(?P<family>.+)-(?P<role>base|preserve|change_preserve|change)$")


def _reply(decision: Decision) -> AgentReply:
    return AgentReply(text=json.dumps({"decision": decision}))


def _first(observation: DecisionObservation) -> Decision:
    first = observation.candidate_ids[0]
    return first if observation.decision_type == "single" else [first]


class PrivilegedReader:
    """Red-team double: solves the constraint set when it is handed one, else answers the first candidate."""

    name = "double-privileged-reader"

    def decide(self, observation: DecisionObservation) -> AgentReply:
        task, candidates = observation.privileged_task, observation.privileged_candidates
        if task is None or candidates is None:
            return _reply(_first(observation))
        return _reply(solve(candidates, task)[0])

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "the constraint set when handed one (a test double)"}


class DeclaredPrivilegedReader(PrivilegedReader):
    """The same reader, declared: handed the constraint set, and marked in every report."""

    name = "double-declared-privileged-reader"
    privileged = True


class FamilyMemory:
    """Red-team double: `inner`'s answers, remembered within a family (see the module docstring).

    Args:
        inner: A decisions agent's registry name (default `bow`).
        **inner_args: Its arguments.
    """

    name = "double-family-memory"

    def __init__(self, inner: str = "bow", **inner_args: Any) -> None:
        from heedful.agents.registry import make_agent

        self.inner_name = inner
        built = make_agent(inner, inner_args, suite="decisions")
        if not isinstance(built, DecisionAgent):
            raise ConfigError(f"double-family-memory wraps a decisions agent (one that decides); {inner!r} is not one")
        self.inner: DecisionAgent = built
        self.memory: dict[str, dict[str, Decision]] = {}
        self.seen = 0

    def fit(self, train: Sequence[Any]) -> None:
        fit = capabilities(self.inner).fit
        if fit is not None:
            fit(train)

    def check_training(self, train: Sequence[Any], evaluation: Sequence[Any]) -> None:
        check = capabilities(self.inner).check_training
        if check is not None:
            check(train, evaluation)

    def family_and_role(self, episode_id: str) -> tuple[str, str]:
        """The family and role an id spells out; for an opaque id, those of the dataset's order (blocks of four)."""
        found = _ROLE_ID.match(episode_id)
        if found:
            return found["family"], found["role"]
        block, position = divmod(self.seen, len(ROLES))
        return f"block-{block}", ROLES[position]

    def decide(self, observation: DecisionObservation) -> AgentReply:
        family, role = self.family_and_role(observation.episode_id)
        self.seen += 1
        reply = as_reply(self.inner.decide(observation))
        parsed = parse_answer(reply.text, observation.decision_type, observation.candidate_ids)
        if not parsed.ok or parsed.decision is None:
            return reply
        remembered = self.memory.setdefault(family, {})
        answer = parsed.decision
        if role == "preserve" and "base" in remembered:
            answer = remembered["base"]
        elif role == "change_preserve" and "change" in remembered:
            answer = remembered["change"]
        elif role == "change" and remembered.get("base") == answer:
            answer = _another(answer, observation.decision_type, observation.candidate_ids)
        remembered[role] = answer
        return _reply(answer)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "inner": self.inner_name, "reads": "its own earlier answers (a test double)"}


def guessable_ids(anchors: int = 99, families: int = 20) -> list[str]:
    """Every episode id the default naming scheme allows up to the given counts (a superset of the dataset's)."""
    kinds = [f"{kind}-{a:02d}" for kind in ("obj", "act") for a in range(1, anchors + 1)]
    slots = [f"f{f:02d}" for f in range(1, families + 1)] + ["m01"]
    return [f"{anchor}-{slot}-{role}" for anchor in kinds for slot in slots for role in ROLES]


class IdInverter(FamilyMemory):
    """Red-team double: FamilyMemory that first looks the observation's seed and token up among the seeds and
    tokens the harness derived from (run seed, episode id) for every guessable id and run seeds 0..`seeds`-1."""

    name = "double-id-inverter"

    def __init__(self, inner: str = "bow", seeds: int = 4, **inner_args: Any) -> None:
        super().__init__(inner, **inner_args)
        self.table: dict[str | int, str] = {}
        for run_seed in range(int(seeds)):
            for episode_id in guessable_ids():
                derived = derive_seed(run_seed, episode_id)
                self.table[derived] = self.table[episode_token(derived)] = episode_id
        self.found = 0

    def decide(self, observation: DecisionObservation) -> AgentReply:
        real = self.table.get(observation.seed) or self.table.get(observation.episode_id)
        if real is None:
            return super().decide(observation)
        self.found += 1
        return super().decide(dataclasses.replace(observation, episode_id=real))


def _another(decision: Decision, decision_type: str, ids: Sequence[str]) -> Decision:
    """A well-formed decision of `decision_type` other than `decision`, over the same candidates."""
    if isinstance(decision, str):
        return ids[(list(ids).index(decision) + 1) % len(ids)]
    if len(decision) > 1:
        return list(reversed(decision)) if decision_type == "sequence" else decision[:-1]
    others = [i for i in ids if i not in decision]
    return [others[0]] if others else list(decision)
