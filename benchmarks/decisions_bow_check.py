"""Held-out wording check: a bag-of-words logistic regression fitted on the train split, scored on test.

Each (instruction, candidate) pair becomes features "instruction word x candidate property" (colour,
shape, size, verb, x rank, y rank, whether the instruction names the candidate by an attribute
description, whether it belongs to the attribute group the instruction names). One classifier says
whether a candidate is in the decision (single: the most probable one; set: those above 0.5, else the
most probable); a second, fitted on sequence golds, orders a sequence's members by predicted position.
The report gives family success and decision sensitivity per category on the train split (the data it
was fitted on) and on the test split. Held-out wording works when the test numbers are far below train.

    python benchmarks/decisions_bow_check.py                     # default dataset (held-out wording)
    python benchmarks/decisions_bow_check.py --no-held-out       # the same seed with the hold-out off
    python benchmarks/decisions_bow_check.py --mask              # masked instructions

Needs scikit-learn (not a heedful dependency of this script's own).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LinearRegression, LogisticRegression

from heedful.suites.decisions.generate import generate, parse_config
from heedful.suites.decisions.model import Decision, DecisionEpisode
from heedful.world.objects import NOUNS
from heedful.world.reference import referring_expressions

Features = dict[str, float]
C = 0.3  # inverse regularisation strength of the membership classifier
SIZE_SYNONYMS = {"small": ("little",), "large": ("big",)}
VERB_WORDS = {"pick": "pick-up", "place_in": "bowl", "stack_on": "stacking", "push": "pushing", "rotate": "rotation"}


def _named(ep: DecisionEpisode, text: str) -> dict[str, int]:
    """Candidates whose object the text names by an attribute description -> rank of first mention."""
    objects = {o.name: o for o in ep.state.objects}
    first = {}
    for cand in ep.candidates:
        obj = objects[cand.object]
        spots = [
            m.start()
            for e in referring_expressions(obj, ep.state.objects)
            for m in re.finditer(rf"\bthe {re.escape(e)}\b(?!s)", text)
        ]
        if spots:
            first[cand.id] = min(spots)
    return {cid: rank for rank, cid in enumerate(sorted(first, key=first.__getitem__))}


def _group_ranks(ep: DecisionEpisode, cand_id: str) -> list[str]:
    """Rank of the candidate along x and y among the candidates sharing each of its attribute values."""
    cand = next(c for c in ep.candidates if c.id == cand_id)
    out = []
    for field, value in cand.attrs.items():
        peers = [c for c in ep.candidates if c.attrs.get(field) == value]
        for axis in ("x", "y"):
            order = sorted(peers, key=lambda c, a=axis: c.x if a == "x" else c.y)
            out.append(f"{axis}r_{field}={order.index(cand)}of{len(peers)}")
    return out


def _words_for(field: str, value: str) -> set[str]:
    """The words that name an attribute value in instructions ('sphere' -> ball, balls)."""
    if field == "shape":
        return set(NOUNS[value])
    if field == "verb":
        return {value.split("_")[0], VERB_WORDS.get(value, value)}
    return {value, *SIZE_SYNONYMS.get(value, ())}


def candidate_features(ep: DecisionEpisode, masked: bool) -> list[Features]:
    text = (ep.masked_instruction if masked else ep.instruction).lower()
    tokens = set(re.findall(r"[a-z\-]+", text))
    named = _named(ep, text)
    x_rank = {c.id: r for r, c in enumerate(sorted(ep.candidates, key=lambda c: c.x))}
    y_rank = {c.id: r for r, c in enumerate(sorted(ep.candidates, key=lambda c: c.y))}
    rows = []
    for cand in ep.candidates:
        props = [f"{k}={v}" for k, v in cand.attrs.items()]
        props += [f"xr={x_rank[cand.id]}", f"yr={y_rank[cand.id]}", f"named={named.get(cand.id, 'no')}", "bias"]
        props += _group_ranks(ep, cand.id)
        props += [f"{k}_in_text={bool(_words_for(k, v) & tokens)}" for k, v in cand.attrs.items()]
        feats: Features = {p: 1.0 for p in props}
        feats.update({f"{w}|{p}": 1.0 for w in tokens for p in props})
        rows.append(feats)
    return rows


def fit(
    episodes: Sequence[DecisionEpisode], masked: bool
) -> tuple[DictVectorizer, LogisticRegression, LinearRegression]:
    xs, ys, order_x, order_y = [], [], [], []
    for ep in episodes:
        gold = [ep.gold] if isinstance(ep.gold, str) else ep.gold
        for cand, feats in zip(ep.candidates, candidate_features(ep, masked), strict=True):
            xs.append(feats)
            ys.append(int(cand.id in gold))
            if ep.decision_type == "sequence" and cand.id in gold:
                order_x.append(feats)
                order_y.append(gold.index(cand.id) / max(1, len(gold) - 1))
    vec = DictVectorizer()
    member = LogisticRegression(max_iter=2000, C=C).fit(vec.fit_transform(xs), ys)
    order = LinearRegression().fit(vec.transform(order_x), order_y)
    return vec, member, order


def predict(
    ep: DecisionEpisode, model: tuple[DictVectorizer, LogisticRegression, LinearRegression], masked: bool
) -> Decision:
    vec, member, order = model
    matrix = vec.transform(candidate_features(ep, masked))
    prob = member.predict_proba(matrix)[:, 1]
    ids = [c.id for c in ep.candidates]
    if ep.decision_type == "single":
        return ids[int(np.argmax(prob))]
    chosen = [i for i, p in enumerate(prob) if p > 0.5] or [int(np.argmax(prob))]
    if ep.decision_type == "set":
        return sorted(ids[i] for i in chosen)
    position = order.predict(matrix)
    return [ids[i] for i in sorted(chosen, key=lambda i: position[i])]


def scores(
    episodes: Sequence[DecisionEpisode],
    model: tuple[DictVectorizer, LogisticRegression, LinearRegression],
    masked: bool,
) -> dict[str, tuple[float, float]]:
    fams: dict[str, dict[str, bool]] = defaultdict(dict)
    category = {}
    for ep in episodes:
        fams[ep.family_id][ep.role] = predict(ep, model, masked) == ep.gold
        category[ep.family_id] = ep.category
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for fid, ok in fams.items():
        sens = int(ok["base"] and ok["change"]) + int(ok["preserve"] and ok["change_preserve"])
        for key in (category[fid], "overall"):
            per[key].append((sens, int(all(ok.values()))))
    return {k: (sum(r[0] for r in v) / (2 * len(v)), sum(r[1] for r in v) / len(v)) for k, v in sorted(per.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-held-out", action="store_true", help="generate with held_out_wording=false")
    parser.add_argument("--mask", action="store_true", help="fit and score on the masked instructions")
    args = parser.parse_args()
    episodes = generate(args.seed, parse_config({"held_out_wording": False} if args.no_held_out else {}))
    train = [ep for ep in episodes if ep.split == "train"]
    test = [ep for ep in episodes if ep.split == "test"]
    model = fit(train, args.mask)
    fitted, held = scores(train, model, args.mask), scores(test, model, args.mask)
    print("category | train: decision sensitivity, family success | test: decision sensitivity, family success")
    for key in fitted:
        (s1, f1), (s2, f2) = fitted[key], held[key]
        print(f"{key} | {s1:.3f}, {f1:.3f} | {s2:.3f}, {f2:.3f}")


if __name__ == "__main__":
    main()
