"""`bow`: a fitted bag-of-words control for the decisions suite (logistic regression, no parser).

Every candidate of a question becomes one example with binary features:

- its values: the colour, shape and size of its object and the verb of an action (read from the candidate
  text and the structured state), alone and crossed with every instruction word;
- its relations to the question: which of its attribute words the instruction uses ("named:color"), how
  many of its text words the instruction shares, and its object's rank from the left, the right, the robot and
  the far side among the candidates; alone and crossed with every instruction word and word pair.

Instruction words are normalised as in `decisions_reading` (lower case, synonyms, singular nouns). Nothing else
is read: no gold, no symbolic task, no template id, no word order beyond adjacent pairs.

Models: logistic regressions fitted by seeded stochastic gradient descent (scikit-learn `SGDClassifier`,
log loss, L2 1e-4, 30 epochs, `random_state=0`) on hashed features (2**20 columns), so a fit is deterministic
and takes seconds on the default train split:

- one membership model per decision type ("is this candidate part of the decision?"): single answers the
  most probable candidate; set and sequence the candidates with p >= 0.5 (the most probable one when none
  reaches it);
- one order model for sequences, fitted on candidate pairs of the gold sequences (feature differences, no
  intercept, so it learns one utility per candidate): the chosen candidates are answered in decreasing
  utility, ties in listed order.

Training data: the train split of the run's dataset (what the runner passes to `fit`), or of the dataset in
`train_dataset=DIR`. The model is fitted on what it is shown: with `--mask` on the masked instructions of the
train split, and in the visual condition (no structured state) without the state's attributes and ranks.
Each variant is fitted on first use and kept for the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import numpy as np

from heedful.agents.base import AgentReply
from heedful.agents.decisions_controls import decision_reply
from heedful.agents.decisions_reading import (
    CLAUSE_BREAKS,
    CandidateView,
    candidate_views,
    canonical,
    content_words,
    raw_tokens,
)
from heedful.errors import ConfigError, MissingDependencyError
from heedful.extras import needs
from heedful.requirements import Requirement
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.observation import DecisionObservation, build_observation

RANK_CAP = 3
"""Ranks beyond the third from either side are one feature value ("3+")."""
OVERLAP_CAP = 4
HASHED_FEATURES = 2**20
ALPHA = 1e-4
"""L2 penalty of the logistic regressions."""
EPOCHS = 30


def instruction_features(instruction: str) -> list[str]:
    """The normalised words and adjacent word pairs of the instruction (punctuation separates pairs)."""
    words = [canonical(t) if t not in CLAUSE_BREAKS else "|" for t in raw_tokens(instruction)]
    unigrams = {f"w:{w}" for w in words if w != "|"}
    bigrams = {f"b:{a}_{b}" for a, b in pairwise(words) if "|" not in (a, b)}
    return sorted(unigrams | bigrams)


def _ranks(views: Sequence[CandidateView], axis: int, name_low: str, name_high: str) -> list[list[str]]:
    """Per candidate, its object's rank along one axis counted from both ends (shared objects share a rank)."""
    values = sorted({v.position[axis] for v in views if v.position is not None})
    out: list[list[str]] = []
    for view in views:
        if view.position is None:
            out.append([])
            continue
        low = values.index(view.position[axis])
        high = len(values) - 1 - low
        out.append([f"{name_low}:{min(low, RANK_CAP)}", f"{name_high}:{min(high, RANK_CAP)}"])
    return out


def candidate_attributes(views: Sequence[CandidateView], instruction: str) -> list[tuple[list[str], list[str]]]:
    """Per candidate: (values, relations) as feature names.

    Values are what the candidate is: its colour, shape, size and verb. Relations are how it stands to the
    instruction and the other candidates: which of its attribute words the instruction uses ("named:color"),
    how many of its text words it shares (capped), and its object's rank from each side of the table.
    """
    words = content_words(instruction)
    by_x = _ranks(views, 0, "from_left", "from_right")
    by_y = _ranks(views, 1, "from_robot", "from_far_side")
    rows = []
    for view, rx, ry in zip(views, by_x, by_y, strict=True):
        fields = dict(view.attrs) | ({"verb": view.verb} if view.verb else {})
        values = [f"{k}:{v}" for k, v in sorted(fields.items())]
        named = [f"named:{k}" for k, v in sorted(fields.items()) if v in words]
        shared = min(len(view.words & words), OVERLAP_CAP)
        rows.append((values, [*named, f"shared_words:{shared}", *rx, *ry]))
    return rows


def question_features(instruction: str, views: Sequence[CandidateView]) -> list[list[str]]:
    """The binary feature names of each candidate: its values and relations alone, its relations crossed with
    every instruction word and word pair, its values crossed with every instruction word."""
    features = instruction_features(instruction)
    unigrams = [f for f in features if f.startswith("w:")]
    rows = []
    for values, relations in candidate_attributes(views, instruction):
        crossed = [f"{w}*{a}" for w in features for a in relations] + [f"{w}*{a}" for w in unigrams for a in values]
        rows.append(values + relations + crossed)
    return rows


@dataclass(frozen=True)
class Question:
    """One training or test question as the model sees it (plus the gold, for training)."""

    decision_type: str
    ids: tuple[str, ...]
    rows: tuple[list[str], ...]
    gold: tuple[str, ...] = ()


def question(observation: DecisionObservation, gold: str | Sequence[str] = ()) -> Question:
    """The features of an observation (`gold` only when it is a training question)."""
    views = candidate_views(observation.candidates, observation.state)
    rows = question_features(observation.instruction, views)
    golds = (gold,) if isinstance(gold, str) else tuple(gold)
    return Question(observation.decision_type, observation.candidate_ids, tuple(rows), golds)


def training_question(episode: DecisionEpisode, *, masked: bool, with_state: bool) -> Question:
    """A training episode shown exactly as a test episode would be (masked or not, with or without state)."""
    observation = build_observation(episode, run_seed=0, mask=masked)
    if not with_state:
        observation = replace(observation, state={})
    return question(observation, episode.gold)


class _Constant:
    """Stands in for a classifier when the training labels have one class only."""

    def __init__(self, value: float) -> None:
        self.value = value

    def decision_function(self, x: Any) -> Any:
        return np.full(x.shape[0], self.value)


def _logistic(x: Any, y: Sequence[int], *, intercept: bool = True) -> Any:
    """Logistic regression by seeded stochastic gradient descent: deterministic and fast on sparse rows."""
    from sklearn.linear_model import SGDClassifier

    if len(set(y)) < 2:
        return _Constant(1.0 if y and y[0] == 1 else -1.0)
    model = SGDClassifier(
        loss="log_loss", alpha=ALPHA, max_iter=EPOCHS, tol=None, random_state=0, fit_intercept=intercept
    )
    return model.fit(x, np.asarray(y))


class BowModel:
    """The fitted membership models (one per decision type) and the sequence order model."""

    def __init__(self, questions: Sequence[Question]) -> None:
        try:
            from scipy import sparse
            from sklearn.feature_extraction import FeatureHasher
        except ImportError as exc:
            raise MissingDependencyError('the bow control needs scikit-learn: pip install "heedful[controls]"') from exc
        # hashing needs no vocabulary: the same names map to the same columns in every process
        self.hasher = FeatureHasher(n_features=HASHED_FEATURES, input_type="string", alternate_sign=False)
        self.members: dict[str, Any] = {}
        for decision_type in sorted({q.decision_type for q in questions}):
            chosen = [q for q in questions if q.decision_type == decision_type]
            x = self._x([row for q in chosen for row in q.rows])
            y = [int(i in q.gold) for q in chosen for i in q.ids]
            self.members[decision_type] = _logistic(x, y)
        pairs_x, pairs_y = [], []
        for q in questions:
            if q.decision_type != "sequence":
                continue
            rank = {i: n for n, i in enumerate(q.gold)}
            x = self._x(list(q.rows))
            for a, b in combinations([n for n, i in enumerate(q.ids) if i in rank], 2):
                pairs_x.append(x[a] - x[b])
                pairs_y.append(int(rank[q.ids[a]] < rank[q.ids[b]]))
        self.order = _logistic(sparse.vstack(pairs_x, format="csr"), pairs_y, intercept=False) if pairs_x else None

    def _x(self, rows: Sequence[list[str]]) -> Any:
        return self.hasher.transform(rows)

    def answer(self, q: Question) -> AgentReply:
        """The decision for a test question, well formed for its type."""
        model = self.members.get(q.decision_type)
        if model is None:
            raise ConfigError(
                f"bow has no training episode of type {q.decision_type!r}; train it on a dataset with one"
            )
        x = self._x(list(q.rows))
        scores = model.decision_function(x)
        best = int(np.argmax(scores))  # first of equal maxima: deterministic
        if q.decision_type == "single":
            return decision_reply("single", [q.ids[best]])
        chosen = [n for n, s in enumerate(scores) if s >= 0.0] or [best]  # decision score 0 is p = 0.5
        if q.decision_type == "sequence" and self.order is not None:
            utility = self.order.decision_function(x)
            chosen.sort(key=lambda n: (-utility[n], n))
        return decision_reply(q.decision_type, [q.ids[n] for n in chosen])


def _read_training(path: str) -> list[DecisionEpisode]:
    from heedful.suites.decisions.suite import SUITE

    return list(SUITE.training_episodes(SUITE.load_dataset(Path(path))))


class BowAgent:
    """Validity control: a bag-of-words logistic regression (instruction words x candidate attributes).

    Fitted on the train split (of the run's dataset, or of `train_dataset=DIR`); evaluate it on another split
    (`--split test`). Evaluating on its own training episodes is refused unless `in_sample=true`, the
    in-sample score that a held-out score is compared with. Works with `--mask` (fitted on masked
    instructions then). Needs `pip install "heedful[controls]"` (scikit-learn).
    """

    name = "bow"

    @staticmethod
    def requirements(agent_args: dict[str, Any]) -> tuple[Requirement, ...]:
        """scikit-learn (the classifiers) and scipy (the sparse features)."""
        return needs("sklearn", "scipy")

    def __init__(self, train_dataset: str | None = None, in_sample: bool = False) -> None:
        if train_dataset is not None and not isinstance(train_dataset, str | Path):
            raise ConfigError(f"bow: train_dataset must be a dataset directory, got {train_dataset!r}")
        if not isinstance(in_sample, bool):
            raise ConfigError(f"bow: in_sample must be true or false, got {in_sample!r}")
        self.train_dataset = None if train_dataset is None else str(train_dataset)
        self.in_sample = in_sample
        self.train: list[DecisionEpisode] = []
        self.models: dict[tuple[bool, bool], BowModel] = {}

    def _training(self, given: Sequence[Any]) -> list[DecisionEpisode]:
        train = _read_training(self.train_dataset) if self.train_dataset else [e for e in given]
        if not train:
            where = f"dataset {self.train_dataset}" if self.train_dataset else "the run's dataset"
            raise ConfigError(
                f"bow has nothing to fit on: {where} has no train split; run on a dataset with train episodes "
                "or point it at one with --agent-arg train_dataset=DIR"
            )
        return train

    def check_training(self, train: Sequence[Any], evaluation: Sequence[Any]) -> None:
        """Refuse, before the run starts, an empty train split or evaluation on training episodes.

        Raises:
            ConfigError: naming the problem and the flag that fixes it.
        """
        fitted = {ep.model_dump_json() for ep in self._training(train)}
        overlap = [ep.episode_id for ep in evaluation if ep.model_dump_json() in fitted]
        if overlap and not self.in_sample:
            raise ConfigError(
                f"bow would be evaluated on {len(overlap)} of its own training episodes (e.g. {overlap[0]}): "
                "run on held-out episodes with --split test (or val), or pass --agent-arg in_sample=true "
                "to measure the in-sample score on purpose"
            )

    def fit(self, train_episodes: Sequence[Any]) -> None:
        self.train = self._training(train_episodes)
        self.models = {}

    def model(self, *, masked: bool, with_state: bool) -> BowModel:
        """The model for masked or plain instructions, with or without the structured state (fitted once)."""
        key = (masked, with_state)
        if key not in self.models:
            if not self.train:
                raise ConfigError("bow is not fitted: the runner fits it on the train split before the first episode")
            self.models[key] = BowModel(
                [training_question(ep, masked=masked, with_state=with_state) for ep in self.train]
            )
        return self.models[key]

    def decide(self, observation: DecisionObservation) -> AgentReply:
        model = self.model(masked=observation.masked, with_state=bool(observation.state))
        return model.answer(question(observation))

    def describe(self) -> dict[str, Any]:
        info: Mapping[str, Any] = {"train_dataset": self.train_dataset} if self.train_dataset else {}
        return {"name": self.name, "in_sample": self.in_sample, **info}
