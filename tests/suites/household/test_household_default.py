"""The default benchmark (480 episodes): counts, determinism, oracle solves all, the calibrated world
(house statistics, sound clear / ambiguous labels) and the cost of ignoring the human."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from functools import partial

import numpy as np
import pytest

from heedful.agents.household import CommonsenseAgent, Facts, OracleAgent, SituatedAgent
from heedful.suites.episode_files import content_hash
from heedful.suites.household.language import Place, rooms_fitting
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.observation import HouseholdObservation
from heedful.suites.household.rollout import run_episode
from heedful.suites.household.suite import HouseholdSuite
from heedful.suites.household.tasks import place_of, room_facts
from heedful.suites.household.world_stats import world_statistics

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def default_household() -> list[HouseholdEpisode]:
    return HouseholdSuite().generate(0)


class WordsBlind(SituatedAgent):
    """A cheat to rule out: situated's reading of the human's motion, but blind to what the human said
    (every room is a candidate, for the object and for the human)."""

    def _search_rooms(self, obs: HouseholdObservation, place: Place, facts: Facts) -> list[int]:
        return self._by_carry_walk(obs, range(len(obs.rooms)))

    def _human_rooms(self, obs: HouseholdObservation, place: Place | None, facts: Facts) -> list[int]:
        return super()._human_rooms(obs, None, facts)


AGENTS = {
    "oracle": OracleAgent,
    "commonsense": CommonsenseAgent,
    "situated": SituatedAgent,
    "words-blind": WordsBlind,
}
_EPISODES: list[HouseholdEpisode] = []
_SCORED: dict[tuple[str, str], tuple[bool, float, int] | None] = {}  # rollouts are deterministic: run each once


def _score(agent: str, index: int) -> tuple[bool, float, int] | None:
    result = run_episode(_EPISODES[index], AGENTS[agent](), seed=0)
    return None if result.score is None else (result.score.success, result.score.spl, result.score.steps)


def _scores(episodes: list[HouseholdEpisode], agent: str) -> list[tuple[bool, float, int] | None]:
    """Every episode's (success, spl, steps), on both cores: forked workers inherit the episodes, so only
    indices and scores cross the process boundary (the suite runs tests one at a time)."""
    global _EPISODES
    todo = [ep for ep in episodes if (agent, ep.episode_id) not in _SCORED]
    _EPISODES = todo
    with multiprocessing.get_context("fork").Pool(2) as pool:
        found = pool.map(partial(_score, agent), range(len(todo)), chunksize=8)
    _SCORED.update({(agent, ep.episode_id): score for ep, score in zip(todo, found, strict=True)})
    return [_SCORED[(agent, ep.episode_id)] for ep in episodes]


def test_default_counts(default_household: list[HouseholdEpisode]) -> None:
    episodes = default_household
    assert len(episodes) == 480
    by_split_type = Counter((ep.split, ep.task_type) for ep in episodes)
    assert len(by_split_type) == 12 and set(by_split_type.values()) == {40}
    clarity = Counter((ep.split, ep.task_type, ep.ambiguous) for ep in episodes if ep.task_type != "pnp")
    assert set(clarity.values()) == {20}
    seen = {ep.house_id for ep in episodes if ep.split.endswith("_seen")}
    unseen = {ep.house_id for ep in episodes if ep.split.endswith("_unseen")}
    assert len(seen) == 6 and len(unseen) == 4 and not seen & unseen


def test_default_is_byte_identical_for_the_same_seed(default_household: list[HouseholdEpisode]) -> None:
    # every slot draws from its own generator, so a smaller regeneration must repeat the default's first
    # slots byte for byte (houses, exploration and tasks all regenerated; a second full run costs minutes)
    again = HouseholdSuite().generate(0, {"per_split_type": 1})
    slots = {ep.episode_id for ep in again}
    assert len(again) == 12
    assert content_hash(again) == content_hash([ep for ep in default_household if ep.episode_id in slots])


def test_oracle_solves_default_episodes_in_their_stored_steps(default_household: list[HouseholdEpisode]) -> None:
    # generation already ran the oracle on every episode (an episode it fails is rejected there); this reruns
    # every third one, all splits and task types, to show the stored L_oracle is what a run reproduces
    sample = default_household[::3]
    for episode, score in zip(sample, _scores(sample, "oracle"), strict=True):
        assert score is not None and score[0], episode.episode_id
        assert score[2] == episode.oracle_steps, episode.episode_id


def test_ignoring_the_human_costs_on_ambiguous_situated_tasks(default_household: list[HouseholdEpisode]) -> None:
    # the calibration target (issue 14): common sense solves PnP and the clear tasks, but an agent blind
    # to the human loses at least 15 points of SR on ambiguous S_obj and S_hum (the paper's Reasoner with
    # oracle perception: SR 88 / 74 / 52 on PnP / S_obj / S_hum)
    success: dict[str, list[float]] = {}
    spl: dict[str, list[float]] = {}
    for episode, score in zip(default_household, _scores(default_household, "commonsense"), strict=True):
        assert score is not None
        key = episode.task_type if episode.ambiguous is None else f"{episode.task_type}/{episode.ambiguous}"
        success.setdefault(key, []).append(float(score[0]))
        spl.setdefault(key, []).append(score[1])
    sr = {key: float(np.mean(values)) for key, values in success.items()}
    assert sr["pnp"] >= 0.95 and float(np.mean(spl["pnp"])) >= 0.9
    assert sr["s_obj/False"] >= 0.95 and sr["s_hum/False"] >= 0.95
    # issue 14 asks for 15 points on both; sif-v4 measures 15.0 on S_obj (12 of 80 failed) and 16.25 on S_hum
    assert sr["pnp"] - sr["s_obj/True"] >= 0.15
    assert sr["pnp"] - sr["s_hum/True"] >= 0.15
    assert float(np.mean(spl["s_obj/True"])) < 0.8 and float(np.mean(spl["s_hum/True"])) < 0.8


def test_reading_the_human_pays_on_ambiguous_situated_tasks(default_household: list[HouseholdEpisode]) -> None:
    # situated reads the carry walk (S_obj) and the walk (S_hum) it saw; commonsense does not: on the
    # ambiguous tasks situated must gain SPL clearly (measured on sif-v4: +23.8 and +3.4 points) and lose
    # no SR overall (clear tasks are exactly commonsense, `test_household_situated`)
    for task_type, least_gain in (("s_obj", 0.15), ("s_hum", 0.02)):
        chosen = [ep for ep in default_household if ep.task_type == task_type and ep.ambiguous]
        blind, situated = _scores(chosen, "commonsense"), _scores(chosen, "situated")
        assert all(score is not None for score in (*blind, *situated))
        spl_gain = np.mean([s[1] for s in situated if s]) - np.mean([b[1] for b in blind if b])
        sr_gain = np.mean([s[0] for s in situated if s]) - np.mean([b[0] for b in blind if b])
        assert spl_gain >= least_gain and sr_gain >= 0.0, (task_type, spl_gain, sr_gain)


def test_the_words_are_needed_reading_only_the_motion_fails(default_household: list[HouseholdEpisode]) -> None:
    # the words-blind cheat searches every room by the motion it saw: if it came near situated, the
    # instruction would be decoration. On every 4th task of each (type, clarity) group of sif-v4 it measures
    # SR 72.5 vs 95.0 on ambiguous and 65.0 vs 100 on clear tasks (all 320: 71.9 vs 91.9, 58.8 vs 100)
    groups = [(task_type, ambiguous) for task_type in ("s_obj", "s_hum") for ambiguous in (True, False)]
    chosen = [ep for g in groups for ep in [e for e in default_household if (e.task_type, e.ambiguous) == g][::4]]
    cheat, situated = _scores(chosen, "words-blind"), _scores(chosen, "situated")
    for ambiguous, least_gap in ((True, 0.15), (False, 0.3)):
        rows = [k for k, ep in enumerate(chosen) if ep.ambiguous is ambiguous]
        cheat_sr = np.mean([_success(cheat[k]) for k in rows])
        situated_sr = np.mean([_success(situated[k]) for k in rows])
        assert len(rows) == 40 and situated_sr - cheat_sr >= least_gap, (ambiguous, cheat_sr, situated_sr)


def _success(score: tuple[bool, float, int] | None) -> float:
    assert score is not None, "a household rollout ended without a score"
    return float(score[0])


def test_calibrated_world_statistics(default_household: list[HouseholdEpisode]) -> None:
    stats = world_statistics(default_household)
    house, human, oracle = stats["house"], stats["human"], stats["oracle"]
    assert house["rooms"]["min"] >= 9 and house["rooms"]["max"] <= 14 and house["rooms"]["mean"] >= 10.5
    assert house["most_rooms_of_one_function"]["min"] >= 2 and house["most_rooms_of_one_function"]["mean"] >= 2.8
    assert 80 <= house["room_to_room_forward_steps"]["mean"] <= 140  # Listing 1: a leg of ~100 steps
    ambiguous = stats["fitting_rooms"]["ambiguous"]
    several = ambiguous.get("3", 0) + ambiguous.get("4+", 0)
    assert sum(ambiguous.values()) == 160 and several >= 0.85 * 160 and "1" not in ambiguous
    assert ambiguous.get("4+", 0) >= 0.5 * 160  # sif-v4: four or more rooms fit where the room allows
    assert stats["fitting_rooms"]["clear"] == {"1": 160}
    assert human["walk_m"]["min"] >= 8.0 and human["walk_m"]["max"] <= 32.0
    assert human["still_walking_when_oracle_delivers"] >= 0.4  # where the human goes matters
    assert oracle["limit_over_mean"] <= 3.0 and oracle["steps"]["all"]["max"] < 600


def test_clear_and_ambiguous_labels_follow_the_true_room_facts(default_household: list[HouseholdEpisode]) -> None:
    for ep in default_household:
        if ep.task_type == "pnp":
            continue
        facts = room_facts(ep.house)
        if ep.task_type == "s_obj":
            target = next(r for r in ep.relocations if r.category == ep.target_category)
            place, true_room = target.place, ep.house.receptacle(target.to_receptacle).room
        else:
            assert ep.human.place is not None
            place, true_room = ep.human.place, ep.human.destination_room
        fits = rooms_fitting(place_of(place), facts)
        assert fits == ep.candidate_rooms and true_room in fits, ep.episode_id
        assert ep.ambiguous == (len(fits) > 1), ep.episode_id
