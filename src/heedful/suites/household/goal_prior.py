"""Is the goal room predictable from geometry? Rules and a fitted prior against uniform chance (issue 40).

On an ambiguous S_obj or S_hum task the words leave several fitting rooms (`candidate_rooms`); which one is
the goal must come from the human's motion, not from where the rooms lie. This diagnostic measures how well
an agent that knows only what it knows at the start of the task phase, without the human's motion (the
premapped floor plan, its own start, where it first saw the human: the S_hum human's start, the S_obj pickup),
picks the goal among the fitting rooms:

- four rules: the `nearest` fitting room to the agent's start (path distance), the `farthest`, the `largest`
  (floor area) and the one `farthest from the human` (path distance from where the human was first seen);
- a conditional-logit `prior` over those geometric features, fitted by maximum likelihood on the val splits
  and scored on the test splits (top-1: its most likely room).

Each is compared with uniform chance among the fitting rooms (mean of 1/k), and with the range a generator
whose goal is uniform given all of this would produce on the same episodes (2.5-97.5% quantiles of the
Poisson-binomial count with p_i = 1/k_i): a rule outside that range shows a bias, one inside it shows none
that these episodes can detect. Ties in a rule go to the lowest room number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from heedful.sims.household.fields import sample_point
from heedful.sims.household.grid import grid_for
from heedful.suites.household.executors import entry_fields
from heedful.suites.household.model import HouseholdEpisode

RULES = ("nearest", "farthest", "largest", "farthest_from_human")
FEATURES = ("distance from start", "distance from human", "area", "nearest", "farthest from human")
L2 = 0.05
"""Ridge penalty of the fitted prior (per standardized feature), so that a separable val set stays finite."""


@dataclass(frozen=True)
class Candidates:
    """One ambiguous task: its fitting rooms, the goal's position among them and their geometric features."""

    episode_id: str
    split: str
    task_type: str
    rooms: tuple[int, ...]
    goal: int
    """Index of the goal room in `rooms`."""
    features: NDArray[np.float64]
    """One row per fitting room, columns as `FEATURES`."""


@dataclass(frozen=True)
class PriorRow:
    task_type: str
    tasks: str
    """Which ambiguous tasks were scored: "test" (the prior is fitted on val) or "val+test" (rules only)."""
    predictor: str
    n: int
    top1: float
    chance: float
    low: float
    high: float
    """2.5-97.5% range of top-1 for a generator whose goal is uniform among the fitting rooms."""


def goal_room(episode: HouseholdEpisode) -> int:
    """The room the ambiguous words stand for: where the object went (S_obj) or where the human goes (S_hum)."""
    if episode.task_type == "s_hum":
        return int(episode.human.destination_room if episode.human.destination_room is not None else -1)
    target = next(r for r in episode.relocations if r.category == episode.target_category)
    return episode.house.receptacle(target.to_receptacle).room


def human_first_seen(episode: HouseholdEpisode) -> tuple[float, float]:
    """Where the agent first sees the human: the S_obj pickup, else the human's start."""
    return episode.human.carried_from or episode.human.start


def candidates(episode: HouseholdEpisode) -> Candidates:
    """The fitting rooms of an ambiguous task with their features (path distances on the premapped plan)."""
    grid = grid_for(episode.house, episode.cell_m)
    fields = entry_fields(grid, episode.house)
    rooms = tuple(episode.candidate_rooms)
    sx, sy, _ = episode.agent_start
    hx, hy = human_first_seen(episode)
    from_start = np.array([sample_point(grid, fields[r], sx, sy) for r in rooms])
    from_human = np.array([sample_point(grid, fields[r], hx, hy) for r in rooms])
    area = np.array([episode.house.rooms[r].rect.area for r in rooms])
    nearest = (from_start == from_start.min()).astype(float)
    farthest_human = (from_human == from_human.max()).astype(float)
    features = np.stack([from_start, from_human, area, nearest, farthest_human], axis=1)
    return Candidates(
        episode.episode_id, episode.split, episode.task_type, rooms, rooms.index(goal_room(episode)), features
    )


def rule_pick(rule: str, c: Candidates) -> int:
    """The index (in `c.rooms`) a rule picks; the first room on ties."""
    column = {"nearest": 0, "farthest": 0, "largest": 2, "farthest_from_human": 1}[rule]
    values = c.features[:, column]
    return int(np.argmin(values)) if rule == "nearest" else int(np.argmax(values))


@dataclass(frozen=True)
class LogitPrior:
    """A conditional-logit model: P(room) proportional to exp(w . standardized features)."""

    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    weights: NDArray[np.float64]

    def scores(self, c: Candidates) -> NDArray[np.float64]:
        return np.asarray(((c.features - self.mean) / self.scale) @ self.weights)

    def pick(self, c: Candidates) -> int:
        return int(np.argmax(self.scores(c)))


def fit_prior(train: Sequence[Candidates], l2: float = L2, iterations: int = 200) -> LogitPrior:
    """Maximum-likelihood conditional logit (Newton's method with a ridge penalty) on `train`."""
    stacked = np.concatenate([c.features for c in train])
    mean, scale = stacked.mean(axis=0), stacked.std(axis=0)
    scale[scale == 0] = 1.0
    xs = [(c.features - mean) / scale for c in train]
    w = np.zeros(stacked.shape[1])
    for _ in range(iterations):
        grad = -l2 * w
        hess = -l2 * np.eye(len(w))
        for x, c in zip(xs, train, strict=True):
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            expected = p @ x
            grad += x[c.goal] - expected
            hess -= (x * p[:, None]).T @ x - np.outer(expected, expected)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return LogitPrior(mean, scale, w)


def uniform_range(ks: Sequence[int], quantiles: tuple[float, float] = (0.025, 0.975)) -> tuple[float, float]:
    """Quantiles of the top-1 rate of any fixed pick when each goal is uniform among its k_i rooms."""
    counts = np.zeros(1)
    counts[0] = 1.0
    for k in ks:  # Poisson-binomial by convolution
        p = 1.0 / k
        counts = np.convolve(counts, [1 - p, p])
    cdf = np.cumsum(counts)
    n = len(ks)
    low = int(np.searchsorted(cdf, quantiles[0]))
    high = int(np.searchsorted(cdf, quantiles[1]))
    return low / n, high / n


def prior_table(episodes: Sequence[HouseholdEpisode]) -> list[PriorRow]:
    """Top-1 of each rule and of the val-fitted prior on the ambiguous test tasks, per task type; then the rules
    on the val and test tasks together (twice the tasks, so a narrower uniform range)."""
    ambiguous = [candidates(ep) for ep in episodes if ep.ambiguous]
    rows = []
    for task_type in ("s_obj", "s_hum"):
        of_type = [c for c in ambiguous if c.task_type == task_type]
        val = [c for c in of_type if c.split.startswith("val")]
        test = [c for c in of_type if c.split.startswith("test")]
        if not val or not test:
            continue
        picks = {rule: [rule_pick(rule, c) for c in test] for rule in RULES}
        prior = fit_prior(val)
        picks["prior"] = [prior.pick(c) for c in test]
        rows += _rows(task_type, "test", test, picks)
        rows += _rows(task_type, "val+test", of_type, {rule: [rule_pick(rule, c) for c in of_type] for rule in RULES})
    return rows


def _rows(task_type: str, tasks: str, scored: Sequence[Candidates], picks: dict[str, list[int]]) -> list[PriorRow]:
    ks = [len(c.rooms) for c in scored]
    chance = float(np.mean([1.0 / k for k in ks]))
    low, high = uniform_range(ks)
    rows = []
    for name, chosen in picks.items():
        top1 = float(np.mean([pick == c.goal for pick, c in zip(chosen, scored, strict=True)]))
        rows.append(PriorRow(task_type, tasks, name, len(scored), top1, chance, low, high))
    return rows


def render_prior_table(rows: Sequence[PriorRow], title: str) -> str:
    lines = [
        title,
        f"  {'type':6} {'tasks':8} {'predictor':20} {'n':>3} {'top-1':>7} {'chance':>7} {'diff':>6}"
        "   uniform 95% range",
    ]
    for r in rows:
        diff = 100 * (r.top1 - r.chance)
        lines.append(
            f"  {r.task_type:6} {r.tasks:8} {r.predictor:20} {r.n:3d} {100 * r.top1:6.1f}% {100 * r.chance:6.1f}%"
            f" {diff:+6.1f}   [{100 * r.low:.1f}, {100 * r.high:.1f}]"
        )
    return "\n".join(lines)


def draft_candidates(
    episodes: Sequence[HouseholdEpisode], task_type: str, per_house: int, seed: int
) -> list[Candidates]:
    """Many ambiguous drafts of `task_type` in the houses of `episodes` (their premaps), without the oracle filter:
    a larger sample of the goal draw than a dataset holds (its only later filter, the oracle's, is left out)."""
    from heedful.seeding import derive_rng
    from heedful.sims.household.house import reachable_floor
    from heedful.suites.household.sampling import sample_draft
    from heedful.suites.household.tasks import HouseContext, TaskRejectedError, room_facts

    houses = {ep.house_id: ep for ep in episodes}
    found = []
    for house_id, ep in sorted(houses.items()):
        grid = grid_for(ep.house, ep.cell_m)
        ctx = HouseContext(ep.house, grid, ep.premap, room_facts(ep.house), reachable_floor(grid))
        for k in range(per_house):
            try:
                draft = sample_draft(ctx, task_type, True, derive_rng(seed, "goal-prior", house_id, task_type, k))
            except TaskRejectedError:
                continue
            as_episode = ep.model_copy(
                update={
                    "episode_id": f"draft-{house_id}-{k}",
                    "task_type": task_type,
                    "ambiguous": True,
                    "candidate_rooms": draft.candidate_rooms,
                    "relocations": draft.relocations,
                    "agent_start": draft.agent_start,
                    "human": draft.human,
                    "target_category": draft.target_category,
                }
            )
            found.append(candidates(as_episode))
    return found


def rule_rows(found: Sequence[Candidates], task_type: str, tasks: str) -> list[PriorRow]:
    """The rules' top-1 on `found` (no prior: there is no val split to fit it on)."""
    return _rows(task_type, tasks, found, {rule: [rule_pick(rule, c) for c in found] for rule in RULES})
