"""Where the human seems to be walking (Appendix 0.C.3), from the agent's observed track of the human.

If the human has been seen over more than 30 steps, take the vector from the position observed 30 steps
before the last observation to the last observed position, and extend the last position by that vector
scaled to 10 future steps: the expected position. The plane through it, orthogonal to the vector, splits
the house; the side away from the human is where the human walks towards. Rooms more than half of whose
cells lie on that side are listed. A human who moved at most 0.5 m over those steps walks towards nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from heedful.sims.household.fields import Field, sample
from heedful.sims.household.grid import Grid

HISTORY_STEPS = 30
FUTURE_STEPS = 10
MIN_MOVE_M = 0.5
ROOM_SHARE = 0.5


def expected_position(
    track: Sequence[tuple[int, float, float]],
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """(expected position, direction vector) from an observed track, or None without enough track."""
    if not track:
        return None
    t_last, x_last, y_last = track[-1]
    earlier = [entry for entry in track if entry[0] <= t_last - HISTORY_STEPS]
    if not earlier:
        return None
    t0, x0, y0 = earlier[-1]
    vx, vy = x_last - x0, y_last - y0
    if math.hypot(vx, vy) <= MIN_MOVE_M:
        return None
    scale = FUTURE_STEPS / (t_last - t0)
    return ((x_last + scale * vx, y_last + scale * vy), (vx, vy))


def walking_towards(grid: Grid, track: Sequence[tuple[int, float, float]], n_rooms: int) -> tuple[int, ...]:
    """Rooms the human walks towards, sorted; empty when the track says nothing."""
    found = expected_position(track)
    if found is None:
        return ()
    (ex, ey), (vx, vy) = found
    gx, gy = grid.centres()
    ahead = (gx - ex) * vx + (gy - ey) * vy > 0.0
    rooms = []
    for index in range(n_rooms):
        cells = grid.room == index
        total = int(cells.sum())
        if total and float((ahead & cells).sum()) > ROOM_SHARE * total:
            rooms.append(index)
    return tuple(rooms)


HEADING_SHARE = 0.8
"""Share of the walked distance by which a room's path distance must have shrunk for the walk to head for it."""


def heading_for(grid: Grid, track: Sequence[tuple[int, float, float]], room_fields: Sequence[Field]) -> tuple[int, ...]:
    """Rooms the observed walk went straight towards: from the first to the last sighting, the path distance
    to the room (on the premapped floor plan) shrank by at least `HEADING_SHARE` of the distance walked
    between sightings. The human walks shortest paths, so its destination is always among them; so is every
    room beyond it on the same way. Empty before the human has walked `MIN_MOVE_M`."""
    if len(track) < 2:
        return ()
    walked = sum(math.hypot(b[1] - a[1], b[2] - a[2]) for a, b in itertools.pairwise(track))
    if walked <= MIN_MOVE_M:
        return ()
    (_, x0, y0), (_, x1, y1) = track[0], track[-1]
    xs, ys = np.array([x0, x1]), np.array([y0, y1])
    rooms = []
    for index, field in enumerate(room_fields):
        before, after = sample(grid, field, xs, ys)
        if np.isfinite(before) and np.isfinite(after) and before - after >= HEADING_SHARE * walked:
            rooms.append(index)
    return tuple(rooms)
