"""The sif-v7 reach rule (issue 40): an ambiguous S_obj task is kept only when a words-only search cannot look in
every fitting room and deliver within the step limit."""

from __future__ import annotations

import itertools

from household_data import small_episodes

from heedful.sims.household.grid import grid_for
from heedful.sims.household.house import room_viewpoint
from heedful.sims.household.sim import MAX_STEPS
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.reach import (
    ROOM_STEPS,
    delivery_steps,
    search_tour,
    words_only_steps,
    words_reach_every_room,
)
from heedful.suites.household.tasks import rooms_with_goal


def _ambiguous_s_obj() -> list[HouseholdEpisode]:
    return [e for e in small_episodes() if e.task_type == "s_obj" and e.ambiguous]


def test_no_kept_ambiguous_s_obj_task_lets_the_words_alone_reach_every_room() -> None:
    episodes = _ambiguous_s_obj()
    assert episodes
    for episode in episodes:
        house, grid = episode.house, grid_for(episode.house, episode.cell_m)
        start = episode.agent_start[:2]
        goals = rooms_with_goal(house, episode.goal)
        assert not words_reach_every_room(grid, house, start, episode.candidate_rooms, goals), episode.episode_id
        assert words_only_steps(grid, house, start, episode.candidate_rooms, goals) > MAX_STEPS


def test_the_tour_looks_nearest_first_and_each_room_costs_at_least_a_scan() -> None:
    episode = _ambiguous_s_obj()[0]
    house, grid = episode.house, grid_for(episode.house, episode.cell_m)
    start = episode.agent_start[:2]
    rooms = list(episode.candidate_rooms)
    tour = search_tour(grid, house, start, rooms)
    assert sorted(room for room, _ in tour) == sorted(rooms)
    steps = [0] + [s for _, s in tour]
    assert all(later - earlier >= ROOM_STEPS for earlier, later in itertools.pairwise(steps))
    # the first room is the one nearest the start: no other fitting room is cheaper to look in first
    first_steps = tour[0][1]
    for room in rooms:
        assert search_tour(grid, house, start, [room])[0][1] >= first_steps
    # the worst case is the last room's scan plus the delivery from there, and does not depend on the input order
    last_room, last_steps = tour[-1]
    goals = rooms_with_goal(house, episode.goal)
    expected = last_steps + delivery_steps(grid, house, room_viewpoint(grid, house, last_room), goals)
    assert words_only_steps(grid, house, start, rooms, goals) == expected
    assert words_only_steps(grid, house, start, rooms[::-1], goals) == expected


def test_one_nearby_room_is_within_reach_and_more_rooms_cost_more() -> None:
    episode = _ambiguous_s_obj()[0]
    house, grid = episode.house, grid_for(episode.house, episode.cell_m)
    start = episode.agent_start[:2]
    goals = rooms_with_goal(house, episode.goal)
    nearest = search_tour(grid, house, start, episode.candidate_rooms)[0][0]
    assert words_reach_every_room(grid, house, start, [nearest], [nearest])
    one = words_only_steps(grid, house, start, [nearest], goals)
    assert words_only_steps(grid, house, start, episode.candidate_rooms, goals) > one
