"""Grab / put / give ranges and the semantic map's refresh rules, with known geometry."""

from __future__ import annotations

from household_world import sim_in, table_house

from heedful.sims.household.human import HumanPath, standing
from heedful.sims.household.semantic_map import MappedObject, SemanticMap
from heedful.sims.household.sim import GIVE_RANGE, GRAB_RANGE, PUT_RANGE


def test_grab_reaches_2_m_and_not_further() -> None:
    assert GRAB_RANGE == 2.0
    near = sim_in(table_house(), 3.5, 2.1, 0)  # the cup at (3.5, 4.0) is 1.9 m away
    assert near.grab("cup") == "o0" and near.held == "o0" and near.step == 1
    far = sim_in(table_house(), 3.5, 1.9, 0)  # 2.1 m away
    assert far.grab("cup") is None and far.held is None and far.step == 1


def test_grab_takes_the_nearest_and_respects_the_category() -> None:
    sim = sim_in(table_house(), 3.9, 2.5, 0)  # cup 1.57 m away; the book behind the wall
    assert sim.grab("book") is None
    assert sim.grab() == "o0"


def test_grab_does_not_reach_through_a_wall() -> None:
    sim = sim_in(table_house(), 3.9, 1.0, 0)  # the book at (4.8, 1.0) is 0.9 m away, behind the wall at x = 4.5
    assert sim.grab("book") is None


def test_put_reaches_2_m_and_respects_the_category() -> None:
    assert PUT_RANGE == 2.0
    sim = sim_in(table_house(), 3.5, 2.1, 0)
    assert sim.grab("cup") == "o0"
    sim.pose = type(sim.pose)(3.5, 1.5, 0)  # 2.1 m below the table's edge at y = 3.6
    assert sim.put("table") is None and sim.held == "o0"
    sim.pose = type(sim.pose)(3.5, 1.7, 0)  # 1.9 m
    assert sim.put("bench") is None
    assert sim.put("table") == "r0" and sim.held is None
    cup = sim.objects["o0"]
    assert cup.receptacle == "r0" and (cup.x, cup.y) == (3.5, 3.7)  # the table's nearest point, 0.1 m in


def test_give_needs_1_m_and_sight() -> None:
    assert GIVE_RANGE == 1.0
    ahead = standing(3.4, 2.5)
    sim = sim_in(table_house(), 2.5, 2.5, 0, human=ahead)
    sim.held, sim.objects["o0"].holder = "o0", "agent"
    assert sim.give() is True and sim.objects["o0"].holder == "human"

    behind = sim_in(table_house(), 2.5, 2.5, 18, human=ahead)  # facing away, 0.9 m
    behind.held, behind.objects["o0"].holder = "o0", "agent"
    assert behind.give() is False and behind.held == "o0"

    far = sim_in(table_house(), 2.3, 2.5, 0, human=ahead)  # 1.1 m
    far.held, far.objects["o0"].holder = "o0", "agent"
    assert far.give() is False


def test_give_to_a_walking_human_uses_its_current_position() -> None:
    walker = HumanPath(points=((4.0, 2.5), (2.0, 2.5)))  # walks towards the agent, 0.08 m per step
    sim = sim_in(table_house(), 2.0, 2.5, 0, human=walker)
    sim.held, sim.objects["o0"].holder = "o0", "agent"
    assert sim.give() is False  # at step 0 the human is 2 m away
    for _ in range(12):
        sim.turn(1)
        sim.turn(-1)
    assert sim.human_xy[0] < 3.0 and sim.give() is True


def test_map_forgets_grabbed_objects_and_learns_put_ones() -> None:
    sim = sim_in(table_house(), 3.5, 2.1, 9)  # facing the table (north)
    semantic = SemanticMap(sim.house)
    semantic.attach(sim)
    assert "o0" in semantic.objects and "r0" in semantic.receptacles
    sim.grab("cup")
    assert "o0" not in semantic.objects
    sim.put("table")
    assert semantic.objects["o0"].receptacle == "r0"


def test_map_drops_stale_entries_when_the_spot_is_seen_empty() -> None:
    sim = sim_in(table_house(), 3.5, 2.1, 27)  # facing south: the table is behind
    semantic = SemanticMap(sim.house)
    semantic.objects["o9"] = MappedObject("o9", "cup", 3.6, 4.0, "r0", 0, -1)  # remembered, never there
    semantic.attach(sim)
    assert "o9" in semantic.objects  # not in view yet
    for _ in range(18):
        sim.turn(1)
    assert "o9" not in semantic.objects and "o0" in semantic.objects


def test_map_tracks_the_human_when_seen() -> None:
    sim = sim_in(table_house(), 2.0, 2.5, 0, human=HumanPath(points=((3.0, 2.5), (3.5, 2.5))))
    semantic = SemanticMap(sim.house)
    semantic.attach(sim)
    sim.turn(1)
    sim.turn(1)
    assert [t for t, _, _ in semantic.human_track] == [0, 1, 2]
    assert semantic.human_last is not None and semantic.human_last[1] == sim.human_xy[0]
