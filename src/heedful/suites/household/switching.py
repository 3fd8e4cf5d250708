"""Mid-episode re-instruction of a household episode (`--reinstruct`, see `heedful.language.reinstruct`).

The new task is another task of the same house (the substitute `--instruction other` would show, see
`heedful.suites.household.arms.with_others`): its words, target category and goal; the house, the objects where they
are, the human and what it said stay the episode's. The switch comes at a decision point (before a tool call):

- `at=FRACTION`: once the simulator has used S = max(1, floor(FRACTION x the task's oracle steps)) steps;
- `after-first-choice`: once the agent's first tool call has been executed;

and, under either rule, when the agent answers Done before it: the Done is not executed, the agent is asked again with
the new words. From then on the agent's observation (and a privileged agent's episode state) carries the new task.

Scores: the new task succeeds when its goal is met at the end and was not met at the switch (the S_hum over-following
rule applies as usual); an episode whose switch never came (the step or call limit came first) scores 0. Beside it:
`old_done_at_switch` (the old goal met at the switch) and `kept_old_task` (met at the end, not at the switch). A
re-instructed record has no SPL: the new task has no oracle path from the switch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from heedful.language.reinstruct import KEPT_OLD, OLD_DONE, SWITCHED, Reinstruct, parse_reinstruct
from heedful.suites.household.arms import switch_of, switched
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.scoring import EpisodeScore, goal_reached, score


@dataclass
class Switcher:
    """The pending or made switch of one episode."""

    episode: HouseholdEpisode
    new: HouseholdEpisode
    rule: Reinstruct
    step: int | None = None
    old_done: bool = False
    new_done: bool = False

    @classmethod
    def of(cls, episode: HouseholdEpisode, seed: int) -> Switcher | None:
        switch = switch_of(episode)
        if switch is None:
            return None
        rule = parse_reinstruct(switch.rule)
        if rule is None:  # pragma: no cover - a stored switch always names its rule
            return None
        return cls(episode, switched(episode, switch.to, seed), rule)

    @property
    def pending(self) -> bool:
        return self.step is None

    def due(self, env: TaskEnv) -> bool:
        if not self.pending:
            return False
        if self.rule.at is None:
            return len(env.history) >= 1
        return env.sim.step >= max(1, math.floor(self.rule.at * (self.episode.oracle_steps or 0)))

    def make(self, env: TaskEnv) -> None:
        """Switch now: the agent sees the new task from its next observation on."""
        objects = list(env.sim.objects.values())
        self.old_done = goal_reached(self.episode, objects)
        self.new_done = goal_reached(self.new, objects)
        self.step = env.sim.step
        env.episode = self.new

    def scores(self, env: TaskEnv, old: EpisodeScore) -> tuple[EpisodeScore, dict[str, float]]:
        """The new task's score (see the module docstring) and the switch's own scores."""
        new = score(replace(env, episode=self.new))
        met = new.success and self.step is not None and not self.new_done
        reason = new.reason if self.step is not None else "the switch never came"
        if new.success and self.new_done:
            reason = "the new goal was already met at the switch"
        return replace(new, success=met, reason=reason), {
            SWITCHED: float(self.step is not None),
            OLD_DONE: float(self.old_done),
            KEPT_OLD: float(old.success and not self.old_done),
        }
