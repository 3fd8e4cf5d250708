"""Perception conditions: what the agent's object detector reports to its semantic map.

- **oracle** (the default): every graspable object in view is detected with its true category, as in
  the paper's "oracle perception" rows. No detector object exists; the map reads the simulator directly.
- **noisy**: a SIMULATED stand-in for learned semantic segmentation. It is no learned model and is not
  calibrated to one: three rates of a simple error model stand in for a detector's mistakes. Once per
  episode, from a generator derived from the episode's seed and id:

  * each object instance is **missed** with probability `miss_rate`: the detector never reports it (not in
    the premap, not when in view, not after the agent puts it down);
  * each instance that is not missed is **confused** with probability `confusion_rate`: reported as a
    look-alike category (`LOOK_ALIKES`, drawn uniformly), always the same one;
  * each receptacle carries, with probability `false_positive_rate`, a **phantom** object of a uniformly
    drawn category at a fixed spot on its top, reported whenever that spot is in view (and in the premap
    when the exploration saw the receptacle). Grabbing a phantom closes on nothing.

  Errors persist for the whole episode because a learned detector tends to fail on the same instance
  from similar views; per-frame draws would be averaged away by the repeated views of an exploration.
  Every instance consumes the same random numbers whatever the rates, so with one seed a higher rate
  only adds errors (the conditions are coupled), and all rates 0 reproduces the oracle condition.

Receptacles and the human are detected perfectly in both conditions. Scoring and the oracle planner's
privileged plan read the true simulator state, never the detector.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from heedful.sims.household.model import HouseSpec
from heedful.sims.household.sim import ObjectState
from heedful.sims.household.vocab import OBJECT_CATEGORIES

LOOK_ALIKES: Mapping[str, tuple[str, ...]] = {
    "basket": ("bowl", "hat"),
    "book": ("plate",),
    "bowl": ("cup", "plate", "basket"),
    "cup": ("bowl",),
    "hat": ("shoe", "basket"),
    "plate": ("bowl", "book"),
    "shoe": ("hat",),
    "stuffed_toy": ("hat", "shoe"),
}
"""Categories a detector may mistake each category for (similar shape or size; our choice)."""

PHANTOM_INSET = 0.1
PHANTOM_ID_BASE = 1000
"""Phantom ids are "f<1000 + receptacle number>": unique, and sortable like object ids ("o<n>")."""


@dataclass(frozen=True)
class NoiseRates:
    """The rates of the simulated noisy detector (see the module docstring)."""

    miss_rate: float = 0.15
    false_positive_rate: float = 0.1
    confusion_rate: float = 0.1

    def describe(self) -> str:
        return (
            f"miss {self.miss_rate:g}, false positives {self.false_positive_rate:g} per receptacle, "
            f"confusion {self.confusion_rate:g}"
        )


NOISE_FIELDS: tuple[str, ...] = ("miss_rate", "false_positive_rate", "confusion_rate")


@dataclass(frozen=True)
class Phantom:
    """A false positive: an object the detector reports where there is none."""

    id: str
    category: str
    x: float
    y: float
    receptacle: str


@dataclass(frozen=True)
class Detector:
    """One episode's draws of the simulated noisy detector."""

    rates: NoiseRates
    missed: frozenset[str]
    labels: Mapping[str, str]
    """Object id -> the category reported for it (missed objects have none)."""
    phantoms: tuple[Phantom, ...] = field(default=())

    @classmethod
    def draw(cls, rates: NoiseRates, house: HouseSpec, rng: np.random.Generator) -> Detector:
        """Draw which instances are missed / confused and where phantoms sit (fixed variates per item)."""
        missed: set[str] = set()
        labels: dict[str, str] = {}
        for obj in sorted(house.objects, key=lambda o: int(o.id[1:])):
            u_miss, u_confuse, u_pick = rng.random(3)
            alikes = LOOK_ALIKES.get(obj.category, ())
            if u_miss < rates.miss_rate:
                missed.add(obj.id)
            elif alikes and u_confuse < rates.confusion_rate:
                labels[obj.id] = alikes[int(u_pick * len(alikes))]
            else:
                labels[obj.id] = obj.category
        phantoms = []
        for rec in sorted(house.receptacles, key=lambda r: int(r.id[1:])):
            u_fp, u_cat, u_x, u_y = rng.random(4)
            if u_fp >= rates.false_positive_rate:
                continue
            r = rec.rect
            inset_x, inset_y = min(PHANTOM_INSET, r.width / 2), min(PHANTOM_INSET, r.height / 2)
            x = r.x0 + inset_x + u_x * (r.width - 2 * inset_x)
            y = r.y0 + inset_y + u_y * (r.height - 2 * inset_y)
            category = OBJECT_CATEGORIES[int(u_cat * len(OBJECT_CATEGORIES))]
            phantom_id = f"f{PHANTOM_ID_BASE + int(rec.id[1:])}"
            phantoms.append(Phantom(phantom_id, category, round(x, 4), round(y, 4), rec.id))
        return cls(rates=rates, missed=frozenset(missed), labels=labels, phantoms=tuple(phantoms))

    def perceive(self, obj: ObjectState) -> ObjectState | None:
        """The object as the detector reports it, or None when it is missed."""
        if obj.id in self.missed:
            return None
        label = self.labels.get(obj.id, obj.category)
        return ObjectState(obj.id, label, obj.x, obj.y, obj.receptacle, obj.holder)

    def detectable(self, objects: Iterable[ObjectState], receptacles: Iterable[str] | None = None) -> list[ObjectState]:
        """What the detector reports of `objects` (free, on receptacles), plus the phantoms (on `receptacles`
        only, when given)."""
        seen = [p for obj in objects if (p := self.perceive(obj)) is not None]
        allowed = None if receptacles is None else set(receptacles)
        seen += [
            ObjectState(p.id, p.category, p.x, p.y, p.receptacle)
            for p in self.phantoms
            if allowed is None or p.receptacle in allowed
        ]
        return seen

    def summary(self, house: HouseSpec, target_category: str) -> dict[str, Any]:
        """Counts for an episode's record: what this detector got wrong, and whether the target can be seen."""
        target_ids = [o.id for o in house.objects if o.category == target_category]
        return {
            "condition": "noisy (simulated)",
            "missed": len(self.missed),
            "confused": sum(1 for o in house.objects if self.labels.get(o.id, o.category) != o.category),
            "phantoms": len(self.phantoms),
            "target_instances": len(target_ids),
            "target_detectable": sum(1 for oid in target_ids if self.labels.get(oid) == target_category),
            "target_phantoms": sum(1 for p in self.phantoms if p.category == target_category),
        }


def noise_rates(values: Mapping[str, Any]) -> NoiseRates:
    """NoiseRates from a mapping of (some of) NOISE_FIELDS; values are validated by the caller."""
    return NoiseRates(**{k: float(values[k]) for k in NOISE_FIELDS if k in values})
