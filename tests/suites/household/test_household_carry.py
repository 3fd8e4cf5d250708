"""S_obj's carry walk: the agent saw the human carry the object away, and only that enters its track."""

from __future__ import annotations

from household_data import first, small_episodes

from heedful.agents.household_text import human_seen
from heedful.sims.household.grid import grid_for
from heedful.suites.household.carry import carry_sighting, carry_walk, seen_span
from heedful.suites.household.observation import build_observation
from heedful.suites.household.runtime import TaskEnv
from heedful.suites.household.towards import HISTORY_STEPS


def test_every_s_obj_human_carried_its_object_and_no_other_human_did() -> None:
    for ep in small_episodes():
        assert (ep.human.carried_from is not None) == (ep.task_type == "s_obj"), ep.episode_id
        if ep.task_type != "s_obj":
            continue
        grid = grid_for(ep.house, ep.cell_m)
        walk = carry_walk(grid, ep.human)
        assert walk is not None and walk.destination == ep.human.start
        target = next(r for r in ep.relocations if r.category == ep.target_category)
        assert ep.house.room_at(*ep.human.carried_from) == ep.house.receptacle(target.from_receptacle).room
        sighting = carry_sighting(grid, walk, ep.agent_start)
        # the pickup is seen, then at least the walking-towards rule's 30 steps, all before the task phase
        assert sighting[0][0] == -walk.arrival_step and seen_span(sighting) >= HISTORY_STEPS
        assert all(step <= 0 for step, _, _ in sighting)


def test_the_sighting_is_the_start_of_the_agents_track_and_of_what_it_is_told() -> None:
    ep = first("s_obj", ambiguous=True)
    env = TaskEnv.start(ep)
    walk = carry_walk(env.grid, ep.human)
    assert walk is not None
    sighting = carry_sighting(env.grid, walk, ep.agent_start)
    assert env.map.human_track[: len(sighting)] == sighting
    obs = build_observation(env, seed=0)
    assert obs.human_carrying == ep.target_category and obs.human.first_room == ep.house.room_at(*walk.points[0])
    text = human_seen(obs)
    assert f"you saw the human take the {ep.target_category} in room {obs.human.first_room} and carry it away" in text
    assert "time steps before the task began" in text or "at time step" in text


def test_pnp_and_s_hum_observations_carry_nothing() -> None:
    for task_type in ("pnp", "s_hum"):
        obs = build_observation(TaskEnv.start(first(task_type)), seed=0)
        assert obs.human_carrying is None
        assert "carry it away" not in human_seen(obs)


def test_a_human_seen_in_a_doorway_is_in_the_nearest_room_never_room_minus_one() -> None:
    from heedful.suites.household.observation import human_view
    from heedful.suites.household.runtime import room_of

    env = TaskEnv.start(first("s_hum"))
    house, grid = env.episode.house, env.grid
    gx, gy = grid.centres()
    free = [(float(x), float(y)) for x, y in zip(gx.ravel(), gy.ravel(), strict=True) if grid.can_stand(x, y)]
    doorway = next(p for p in free if house.room_at(*p) < 0)
    env.map.human_track[:] = [(0, *doorway)]
    view = human_view(env)
    assert view.last_room == view.first_room == room_of(house, *doorway) >= 0
