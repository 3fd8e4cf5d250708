"""World statistics and the furniture priors that let common sense name every room's function."""

from __future__ import annotations

from itertools import combinations

from household_data import small_episodes

from heedful.sims.household.vocab import FURNITURE
from heedful.suites.household.language import guess_function
from heedful.suites.household.world_stats import PAPER_FIGURES, render_statistics, world_statistics


def test_every_furnishing_of_a_room_names_its_function() -> None:
    # clear tasks must be solvable by common sense: whatever optional pieces a room gets, its furniture
    # points to its own function (ambiguity comes only from repeated functions)
    for function, priors in FURNITURE.items():
        required = [c for c, p in priors if p >= 1.0]
        optional = [c for c, p in priors if p < 1.0]
        for k in range(len(optional) + 1):
            for extra in combinations(optional, k):
                assert guess_function([*required, *extra]) == function, (function, extra)


def test_world_statistics_of_a_small_dataset() -> None:
    episodes = list(small_episodes())
    stats = world_statistics(episodes)
    assert stats["episodes"] == 24 and stats["house"]["houses"] == 4
    assert stats["fitting_rooms"]["clear"] == {"1": 8}
    assert sum(stats["fitting_rooms"]["ambiguous"].values()) == 8
    assert stats["oracle"]["steps"]["all"]["n"] == 24
    assert stats["human"]["walk_m"]["n"] == 8 and stats["human"]["walk_m"]["min"] >= 8.0
    assert stats["house"]["room_to_room_forward_steps"]["mean"] > 0
    text = render_statistics(stats)
    assert "rooms per house" in text and PAPER_FIGURES["human walk"] in text
