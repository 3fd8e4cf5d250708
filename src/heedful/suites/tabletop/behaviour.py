"""Does the training behaviour of a task still do a changed task? The test behind levels L1 and L3.

An L1 or L3 task must change what the task involves: its source, its target (or the point a relative
placement aims at), the bar a route may cross, or the branch a conditional takes, so that the motion
learned in training no longer does it. `training_motion_fits(before, before_layout, after, layout)`
answers, from grounded positions alone, whether the training motion (the scripted expert of `before` in
`before_layout`, replayed at the same table coordinates) would also do `after` in `layout`:

- the same action, with the source (and a sequence's second object) at the same place (`SAME_PLACE_M`);
- a placement (stack, bowl, slot, route, relative): the training drop point is at the new target (any
  of these actions: a slot place onto a cylinder that now stands on the slot is a stack), or satisfies
  the new relation to the new anchor;
- push: the same direction;
- route: the training crossing (the expert's bar) is over a bar the new route allows, the same final yaw.

Example: "Pick up the blue ball" in `s4/spheres_swapped` grounds to the same ball, which now stands where
the red ball stood: the training motion picks the red ball there, so the motion does not fit (changed).
But "if the red ball is left of the blue ball pick up the red ball, else the blue ball" takes the other
branch there and picks the ball at the same left place: the motion fits, so that is not an L1 task.
"""

from __future__ import annotations

import math

import numpy as np

from heedful.suites.tabletop.expert import route_waypoints
from heedful.suites.tabletop.grounding import relation_satisfied, relative_target
from heedful.suites.tabletop.model import Grounded, Layout

SAME_PLACE_M = 0.05  # closer than any two objects of a layout (>= 0.12 m), wider than a 1-2 cm shift


DROP_ACTIONS = ("stack", "place_bowl", "place_slot", "place_relative", "route_place")


def _xy(layout: Layout, name: str | None) -> np.ndarray:
    o = layout.obj(str(name))
    return np.array([o.x, o.y])


def _kind(action: str) -> str:
    """What the motion does with the object: holds it up, puts it down somewhere, pushes it, or two pickups."""
    return "drop" if action in DROP_ACTIONS else action


def drop_point(g: Grounded, layout: Layout) -> np.ndarray | None:
    """Where the expert of `g` puts the source down (None for pickups, pushes and sequences)."""
    if g.action == "place_relative":
        point = relative_target(layout, g.source, str(g.target), str(g.relation))
        return None if point is None else np.array(point)
    if g.action in DROP_ACTIONS:
        return _xy(layout, g.target)
    return None


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return float(np.linalg.norm(a - b)) <= SAME_PLACE_M


def _drop_fits(point: np.ndarray, after: Grounded, layout: Layout) -> bool:
    if after.action == "place_relative":
        return after.relation is not None and relation_satisfied(point, _xy(layout, after.target), after.relation)
    return _close(point, _xy(layout, after.target))


def _same_yaw(a: float | None, b: float | None) -> bool:
    diff = ((a or 0.0) - (b or 0.0)) % 180.0
    return math.isclose(diff, 0.0, abs_tol=1e-6) or math.isclose(diff, 180.0, abs_tol=1e-6)


def _route_fits(before: Grounded, before_layout: Layout, after: Grounded, layout: Layout) -> bool:
    if "route_place" not in (before.action, after.action):
        return True
    if before.action != after.action:
        return False
    crossing_x = route_waypoints(before, before_layout)[0][0]
    bar = min(after.barrier, key=lambda b: abs(layout.obj(b).x - crossing_x))
    over_allowed = bar in after.allowed_bars and abs(layout.obj(bar).x - crossing_x) <= SAME_PLACE_M
    return over_allowed and _same_yaw(before.yaw_deg, after.yaw_deg)


def training_motion_fits(before: Grounded, before_layout: Layout, after: Grounded, layout: Layout) -> bool:
    """Whether the expert motion of `before` (in `before_layout`), replayed at the same coordinates,
    also does `after` in `layout`. False means the task changed what it involves."""
    if _kind(before.action) != _kind(after.action):
        return False
    if not _close(_xy(before_layout, before.source), _xy(layout, after.source)):
        return False
    if after.action == "sequence_pickups":
        return _close(_xy(before_layout, before.second), _xy(layout, after.second))
    if after.action == "push":
        return before.direction == after.direction
    point = drop_point(before, before_layout)
    if point is None:  # a pickup
        return True
    return _drop_fits(point, after, layout) and _route_fits(before, before_layout, after, layout)
