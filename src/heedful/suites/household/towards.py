"""Where the human seems to be walking (Appendix 0.C.3), from the agent's observed track of the human.

If the human has been seen over more than 30 steps, take the vector from the position observed 30 steps
before the last observation to the last observed position, and extend the last position by that vector
scaled to 10 future steps: the expected position. The plane through it, orthogonal to the vector, splits
the house; the side away from the human is where the human walks towards. Rooms more than half of whose
cells lie on that side are listed. A human who moved at most 0.5 m over those steps walks towards nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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
