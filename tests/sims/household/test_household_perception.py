"""The simulated noisy detector: its rates (statistically), its coupling across rates, and what it reports."""

from __future__ import annotations

import math

import numpy as np
from household_world import row_house, sim_in, table_house

from heedful.sims.household.model import HouseSpec, ObjectSpec, ReceptacleSpec, Rect
from heedful.sims.household.perception import LOOK_ALIKES, Detector, NoiseRates
from heedful.sims.household.semantic_map import SemanticMap
from heedful.sims.household.vocab import OBJECT_CATEGORIES

DRAWS = 150


def crowded_house() -> HouseSpec:
    """Two rooms, 10 receptacles and 24 objects (three of each category)."""
    receptacles, objects = [], []
    for k in range(10):
        x0 = 0.7 + 0.75 * k + (0.3 if k >= 5 else 0.0)  # five tables in each room
        receptacles.append(
            ReceptacleSpec(id=f"r{k}", category="table", room=k // 5, rect=Rect(x0=x0, y0=0.7, x1=x0 + 0.5, y1=1.2))
        )
    for k in range(24):
        rec = receptacles[k % 10]
        x, y = rec.rect.center
        objects.append(ObjectSpec(id=f"o{k}", category=OBJECT_CATEGORIES[k % 8], receptacle=rec.id, x=x, y=y))
    return row_house(receptacles=tuple(receptacles), objects=tuple(objects))


def within_binomial(k: int, n: int, p: float) -> bool:
    """|k - n p| within 4.5 standard deviations (a false alarm about once in 150,000 runs)."""
    return abs(k - n * p) <= 4.5 * math.sqrt(n * p * (1 - p)) + 1


def test_the_draws_follow_the_configured_rates() -> None:
    house, rates = crowded_house(), NoiseRates(miss_rate=0.3, false_positive_rate=0.2, confusion_rate=0.25)
    missed = confused = kept = phantoms = 0
    for seed in range(DRAWS):
        detector = Detector.draw(rates, house, np.random.default_rng(seed))
        missed += len(detector.missed)
        for obj in house.objects:
            if obj.id in detector.missed:
                continue
            kept += 1
            label = detector.labels[obj.id]
            confused += label != obj.category
            assert label == obj.category or label in LOOK_ALIKES[obj.category]
        phantoms += len(detector.phantoms)
    n_objects, n_receptacles = DRAWS * len(house.objects), DRAWS * len(house.receptacles)
    assert within_binomial(missed, n_objects, rates.miss_rate)
    assert within_binomial(confused, kept, rates.confusion_rate)
    assert within_binomial(phantoms, n_receptacles, rates.false_positive_rate)


def test_rates_are_coupled_and_zero_is_exact() -> None:
    house = crowded_house()
    low = Detector.draw(NoiseRates(0.1, 0.1, 0.1), house, np.random.default_rng(7))
    high = Detector.draw(NoiseRates(0.4, 0.3, 0.1), house, np.random.default_rng(7))
    assert low.missed <= high.missed and {p.id for p in low.phantoms} <= {p.id for p in high.phantoms}
    exact = Detector.draw(NoiseRates(0.0, 0.0, 0.0), house, np.random.default_rng(7))
    assert not exact.missed and not exact.phantoms
    assert all(exact.labels[o.id] == o.category for o in house.objects)


def test_phantoms_sit_on_their_receptacle_with_object_like_ids() -> None:
    house = crowded_house()
    detector = Detector.draw(NoiseRates(0.0, 1.0, 0.0), house, np.random.default_rng(3))
    assert len(detector.phantoms) == len(house.receptacles)
    for phantom in detector.phantoms:
        assert house.receptacle(phantom.receptacle).rect.contains(phantom.x, phantom.y)
        assert phantom.category in OBJECT_CATEGORIES and int(phantom.id[1:]) >= 1000


def test_the_map_holds_what_the_detector_reports() -> None:
    house = table_house()  # a cup on the table in room 0, a book on the bench in room 1
    rates = NoiseRates(0.0, 0.0, 1.0)  # every object reported as a look-alike
    detector = Detector.draw(rates, house, np.random.default_rng(0))
    sim = sim_in(house, 2.0, 4.0, 0)  # looking east at the table
    noisy, exact = SemanticMap(house, detector=detector), SemanticMap(house)
    noisy.attach(sim)
    exact.attach(sim)
    assert exact.objects["o0"].category == "cup"
    assert noisy.objects["o0"].category == detector.labels["o0"] != "cup"
    missing = SemanticMap(house, detector=Detector.draw(NoiseRates(1.0, 0.0, 0.0), house, np.random.default_rng(0)))
    missing.observe(sim)
    assert "o0" not in missing.objects and missing.receptacles == exact.receptacles
